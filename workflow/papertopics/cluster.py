"""HDBSCAN clustering of the reduced vectors; outliers are labelled -1."""

from __future__ import annotations

import numpy as np

from papertopics.sizing import resolve_min_cluster_size


def cluster_points(
    points: np.ndarray,
    min_cluster_size: int | str,
    min_samples: int | None,
    cluster_selection_method: str,
) -> tuple[np.ndarray, dict]:
    """Return a label per point and the settings actually used (with a note when skipped)."""
    n_papers = len(points)
    resolved = resolve_min_cluster_size(min_cluster_size, n_papers)
    settings = {
        "n_papers": n_papers,
        "min_cluster_size": resolved,
        "min_cluster_size_setting": min_cluster_size,
        "min_samples": min_samples,
        "cluster_selection_method": cluster_selection_method,
        "note": None,
    }
    if n_papers < 2 * resolved or n_papers < 3:
        settings["note"] = (
            f"{n_papers} abstracts are too few to split into topics of at least "
            f"{resolved}; all of them form one topic."
        )
        return np.zeros(n_papers, dtype=np.int64), settings
    from hdbscan import HDBSCAN

    clusterer = HDBSCAN(
        min_cluster_size=resolved,
        min_samples=min_samples,
        cluster_selection_method=cluster_selection_method,
    )
    labels = clusterer.fit_predict(points).astype(np.int64)
    if (labels == -1).all():
        # A small corpus often has no dense region at all; one topic with a note beats none.
        settings["note"] = (
            f"HDBSCAN found no topic among {n_papers} abstracts (min_cluster_size {resolved}); all of them "
            "form one topic. For several topics, add abstracts or lower hdbscan.min_cluster_size."
        )
        return np.zeros(n_papers, dtype=np.int64), settings
    return labels, settings
