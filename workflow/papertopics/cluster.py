"""HDBSCAN clustering of the reduced vectors; outliers are labelled -1."""

from __future__ import annotations

import numpy as np

from papertopics.sizing import resolve_min_cluster_size

# Below this many papers, density clustering finds nothing meaningful: one topic holds them all.
MIN_PAPERS_TO_CLUSTER = 10


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
    if n_papers < max(2 * resolved, MIN_PAPERS_TO_CLUSTER):
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
    return clusterer.fit_predict(points).astype(np.int64), settings
