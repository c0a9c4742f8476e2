"""What following topics across runs and comparing dumps add to a rerun (``make bench-changes``).

On N synthetic papers (unit vectors around topic centres, 384-d as all-MiniLM-L6-v2) in T topics,
a previous run's record is made first; then a rerun with a tenth more papers (a new dump) and a
twentieth of the papers moved between topics is timed, in this process, median of 5:

- the topics stage's added work: topic snapshots (centroids and paper sets), matching against
  the record, labels carried, events, and the new record written;
- the ``changes`` stage's work: the per-dump share table, the tests, new and faded topics, written.

A whole ``changes`` job also pays a Python start and its imports (pandas, scipy); it runs beside
``evaluate``, after ``topics``. Writes bench/changes.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "workflow"))

from papertopics import storage  # noqa: E402
from papertopics.changes import describe_changes  # noqa: E402
from papertopics.lineage import (  # noqa: E402
    TopicHistory,
    carry_labels,
    follow_topics,
    lineage_events,
    record_run,
    topic_snapshots,
)


def synthetic_run(papers: int, topics: int, seed: int) -> tuple[list[str], np.ndarray, np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(topics, 384))
    assigned = rng.integers(0, topics, size=papers)
    vectors = centres[assigned] + 2.0 * rng.normal(size=(papers, 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    dumps = np.where(np.arange(papers) < papers * 10 // 11, "earlier", "newest")
    return [f"p{i}" for i in range(papers)], vectors.astype(np.float32), assigned, dumps.tolist()


def time_lineage(history_dir: Path, ids, vectors, topics, previous_run: bool) -> tuple[float, dict]:
    """Seconds of the topics stage's history work for one run (the record is written too)."""
    started = time.perf_counter()
    snapshots = topic_snapshots(ids, vectors, topics)
    history = TopicHistory(history_dir)
    stable, matching, baseline, run = follow_topics(history, snapshots, 0.3, 0.85)
    labels = {stable[s.id]: f"label {stable[s.id]}" for s in snapshots}
    earlier = {t["id"]: t["label"] for t in baseline["topics"]} if baseline else {}
    labels, relabelled = carry_labels(labels, lambda topic, phrase, main: phrase in labels[topic], earlier)
    sizes = {stable[s.id]: s.size for s in snapshots}
    events = lineage_events(matching, stable, labels, sizes, baseline, run, relabelled, set(ids))
    record_run(
        history, run, baseline, [replace(s, id=stable[s.id], label=labels[stable[s.id]]) for s in snapshots]
    )
    assert previous_run == (baseline is not None)
    return time.perf_counter() - started, events


def time_changes(folder: Path, ids, topics, dumps, lineage) -> float:
    papers = pd.DataFrame({"id": ids, "topic": topics, "dumps": dumps, "display_name": ids})
    details = [
        {"topic": int(t), "label": f"label {t}", "representative_ids": ids[:3]}
        for t in sorted(set(topics.tolist()))
    ]
    started = time.perf_counter()
    shares, record = describe_changes(
        papers, details, lineage, ["earlier", "newest"], "auto", "auto", "auto", 0.95, 0.05, 0.9, 0.1, 5
    )
    storage.write_csv(folder / "dump_shares.csv", shares)
    storage.write_json(folder / "changes.json", record)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--topics", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    ids, vectors, topics, dumps = synthetic_run(args.papers, args.topics, seed=0)
    earlier = np.array([d == "earlier" for d in dumps])
    moved = np.random.default_rng(1).random(args.papers) < 0.05
    rerun_topics = np.where(moved, (topics + 1) % args.topics, topics)
    lineage_seconds, changes_seconds = [], []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as scratch:
            history = Path(scratch) / "history"
            keep = np.flatnonzero(earlier)
            time_lineage(history, [ids[i] for i in keep], vectors[keep], topics[keep], previous_run=False)
            seconds, events = time_lineage(history, ids, vectors, rerun_topics, previous_run=True)
            lineage_seconds.append(seconds)
            changes_seconds.append(time_changes(Path(scratch), ids, rerun_topics, dumps, events))
    lineage_median, changes_median = statistics.median(lineage_seconds), statistics.median(changes_seconds)
    table = (
        "# Following topics across runs and comparing dumps: added work\n\n"
        f"Written by `make bench-changes` (`bench/changes_bench.py`): {args.papers:,} synthetic papers "
        f"(384-d), {args.topics} topics, a rerun with a new dump of a tenth of the papers and a "
        f"twentieth of the papers moved between topics; median of {args.repeats}, in one process, "
        "no embedding model involved.\n\n"
        "| work | seconds |\n|---|---:|\n"
        f"| topics stage: snapshots, matching against history, labels, events, record written | {lineage_median:.3f} |\n"
        f"| changes stage: share table, intervals, tests, new and faded topics, files written | {changes_median:.3f} |\n"
        f"| total | {lineage_median + changes_median:.3f} |\n\n"
        f"Events of the timed rerun: {len(events['kept'])} kept, {len(events['new'])} new, "
        f"{len(events['gone'])} gone, {len(events['merged'])} merges, {len(events['split'])} splits.\n"
    )
    (BENCH / "changes.md").write_text(table, encoding="utf-8")
    print(table)


if __name__ == "__main__":
    main()
