"""The robustness stages, file to file: each replicate's topics (rule ``replicate``, one job per
replicate) and each topic's stability over them (rule ``topic_stability``).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np

from papertopics import storage
from papertopics.embed.encoders import corpus_embeddings, embedding_text
from papertopics.mapping.cluster import OUTLIER
from papertopics.mapping.reduce import Projection

# The reception stage's own steps, so that the papers and their decisions are read as it reads them.
from papertopics.reception.stages import received_records, received_table, reception_settings, topic_papers_of
from papertopics.reception.values import read_values
from papertopics.robustness.findings import (
    Replicate,
    count_holds,
    matched_topics,
    robustness_records,
    with_robustness,
)
from papertopics.robustness.replicates import replicate_seed, replicate_topics
from papertopics.robustness.stability import MATCH_JACCARD, best_matches, stability_grade
from papertopics.settings import FindingSettings, ReplicateSettings
from papertopics.stats import SIGNIFICANT

_LOG = logging.getLogger(__name__)


def replicate(papers: str, embeddings: list[str], neighbours: str, topics: str, knobs: dict) -> None:
    """Replicate ``knobs["replicate"]``: a subsample of the papers projected and clustered as the
    main run is (``papertopics.robustness.replicates``); ``topics`` holds the drawn papers' ids,
    their topics there and whether HDBSCAN left each an outlier. ``knobs``: ``papertopics.settings.ReplicateSettings``' fields.
    """
    chosen = ReplicateSettings(**knobs)
    records, vectors = corpus_embeddings(papers, embeddings)
    graph = storage.read_arrays(neighbours)
    ids = [p["id"] for p in records]
    if graph["ids"].tolist() != ids:
        raise RuntimeError("the neighbour graph is out of step with the corpus; rerun the neighbours job.")
    seed = replicate_seed(chosen.random_state, chosen.replicate)
    start = time.perf_counter()
    rows, labels, outlier, used = replicate_topics(
        vectors,
        [embedding_text(p) for p in records],
        (graph["indices"], graph["distances"]) if graph["searched"] else None,
        Projection(**chosen.umap()),
        chosen.hdbscan(),
        chosen.sample_share,
        seed,
    )
    storage.write_arrays(topics, ids=np.array(ids)[rows], labels=labels, outlier=outlier, seed=np.array(seed))
    _LOG.info(
        "replicate %d (seed %d): %d of %d papers, %d topics, %d outliers left, in %.1f s; %s",
        chosen.replicate,
        seed,
        len(rows),
        len(ids),
        len(set(labels.tolist()) - {OUTLIER}),
        int((labels == OUTLIER).sum()),
        time.perf_counter() - start,
        used,
    )


def topic_stability(
    topic_papers: str, topic_table: str, replicates: list[str], topics: str, matches: str
) -> None:
    """Each topic of the main run (``topic_table``, its papers' topics in ``topic_papers``) matched
    in each replicate: ``matches`` (``stability.csv``) lists its best match and Jaccard per
    replicate, ``topics`` (``topics.csv``) is the topics stage's table with each topic's
    ``stability`` (the mean best Jaccard; empty with no replicates) and ``stability_grade``.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    table = pd.read_csv(topic_table, keep_default_na=False)
    assigned = pd.read_csv(topic_papers, keep_default_na=False, dtype={"id": str}, usecols=["id", "topic"])
    row_of = {paper: row for row, paper in enumerate(assigned["id"])}
    topic_of = assigned["topic"].to_numpy()
    # The outliers' group (papers no topic holds) is no topic: it has no stability.
    topic_ids = [topic for topic in table["id"].astype(int).tolist() if topic != OUTLIER]
    rows = []
    for number, path in enumerate(replicates, start=1):
        drawn = storage.read_arrays(path)
        missing = [paper for paper in drawn["ids"].tolist() if paper not in row_of]
        if missing:
            raise RuntimeError(
                f"{path} holds {len(missing)} papers not in {topic_papers}; rerun its replicate."
            )
        matched, jaccard = best_matches(
            topic_of, np.array([row_of[paper] for paper in drawn["ids"].tolist()]), drawn["labels"], topic_ids
        )
        rows.extend(
            {
                "topic": topic,
                "replicate": number,
                "match": int(match),
                "jaccard": round(float(value), 4),
                "matched": bool(value > MATCH_JACCARD),
            }
            for topic, match, value in zip(topic_ids, matched, jaccard, strict=True)
        )
    found = pd.DataFrame(rows, columns=["topic", "replicate", "match", "jaccard", "matched"])
    stability = found.groupby("topic")["jaccard"].mean() if len(found) else pd.Series(dtype=float)
    listed = table["id"].astype(int).tolist()
    table["stability"] = [round(float(stability[t]), 3) if t in stability.index else None for t in listed]
    table["stability_grade"] = [stability_grade(stability.get(t)) for t in listed]
    table["replicates"] = len(replicates)
    storage.write_csv(topics, table)
    storage.write_csv(matches, found)
    _LOG.info(
        "%d topics matched in %d replicates: %s", len(topic_ids), len(replicates), table["stability"].tolist()
    )


@dataclass(frozen=True)
class FindingInputs:
    """What the finding_robustness stage reads (the rule's inputs, by name).

    Attributes:
        topic_papers: the topics stage's ``papers.csv`` (each paper's topic, and its authors,
            affiliations and countries).
        topics: ``topics.csv`` with each topic's stability (``topic_stability``).
        matches: ``stability.csv``: each topic's match in each replicate.
        replicates: every replicate's topics.
        periods_table: the periods stage's table of each paper's period and group.
        periods_settings: the periods stage's record.
        found_trends: the changes stage's ``trends.csv``.
        changes: the changes stage's ``changes.json`` (the periods the trends were tested over).
        papers: the corpus (its papers' dumps, to find them as parsed).
        parsed: the dumps as parsed, decisions, ratings and citations and all.
        details: the topics stage's ``topic_details.json``.
        found_reception: the reception stage's ``reception.csv``.
        found_bursts: the changes stage's ``bursts.csv``.
        found_rising: the people stage's ``people_rising.csv``.
        found_people_topics: the people stage's ``people_topics.csv``.
        found_venues: the venues stage's ``venues.csv``.
    """

    topic_papers: str
    topics: str
    matches: str
    replicates: list[str]
    periods_table: str
    periods_settings: str
    found_trends: str
    changes: str
    papers: str
    parsed: list[str]
    details: str
    found_reception: str
    found_bursts: str
    found_rising: str
    found_people_topics: str
    found_venues: str


@dataclass(frozen=True)
class FindingOutputs:
    """What the finding_robustness stage writes: each stage's table of findings (``trends.csv``,
    ``comparison.csv``, ``bursts.csv``, ``reception.csv``, ``people_rising.csv``, ``people_topics.csv``, ``venues.csv``) with each
    row's ``holds``, ``replicates`` and (on findings) ``robustness``, and ``robustness.json``,
    the same per kind of finding, for the report.
    """

    trends: str
    comparison: str
    bursts: str
    reception: str
    people_rising: str
    people_topics: str
    venues: str
    record: str


@dataclass(frozen=True)
class _Graded:
    """What every kind's re-test reads: the main run's papers (``papers.csv``, as text), the
    replicates, each topic's stability, the stage's settings, and the periods stage's periods and
    groups (None where no venues are compared) over the papers.
    """

    assigned: object
    replicates: list[Replicate]
    stability: dict[int, float]
    settings: FindingSettings
    periods: object
    groups: object

    def levels(self):
        """The levels the people's and the venues' tests are graded at (``compare``'s)."""
        # The people's tests import heavy libraries at their top: only the jobs that use them load them.
        from papertopics.people.trends import GradingLevels

        settings = self.settings
        return GradingLevels(settings.confidence, settings.false_discovery_rate, settings.suggestive_q)


# What tells a kind's findings of one topic apart (none for a trend), and so keys its record.
_REPORTED_BY = {
    "trends": (),
    "comparison": (),
    "bursts": ("term", "start"),
    "reception": ("measure", "outcome"),
    "people_rising": ("kind", "name"),
    "people_topics": ("kind", "name"),
    "venues": ("venue",),
}


def _replicates(paths: list[str], ids: list[str], matches) -> list[Replicate]:
    """The replicates as the re-tests read them, their papers as rows of ``ids``."""
    row_of = {paper: row for row, paper in enumerate(ids)}
    replicates = []
    for number, path in enumerate(paths, start=1):
        drawn = storage.read_arrays(path)
        replicates.append(
            Replicate(
                rows=np.array([row_of[paper] for paper in drawn["ids"].tolist()], dtype=np.int64),
                labels=drawn["labels"],
                outlier=drawn["outlier"],
                match=matched_topics(matches, number),
            )
        )
    return replicates


def finding_robustness(inputs: FindingInputs, outputs: FindingOutputs, knobs: dict) -> None:
    """Each finding re-tested in every replicate on its matched topic (``papertopics.robustness.findings``):
    the trends, the newest period against the one before, the bursts' topics, the reception findings, who is rising and who holds more of a topic (people), and
    which venues hold more or fewer of a topic; ``knobs``: ``papertopics.settings.FindingSettings``' fields.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The periods import pandas at their top: only the jobs that use them load it.
    from papertopics.periods.assign import load_groups

    assigned = pd.read_csv(inputs.topic_papers, keep_default_na=False, dtype=str)
    ids = assigned["id"].tolist()
    topics = pd.read_csv(inputs.topics, keep_default_na=False)
    graded = _Graded(
        assigned,
        _replicates(inputs.replicates, ids, pd.read_csv(inputs.matches, keep_default_na=False)),
        {
            int(topic): float(value)
            for topic, value in zip(topics["id"], topics["stability"], strict=True)
            if value != ""
        },
        FindingSettings(**knobs),
        *load_groups(inputs.periods_table, inputs.periods_settings, ids),
    )
    start = time.perf_counter()
    tables = {
        "trends": _trends(inputs, graded),
        "comparison": _comparison(inputs, graded),
        "bursts": _bursts(inputs, graded),
        "reception": _reception(inputs, graded),
        **_people(inputs, graded),
        "venues": _venues(inputs, graded),
    }
    for kind, table in tables.items():
        storage.write_csv(getattr(outputs, kind), table)
    storage.write_json(
        outputs.record,
        {
            "replicates": len(graded.replicates),
            "stability": graded.stability,
            **{kind: robustness_records(table, _REPORTED_BY[kind]) for kind, table in tables.items()},
        },
    )
    _LOG.info(
        "trends, the newest period's changes, bursts, reception, people and venue findings re-tested in %d replicates in %.1f s",
        len(graded.replicates),
        time.perf_counter() - start,
    )


def _graded_table(table, graded: _Graded, retest, kind: str, is_finding, after: str | None = None):
    """``table`` (a stage's findings of ``kind``) with how often each held and its grade."""
    holds, drawn = count_holds(table, graded.replicates, retest, _REPORTED_BY[kind])
    return with_robustness(table, holds, drawn, graded.stability, is_finding, after=after)


def _trends(inputs: FindingInputs, graded: _Graded):
    """The trends (``trends.csv``), each re-tested over the periods the main run tested."""
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.robustness.retests import replicate_trends

    trends = pd.read_csv(inputs.found_trends, keep_default_na=False)
    tested = (storage.read_json(inputs.changes)["trends"] or {}).get("periods") or []
    return _graded_table(
        trends,
        graded,
        lambda replicate: replicate_trends(replicate, graded.periods, tested, graded.settings),
        "trends",
        _flag(trends, "finding"),
        after="finding",
    )


def _comparison(inputs: FindingInputs, graded: _Graded):
    """The newest period against the one before (``changes.json``'s comparison, as
    ``comparison.csv``), each topic's change re-tested between the same two periods.
    """
    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.robustness.retests import comparison_findings, replicate_comparison

    changes = storage.read_json(inputs.changes)
    found = comparison_findings(changes)
    return _graded_table(
        found,
        graded,
        lambda replicate: replicate_comparison(
            replicate, graded.periods, changes["baseline"], changes["target"], graded.settings
        ),
        "comparison",
        found["grade"] == SIGNIFICANT,
    )


def _bursts(inputs: FindingInputs, graded: _Graded):
    """The bursts (``bursts.csv``, with each burst's leading ``topic``), each re-tested on the
    replicate's drawn papers and topics: its term bursting again from its first period, its
    leading topic's match among the topics holding most of the burst's papers.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.robustness.retests import BurstsTested, burst_findings, replicate_bursts

    record = storage.read_json(inputs.changes)["bursts"]
    table = pd.read_csv(inputs.found_bursts, keep_default_na=False, dtype={"term": str, "start": str})
    found = burst_findings(record)
    if found["term"].tolist() != table["term"].tolist():
        raise RuntimeError(f"{inputs.found_bursts} is out of step with {inputs.changes}; rerun changes.")
    texts = {paper["id"]: paper["text"] for paper in storage.read_jsonl(inputs.papers)}
    tested = BurstsTested(
        [texts[paper] for paper in graded.assigned["id"]],
        graded.periods,
        record.get("periods") or [],
        graded.settings,
        graded.settings.stop_words,
    )
    holds, drawn = count_holds(
        found, graded.replicates, lambda r: replicate_bursts(r, tested), ("term", "start")
    )
    table.insert(table.columns.get_loc("topics"), "topic", found["topic"].to_numpy())
    return with_robustness(table, holds, drawn, graded.stability, found["topic"] != OUTLIER)


def _reception(inputs: FindingInputs, graded: _Graded):
    """The reception findings (``reception.csv``), on the same papers' decisions, ratings and citations."""
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.robustness.retests import replicate_reception

    settings = graded.settings
    merged = received_table(received_records(inputs.papers, inputs.parsed), graded.assigned)
    if merged["id"].tolist() != graded.assigned["id"].tolist():
        raise RuntimeError(f"{inputs.topic_papers} is out of step with the corpus; rerun topics.")
    values = read_values(merged, settings.decision_field, settings.ratings_field, settings.citations_field)
    found = topic_papers_of(merged, storage.read_json(inputs.details)["topics"])
    found_settings = reception_settings(settings, settings.reception_min_papers)
    reception = pd.read_csv(inputs.found_reception, keep_default_na=False)
    return _graded_table(
        reception,
        graded,
        lambda replicate: replicate_reception(replicate, found, values, found_settings),
        "reception",
        reception["evidence"] == SIGNIFICANT,
    )


def _people(inputs: FindingInputs, graded: _Graded) -> dict:
    """Who is rising in a topic (``people_rising``) and who holds more or fewer of it
    (``people_topics``), each re-tested on the replicate's topics.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.people.authorship import people_columns, people_table
    from papertopics.robustness.retests import people_tested, replicate_over_represented, replicate_rising

    settings = graded.settings
    columns = people_columns(list(graded.assigned.columns), settings, source=inputs.topic_papers)
    long = people_table(graded.assigned, columns)
    people = people_tested(long, graded.periods, settings.people_min_papers, graded.levels())
    retests = {"people_rising": replicate_rising, "people_topics": replicate_over_represented}
    found = {"people_rising": inputs.found_rising, "people_topics": inputs.found_people_topics}
    tables = {}
    for kind, retest in retests.items():
        # A name is text, even one that reads as a number (a group's "1").
        table = pd.read_csv(found[kind], keep_default_na=False, dtype={"name": str})
        tables[kind] = _graded_table(
            table,
            graded,
            lambda replicate, retest=retest: retest(replicate, people),
            kind,
            table["grade"] == SIGNIFICANT,
        )
    return tables


def _venues(inputs: FindingInputs, graded: _Graded):
    """Which venues hold more or fewer of a topic (``venues.csv``), re-tested on the replicate's topics."""
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.robustness.retests import replicate_venues

    # A venue is text, even one that reads as a number (a track "2").
    venues = pd.read_csv(inputs.found_venues, keep_default_na=False, dtype={"venue": str})
    levels = graded.levels()
    # Where no venues are compared the table is only its header, and nothing is re-tested.
    return _graded_table(
        venues,
        graded,
        lambda replicate: replicate_venues(replicate, graded.groups, levels),
        "venues",
        venues["grade"] == SIGNIFICANT,
    )


def _flag(table, column: str):
    """A column of true and false as written to CSV, as booleans (none where the table is empty)."""
    return table[column].astype(str).str.lower().eq("true") if len(table) else []
