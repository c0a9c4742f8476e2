"""The robustness stages, file to file: each replicate's topics (rule ``replicate``, one job per
replicate), each topic's stability over them (rule ``topic_stability``) and each finding
re-tested in them (rule ``finding_robustness``; each kind's part in ``finding_kinds``).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass

import numpy as np

from papertopics import storage
from papertopics.embed.encoders import corpus_embeddings, embedding_text
from papertopics.mapping.cluster import OUTLIER
from papertopics.mapping.reduce import Projection
from papertopics.robustness.finding_kinds import (
    REPORTED_BY,
    FindingInputs,
    Graded,
    bursts_graded,
    comparison_graded,
    people_graded,
    reception_graded,
    trends_graded,
    venues_graded,
)
from papertopics.robustness.findings import Replicate, matched_topics, robustness_records
from papertopics.robustness.replicates import replicate_seed, replicate_topics
from papertopics.robustness.retest_cache import RetestCache, code_digest, digest, files_digest
from papertopics.robustness.stability import MATCH_JACCARD, best_matches, stability_grade
from papertopics.settings import FindingSettings, ReplicateSettings

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
class FindingOutputs:
    """What the finding_robustness stage writes: each stage's table of findings (``trends.csv``,
    ``comparison.csv``, ``bursts.csv``, ``reception.csv``, ``reception_years.csv``, ``people_rising.csv``,
    ``people_topics.csv``, ``venues.csv``, ``venue_trends.csv``) with each row's ``holds``, ``replicates`` and (on
    findings) ``robustness``, and ``robustness.json``, the same per kind of finding, for the report.
    """

    trends: str
    comparison: str
    bursts: str
    reception: str
    reception_years: str
    people_rising: str
    people_topics: str
    venues: str
    venue_trends: str
    record: str


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


# Each replicate's re-tests, kept between runs of finding_robustness: a folder of the working
# directory the job runs in, beside the replicates; not an output, which Snakemake would delete
# before the job, and not a knob (where it lies changes no result).
RETEST_CACHE = "results/robustness/retests"


def finding_robustness(
    inputs: FindingInputs, outputs: FindingOutputs, knobs: dict, retest_cache: str = RETEST_CACHE
) -> None:
    """Each finding re-tested in every replicate on its matched topic (``papertopics.robustness.findings``):
    the trends and their shapes, the newest period against the one before, the bursts' topics, the reception
    findings and changes across the years, who is rising and who holds more of a topic (people), and which venues hold more or
    fewer of a topic and each venue's own trends; ``knobs``: ``papertopics.settings.FindingSettings``' fields.
    Each replicate's re-tests are kept in the folder ``retest_cache`` (``papertopics.robustness.retest_cache``):
    a rerun recomputes only those whose inputs changed.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The periods import pandas at their top: only the jobs that use them load it.
    from papertopics.periods.assign import load_groups

    assigned = pd.read_csv(inputs.topic_papers, keep_default_na=False, dtype=str)
    ids = assigned["id"].tolist()
    topics = pd.read_csv(inputs.topics, keep_default_na=False)
    graded = Graded(
        assigned,
        _replicates(inputs.replicates, ids, pd.read_csv(inputs.matches, keep_default_na=False)),
        {
            int(topic): float(value)
            for topic, value in zip(topics["id"], topics["stability"], strict=True)
            if value != ""
        },
        FindingSettings(**knobs),
        *load_groups(inputs.periods_table, inputs.periods_settings, ids),
        cache=RetestCache(
            retest_cache, digest(code_digest(), json.dumps(knobs, sort_keys=True, default=str))
        ),
        # What the re-tests of the topics' own findings read: the papers' topics and people, their
        # texts, periods and groups, and the periods the changes stage tested.
        inputs=files_digest(
            [
                inputs.topic_papers,
                inputs.papers,
                inputs.periods_table,
                inputs.periods_settings,
                inputs.changes,
            ]
        ),
    )
    start = time.perf_counter()
    tables = {
        "trends": trends_graded(inputs, graded),
        "comparison": comparison_graded(inputs, graded),
        "bursts": bursts_graded(inputs, graded),
        **reception_graded(inputs, graded),
        **people_graded(inputs, graded),
        **venues_graded(inputs, graded),
    }
    graded.cache.prune()
    for kind, table in tables.items():
        storage.write_csv(getattr(outputs, kind), table)
    storage.write_json(
        outputs.record,
        {
            "replicates": len(graded.replicates),
            "stability": graded.stability,
            **{kind: robustness_records(table, REPORTED_BY[kind]) for kind, table in tables.items()},
            # The trajectories' shapes, graded in trends.csv beside the trends.
            "shapes": robustness_records(tables["trends"], REPORTED_BY["shapes"], prefix="shape_"),
        },
    )
    _LOG.info(
        "trends and their shapes, changes since the period before, bursts, reception (and across the years), "
        "people and venue findings "
        "re-tested in %d replicates in %.1f s",
        len(graded.replicates),
        time.perf_counter() - start,
    )
