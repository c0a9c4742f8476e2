"""HDBSCAN clustering of the reduced vectors; outliers are labelled -1 (``OUTLIER``), and may be
moved to the cluster whose centroid is nearest (``assign_outliers``).
"""

from __future__ import annotations

import numpy as np

from papertopics.mapping.sizing import (
    resolve_max_cluster_size,
    resolve_min_cluster_size,
    resolve_selection_method,
)

# HDBSCAN's label of a point in no cluster, kept for the papers no topic holds.
OUTLIER = -1
# Below this many papers, density clustering finds nothing meaningful: one topic holds them all.
MIN_PAPERS_TO_CLUSTER = 10


def cluster_points(
    points: np.ndarray,
    min_cluster_size: int | str,
    min_samples: int | None,
    cluster_selection_method: str,
    max_cluster_share: float = 0.0,
    models: list | None = None,
) -> tuple[np.ndarray, dict]:
    """HDBSCAN's label per point, and the settings actually used (with a note when skipped).

    Args:
        points: the cluster space, one row per paper.
        min_cluster_size: the smallest topic, or ``auto`` (``resolve_min_cluster_size``).
        min_samples: HDBSCAN's ``min_samples`` (None: equal to ``min_cluster_size``).
        cluster_selection_method: ``eom``, ``leaf`` or ``auto`` (``resolve_selection_method``).
        max_cluster_share: no topic may hold more of the corpus than this (0: no limit). With
            ``eom``, HDBSCAN otherwise can keep one cluster of half a large corpus, and which way
            it goes flips with tiny changes to the embeddings; above the limit it takes that
            cluster's children instead.
        models: where given, the fitted HDBSCAN (with its prediction data, for
            ``approximate_predict``) is appended to it, None where none ran.

    Returns:
        A label per point (``OUTLIER`` for noise; all 0 when the papers are too few to split) and
        the settings.
    """
    n_papers = len(points)
    resolved = resolve_min_cluster_size(min_cluster_size, n_papers)
    max_cluster_size = resolve_max_cluster_size(max_cluster_share, n_papers, resolved)
    method = resolve_selection_method(cluster_selection_method, n_papers)
    settings = {
        "n_papers": n_papers,
        "min_cluster_size": resolved,
        "min_cluster_size_setting": min_cluster_size,
        "min_samples": min_samples,
        "cluster_selection_method": method,
        "cluster_selection_method_setting": cluster_selection_method,
        "max_cluster_share": max_cluster_share,
        "max_cluster_size": max_cluster_size,
        "note": None,
    }
    if n_papers < max(2 * resolved, MIN_PAPERS_TO_CLUSTER):
        settings["note"] = (
            f"{n_papers} abstracts are too few to split into topics of at least "
            f"{resolved}; all of them form one topic."
        )
        if models is not None:
            models.append(None)
        return np.zeros(n_papers, dtype=np.int64), settings
    # HDBSCAN loads only in the jobs that cluster.
    from hdbscan import HDBSCAN

    def fit(method: str, largest: int):
        clusterer = HDBSCAN(
            min_cluster_size=resolved,
            min_samples=min_samples,
            cluster_selection_method=method,
            max_cluster_size=largest,
            prediction_data=models is not None,
        )
        return clusterer, clusterer.fit_predict(points).astype(np.int64)

    clusterer, labels = fit(method, max_cluster_size)
    if max_cluster_size and (labels == OUTLIER).all():
        # Where every dense region is bigger than the limit and none splits into parts of at least
        # the smallest topic's size, HDBSCAN selects no cluster at all: 250 real papers in fp32
        # gave 0 topics where bf16 vectors gave 5. The finest clusters HDBSCAN has (its leaves)
        # are then the nearest to what the limit asks: on those papers, 4 topics (no limit: 2).
        settings["note"] = (
            f"No topic of {resolved} to {max_cluster_size} papers stood apart under the limit of "
            f"{max_cluster_share:.0%} of the corpus per topic; HDBSCAN's finest clusters were kept instead."
        )
        settings.update(cluster_selection_method="leaf", max_cluster_size=0)
        clusterer, labels = fit("leaf", 0)
    if models is not None:
        models.append(clusterer)
    return labels, settings


def topic_centroids(embeddings: np.ndarray, topics: np.ndarray, topic_ids) -> np.ndarray:
    """Unit-length mean embedding of each topic in ``topic_ids``, one row each, in that order."""
    return unit_rows(np.vstack([embeddings[topics == topic].mean(axis=0) for topic in topic_ids]))


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to unit length (a row of zeros left as it is): cosines are then products."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def assign_outliers(embeddings: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each outlier (-1) moved to the topic whose centroid is most cosine-similar to it.

    This is BERTopic's ``reduce_outliers(strategy="embeddings")`` (centroid topic embeddings,
    threshold 0: a paper similar to no topic stays an outlier), done before the fit instead of
    after it, so that c-TF-IDF and the keywords are computed once rather than twice.
    """
    labels = np.asarray(labels)
    outliers = np.flatnonzero(labels == OUTLIER)
    topics = np.unique(labels[labels != OUTLIER])
    if not len(outliers) or not len(topics):
        return labels.copy()
    # Products with unit centroids: each row is its cosine similarities times the paper's norm,
    # so the best topic and the sign (similar to none) are the cosine's.
    similarity = embeddings[outliers] @ topic_centroids(embeddings, labels, topics).T
    assigned = labels.copy()
    assigned[outliers] = np.where(similarity.max(axis=1) > 0, topics[similarity.argmax(axis=1)], OUTLIER)
    return assigned
