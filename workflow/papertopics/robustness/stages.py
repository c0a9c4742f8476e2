"""The robustness stages, file to file: each replicate's topics (rule ``replicate``, one job per
replicate) and each topic's stability over them (rule ``topic_stability``).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from papertopics import storage
from papertopics.embed.encoders import corpus_embeddings, embedding_text
from papertopics.mapping.cluster import OUTLIER
from papertopics.mapping.reduce import Projection
from papertopics.robustness.replicates import replicate_seed, replicate_topics
from papertopics.robustness.stability import MATCH_JACCARD, best_matches, stability_grade
from papertopics.settings import ReplicateSettings

_LOG = logging.getLogger(__name__)


def replicate(papers: str, embeddings: list[str], neighbours: str, topics: str, knobs: dict) -> None:
    """Replicate ``knobs["replicate"]``: a subsample of the papers projected and clustered as the
    main run is (``papertopics.robustness.replicates``); ``topics`` holds the drawn papers' ids
    and their topics there. ``knobs``: ``papertopics.settings.ReplicateSettings``' fields.
    """
    chosen = ReplicateSettings(**knobs)
    records, vectors = corpus_embeddings(papers, embeddings)
    graph = storage.read_arrays(neighbours)
    ids = [p["id"] for p in records]
    if graph["ids"].tolist() != ids:
        raise RuntimeError("the neighbour graph is out of step with the corpus; rerun the neighbours job.")
    seed = replicate_seed(chosen.random_state, chosen.replicate)
    start = time.perf_counter()
    rows, labels, used = replicate_topics(
        vectors,
        [embedding_text(p) for p in records],
        (graph["indices"], graph["distances"]) if graph["searched"] else None,
        Projection(**chosen.umap()),
        chosen.hdbscan(),
        chosen.sample_share,
        seed,
    )
    storage.write_arrays(topics, ids=np.array(ids)[rows], labels=labels, seed=np.array(seed))
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
    topic_ids = table["id"].astype(int).tolist()
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
    table["stability"] = [round(float(stability[t]), 3) if t in stability.index else None for t in topic_ids]
    table["stability_grade"] = [stability_grade(stability.get(t)) for t in topic_ids]
    table["replicates"] = len(replicates)
    storage.write_csv(topics, table)
    storage.write_csv(matches, found)
    _LOG.info(
        "%d topics matched in %d replicates: %s", len(topic_ids), len(replicates), table["stability"].tolist()
    )
