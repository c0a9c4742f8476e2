"""Replicates: the topics found again on a subsample of the papers, with the replicate's own seed.

A replicate draws a share of the papers without replacement (clusterboot's advice for a method
such as HDBSCAN, whose outliers a bootstrap's repeated points would hide), projects them with UMAP
seeded apart from the main run, clusters them with HDBSCAN and moves the outliers to the nearest
topic, as the main run's reduce, cluster and topics stages do (the same functions). It is cheaper
in two ways: it searches no neighbours (the main run's graph, restricted to the subsample, is
what its UMAP starts from) and it projects once where the main run joins ``umap.consensus_runs``
projections, so a replicate also moves with the seed that the consensus steadies.
"""

from __future__ import annotations

import numpy as np

from papertopics.mapping.cluster import OUTLIER, assign_outliers
from papertopics.mapping.consensus import cluster_runs
from papertopics.mapping.reduce import Projection, reduce_embeddings
from papertopics.mapping.sizing import resolve_n_neighbors


def replicate_seed(random_state: int, replicate: int) -> int:
    """Replicate ``replicate``'s seed (1, 2, ...), of its subsample and its UMAP: drawn from the
    run's ``umap.random_state`` and the replicate's number alone, so adding replicates reruns none.
    """
    return int(np.random.default_rng([random_state, replicate]).integers(0, 2**31 - 1))


def subsample(n_papers: int, share: float, seed: int) -> np.ndarray:
    """The rows (sorted) of ``share`` of ``n_papers``, drawn without replacement."""
    size = max(1, min(n_papers, round(share * n_papers)))
    return np.sort(np.random.default_rng(seed).choice(n_papers, size=size, replace=False))


def restricted_graph(
    indices: np.ndarray, distances: np.ndarray, rows: np.ndarray, n_neighbors: int
) -> tuple[np.ndarray, np.ndarray]:
    """The neighbour graph of the papers ``rows`` only: each one's first ``n_neighbors``
    neighbours among them, renumbered, nearest first. A paper with fewer of its neighbours in the
    subsample gets index -1 for the missing ones (UMAP's mark of a neighbour it skips) at its
    farthest kept neighbour's distance, which keeps UMAP's bandwidth search finite.
    """
    renumbered = np.full(len(indices), -1, dtype=np.int64)
    renumbered[rows] = np.arange(len(rows))
    mapped = renumbered[indices[rows]]
    kept = mapped >= 0
    # Kept neighbours first, each row's order otherwise as searched (nearest first).
    order = np.argsort(~kept, axis=1, kind="stable")[:, :n_neighbors]
    mapped = np.take_along_axis(mapped, order, axis=1)
    near = np.take_along_axis(distances[rows], order, axis=1).astype(np.float32)
    missing = mapped < 0
    if missing.any():
        farthest = np.where(missing, -np.inf, near).max(axis=1, keepdims=True)
        near = np.where(missing, np.broadcast_to(farthest, near.shape), near)
    if mapped.shape[1] < n_neighbors:
        padding = n_neighbors - mapped.shape[1]
        mapped = np.hstack([mapped, np.full((len(rows), padding), -1, dtype=np.int64)])
        near = np.hstack([near, np.repeat(near[:, -1:], padding, axis=1)])
    return mapped, near


def replicate_topics(
    embeddings: np.ndarray,
    texts: list[str],
    graph: tuple[np.ndarray, np.ndarray] | None,
    projection: Projection,
    hdbscan: dict,
    share: float,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """One replicate: the subsample's rows, each one's topic (-1: an outlier no topic is near),
    whether HDBSCAN left it an outlier (moved to a topic since, as the main run's are; the trend
    tests count clustered papers) and the settings used.

    Args:
        embeddings: every paper's embedding, one row each.
        texts: every paper's text (for ``projection``'s word vectors).
        graph: the main run's neighbour graph of every paper (indices, distances), or None where
            it searched none (a projection fitted on a sample, a small corpus): searched afresh.
        projection: the main run's cluster-space knobs; its seed is replaced by ``seed``.
        hdbscan: ``cluster_points``' knobs (min_cluster_size, min_samples, ...).
        share: the share of the papers drawn.
        seed: the replicate's seed (``replicate_seed``).
    """
    rows = subsample(len(embeddings), share, seed)
    sample = embeddings[rows]
    seeded = Projection(**{**projection.__dict__, "random_state": seed})
    neighbours = None
    if graph is not None and graph[0].size:
        neighbours = restricted_graph(*graph, rows, resolve_n_neighbors(projection.n_neighbors, len(rows)))
    space, umap_used = reduce_embeddings(sample, [texts[row] for row in rows], seeded, neighbours=neighbours)
    labels, cluster_used = cluster_runs([space], None, **hdbscan)
    return (
        rows,
        assign_outliers(sample, labels),
        labels == OUTLIER,
        {"umap": umap_used, "hdbscan": cluster_used},
    )
