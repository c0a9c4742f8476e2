"""UMAP reduction of the embeddings: a few dimensions for clustering, two for the map."""

from __future__ import annotations

import numpy as np

from papertopics.sizing import resolve_n_neighbors

# Spectral initialisation needs more points than dimensions + 1; below this, use random init.
_SMALL_CORPUS = 8


def principal_components(points: np.ndarray, n_components: int) -> np.ndarray:
    """Deterministic linear projection, used where a corpus is too small for UMAP."""
    centred = points - points.mean(axis=0, keepdims=True)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    projected = centred @ components[:n_components].T
    padding = np.zeros((len(points), n_components - projected.shape[1]), dtype=projected.dtype)
    return np.hstack([projected, padding]).astype(np.float32)


def umap_project(
    embeddings: np.ndarray,
    n_components: int,
    n_neighbors: int,
    min_dist: float,
    metric: str,
    random_state: int,
    fit_sample_size: int | None = None,
) -> np.ndarray:
    """UMAP coordinates; above ``fit_sample_size`` papers, fitted on a seeded sample of that size
    with the rest placed by ``transform`` (memory and time then grow with the sample, not the corpus)."""
    n_papers = len(embeddings)
    if n_papers < n_components + 2:
        return principal_components(embeddings, n_components)
    from umap import UMAP

    reducer = UMAP(
        n_components=n_components,
        n_neighbors=n_neighbors,
        min_dist=min_dist,
        metric=metric,
        random_state=random_state,
        init="random" if n_papers <= _SMALL_CORPUS else "spectral",
    )
    if fit_sample_size is None or n_papers <= fit_sample_size:
        return reducer.fit_transform(embeddings).astype(np.float32)
    fitted = np.zeros(n_papers, dtype=bool)
    fitted[np.random.default_rng(random_state).choice(n_papers, size=fit_sample_size, replace=False)] = True
    coordinates = np.zeros((n_papers, n_components), dtype=np.float32)
    coordinates[fitted] = reducer.fit_transform(embeddings[fitted])
    coordinates[~fitted] = reducer.transform(embeddings[~fitted])
    return coordinates


def reduce_embeddings(
    embeddings: np.ndarray,
    n_neighbors: int | str,
    n_components: int,
    min_dist: float,
    metric: str,
    random_state: int,
    fit_sample_size: int | None = None,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Return (cluster-space vectors, 2-d map coordinates, the settings actually used)."""
    resolved = resolve_n_neighbors(n_neighbors, len(embeddings))
    shared = dict(n_neighbors=resolved, metric=metric, random_state=random_state, fit_sample_size=fit_sample_size)
    cluster_space = umap_project(embeddings, n_components, min_dist=min_dist, **shared)
    map_2d = umap_project(embeddings, 2, min_dist=max(min_dist, 0.1), **shared)
    settings = {
        "n_papers": len(embeddings),
        "n_neighbors": resolved,
        "n_neighbors_setting": n_neighbors,
        "n_components": n_components,
        "min_dist": min_dist,
        "metric": metric,
        "random_state": random_state,
        "fit_sample_size": fit_sample_size,
        "fitted_on_sample": fit_sample_size is not None and len(embeddings) > fit_sample_size,
    }
    return cluster_space, map_2d, settings
