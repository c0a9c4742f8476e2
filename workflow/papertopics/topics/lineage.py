"""This run's topics against the previous run's: what each run keeps of its topics in history, and
the topics stage's steps that read and write it.

``follow_history`` gives this run's topics their stable ids (``papertopics.topics.matching``
matches them to the previous run's record); ``trace_lineage`` tells what that matching means
for a reader, by stable id: topics kept, new, gone, merged, split and relabelled, and how the
papers flowed between the two runs' topics (the content of ``lineage.json``), and makes the
record history keeps of this run.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from papertopics.topics.history import TopicHistory
from papertopics.topics.ids import TopicIds
from papertopics.topics.matching import (
    Matching,
    TopicSnapshot,
    match_topics,
    partition_digest,
    shared_papers,
    stable_ids,
    topic_snapshots,
)


@dataclass(frozen=True)
class Followed:
    """This run's topics matched to the previous run's."""

    topic_ids: TopicIds  # with the stable ids
    snapshots: list[TopicSnapshot]  # the topics as found, keyed by their row
    matching: Matching  # keyed by row
    baseline: dict | None  # the previous run's record (None: a first run)
    run: int  # this run's number in history


def follow_history(
    history: TopicHistory,
    ids: list[str],
    vectors: np.ndarray,
    topic_ids: TopicIds,
    rows: np.ndarray,
    min_overlap: float,
    min_similarity: float,
) -> Followed:
    """Each topic's stable id (``rows``: each paper's row of ``topic_ids``): the id of the previous
    run's topic it continues, else a new one (``follow_topics``).
    """
    snapshots = topic_snapshots(ids, vectors, rows)
    stable_of_row, matching, baseline, run = follow_topics(history, snapshots, min_overlap, min_similarity)
    return Followed(topic_ids.with_stable(stable_of_row), snapshots, matching, baseline, run)


def why_missing(matching: Matching, topic_ids: TopicIds) -> dict[int, str]:
    """What became of the previous run's ids that this run does not continue, naming this run's
    topics by stable id (``matching``'s keys are rows of ``topic_ids``).
    """
    stable = topic_ids.stable.tolist()
    why = {old: "gone (its papers are in no topic of this run)" for old in matching.gone}
    for row, olds in matching.merges:
        why.update(
            {old: f"merged with other topics into a topic of this run (now {stable[row]})" for old in olds}
        )
    for old, rows in matching.splits:
        why[old] = f"split into topics {', '.join(str(stable[row]) for row in rows)}"
    return why


@dataclass(frozen=True)
class Lineage:
    """What changed since the previous run, and this run's topics as history keeps them."""

    events: dict  # the content of ``lineage.json``
    # The topics as found, by stable id, each with the label and keywords of the topic it is shown in.
    kept: list[TopicSnapshot]


def trace_lineage(
    followed: Followed,
    topic_ids: TopicIds,
    label_as_found: dict[int, str],
    from_papers: dict[int, str],
    relabelled: list[dict],
    keywords: dict[int, list[tuple[str, float]]],
    ids: list[str],
) -> Lineage:
    """The lineage events and the record for history.

    Args:
        followed: this run's topics matched to the previous run's.
        topic_ids: the numberings, curated and fitted.
        label_as_found: stable id → the label of the topic it is shown in, for every topic as found.
        from_papers: curated id → the label made from its papers (what history keeps).
        relabelled: the topics whose label changed since the previous run.
        keywords: shown topic → its weighted keywords.
        ids: every paper's id.
    """
    events = lineage_events(
        followed.matching, topic_ids, label_as_found, followed.baseline, followed.run, relabelled, set(ids)
    )
    events["flows"] = paper_flows(followed.baseline, followed.snapshots, topic_ids)
    stable, curated = topic_ids.stable.tolist(), topic_ids.curated.tolist()
    kept = [
        replace(
            topic,
            id=stable[topic.id],
            label=from_papers.get(curated[topic.id], ""),
            keywords=tuple(word for word, _ in keywords.get(curated[topic.id], [])),
        )
        for topic in followed.snapshots
    ]
    return Lineage(events, kept)


def lineage_events(
    matching: Matching,
    topic_ids: TopicIds,
    labels: dict[int, str],
    baseline: dict | None,
    run: int,
    relabelled: list[dict],
    papers: set[str],
) -> dict:
    """What changed since the previous run (``matching``'s keys: rows of ``topic_ids``; ``labels``:
    stable id → label, for every topic as found), by stable id.
    """
    if baseline is None:
        return {"first_run": True, "run": run, "previous_run": None, "topics": len(topic_ids)}
    before = {t["id"]: t for t in baseline["topics"]}
    earlier_papers = {p for t in baseline["topics"] for p in t["papers"]}

    def now(row: int) -> dict:
        stable = int(topic_ids.stable[row])
        return {"id": stable, "label": labels[stable], "size": int(topic_ids.size[row])}

    def then(topic_id: int) -> dict:
        return {"id": topic_id, "label": before[topic_id]["label"], "size": before[topic_id]["size"]}

    return {
        "first_run": False,
        "run": run,
        "previous_run": baseline["run"],
        "topics": len(topic_ids),
        "previous_topics": len(before),
        "papers_in_both_runs": len(papers & earlier_papers),
        "papers_new": len(papers - earlier_papers),
        "papers_removed": len(earlier_papers - papers),
        "kept": [
            {**now(row), "previous_size": before[old]["size"], "matched_by": matching.matched_by[row]}
            for row, old in sorted(matching.continued.items(), key=lambda item: item[1])
        ],
        "new": [now(row) for row in matching.new],
        "gone": [then(old) for old in matching.gone],
        "merged": [{"into": now(row), "from": [then(old) for old in olds]} for row, olds in matching.merges],
        "split": [{"from": then(old), "into": [now(row) for row in rows]} for old, rows in matching.splits],
        "relabelled": relabelled,
    }


# Papers moving between two topics are drawn when they are at least this share of either topic,
# so that a handful of papers drifting across does not become a thread of its own.
_FLOW_SHARE = 0.05


def paper_flows(baseline: dict | None, current: list[TopicSnapshot], topic_ids: TopicIds) -> dict:
    """How the papers of the previous run's topics spread over this run's (``current``, keyed by
    their row of ``topic_ids``), by stable id: the papers each pair shares, the papers new to each
    topic, and the papers of each earlier topic no longer in the corpus; the content of
    ``lineage.json``'s ``flows``.
    """
    if baseline is None:
        return {"links": [], "new_papers": [], "removed_papers": []}
    previous = [TopicSnapshot.from_record(r) for r in baseline["topics"]]
    shared = shared_papers(previous, current)
    everyone_before = {paper for topic in previous for paper in topic.papers}
    everyone_now = {paper for topic in current for paper in topic.papers}
    links = [
        {"from": before.id, "to": int(topic_ids.stable[now.id]), "papers": int(shared[row, column])}
        for row, before in enumerate(previous)
        for column, now in enumerate(current)
        if shared[row, column] > 0 and shared[row, column] >= _FLOW_SHARE * min(before.size, now.size)
    ]
    return {
        "links": sorted(links, key=lambda link: (link["from"], link["to"])),
        "new_papers": [
            {"to": int(topic_ids.stable[topic.id]), "papers": len(topic.papers - everyone_before)}
            for topic in current
            if topic.papers - everyone_before
        ],
        "removed_papers": [
            {"from": topic.id, "papers": len(topic.papers - everyone_now)}
            for topic in previous
            if topic.papers - everyone_now
        ],
    }


def follow_topics(
    history: TopicHistory,
    current: list[TopicSnapshot],
    min_overlap: float,
    min_similarity: float,
) -> tuple[dict[int, int], Matching, dict | None, int]:
    """Stable ids for this run's topics (keys: ``current[i].id``, largest topic first).

    Returns the ids, the matching, the previous record (None on a first run) and this run's number.
    """
    baseline, run = history.baseline(partition_digest(current))
    previous = [TopicSnapshot.from_record(r) for r in baseline["topics"]] if baseline else []
    matching = match_topics(previous, current, min_overlap, min_similarity)
    ids, _ = stable_ids([t.id for t in current], matching.continued, baseline["next_id"] if baseline else 0)
    return ids, matching, baseline, run


def record_run(history: TopicHistory, run: int, baseline: dict | None, topics: list[TopicSnapshot]) -> None:
    """Keep this run's topics (with stable ids) for the next run to match against."""
    next_id = max([baseline["next_id"] if baseline else 0] + [t.id + 1 for t in topics])
    history.write(
        run,
        {
            "matched_against": baseline["run"] if baseline else None,
            "digest": partition_digest(topics),
            "next_id": next_id,
            "topics": [t.to_record() for t in sorted(topics, key=lambda t: t.id)],
        },
    )
