"""UMAP reduction of the embeddings: a few dimensions for clustering, two for the map."""

from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass

import numpy as np

from papertopics.mapping.cluster import unit_rows
from papertopics.mapping.sizing import resolve_n_neighbors

# Spectral initialisation needs more points than dimensions + 1; below this, use random init.
_SMALL_CORPUS = 8
# The map spreads papers apart a little (UMAP's min_dist) so that overlapping points stay visible.
MAP_MIN_DIST = 0.1
# Rows of the similarity matrix computed at once in exact_neighbours (memory: rows x papers floats),
# fewer where rows x papers would pass _NEIGHBOUR_BLOCK_VALUES (above 32,768 papers: the similar
# papers of 100,000 are searched exactly).
_NEIGHBOUR_BLOCK = 1024
_NEIGHBOUR_BLOCK_VALUES = 1 << 25
# Metrics for which UMAP's NN-descent builds its random-projection trees by angle, as UMAP does.
_ANGULAR_METRICS = ("cosine", "correlation")

# NN-descent's own seed, fixed: its graph is then a function of the papers, as the exact graph is.
# Seeded by umap.random_state instead, the graph's errors moved with the seed, and the consensus
# topics agreed less across seeds (bench/results.md, "Consensus runs").
NEIGHBOUR_SEARCH_SEED = 0

_LOG = logging.getLogger(__name__)


def principal_components(points: np.ndarray, n_components: int) -> np.ndarray:
    """Deterministic linear projection, used where a corpus is too small for UMAP."""
    centred = points - points.mean(axis=0, keepdims=True)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    projected = centred @ components[:n_components].T
    padding = np.zeros((len(points), n_components - projected.shape[1]), dtype=projected.dtype)
    return np.hstack([projected, padding]).astype(np.float32)


def exact_neighbours(vectors: np.ndarray, n_neighbors: int, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """Each point's ``n_neighbors`` nearest points (itself included), as UMAP's ``precomputed_knn``.

    Brute force is a few matrix products up to tens of thousands of papers, and exact; UMAP's
    approximate search (NN-descent) compiles its kernels in every fresh process first.
    Cosine, the default, is a product of unit vectors taken a block of rows at a time (faster
    than scikit-learn's general brute-force search); other metrics go to scikit-learn.
    """
    if metric != "cosine":
        # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
        from sklearn.neighbors import NearestNeighbors

        search = NearestNeighbors(n_neighbors=n_neighbors, metric=metric, algorithm="brute").fit(vectors)
        distances, indices = search.kneighbors(vectors)
        return indices, distances.astype(np.float32)
    units = unit_rows(vectors).astype(np.float32)
    indices = np.empty((len(units), n_neighbors), dtype=np.int64)
    distances = np.empty((len(units), n_neighbors), dtype=np.float32)
    block_rows = max(1, min(_NEIGHBOUR_BLOCK, _NEIGHBOUR_BLOCK_VALUES // max(len(units), 1)))
    for start in range(0, len(units), block_rows):
        block = slice(start, start + block_rows)
        similarity = units[block] @ units.T
        rows = np.arange(similarity.shape[0])
        similarity[rows, rows + start] = np.inf  # a paper is its own nearest neighbour, even among duplicates
        indices[block] = most_similar(similarity, n_neighbors)
        distances[block] = np.clip(1.0 - np.take_along_axis(similarity, indices[block], axis=1), 0.0, 2.0)
    return indices, distances


def most_similar(similarity: np.ndarray, count: int) -> np.ndarray:
    """Each row's ``count`` largest columns, largest first, ties by column. Each of ``count`` runs
    of a row holds a value at least the least run maximum, so only values not below it (dozens) are
    sorted: argpartition over whole rows was most of the exact search (1 s per 1,000 of 20,000 rows).
    """
    rows, columns = similarity.shape
    run = columns // count
    run_maxima = similarity[:, : count * run].reshape(rows, count, run).max(axis=2)
    row, column = np.nonzero(similarity >= run_maxima.min(axis=1)[:, None])
    order = np.lexsort((column, -similarity[row, column], row))
    row, column = row[order], column[order]
    first = np.searchsorted(row, np.arange(rows))
    return column[first[:, None] + np.arange(count)]


def approximate_neighbours(
    vectors: np.ndarray, n_neighbors: int, metric: str, seed: int = NEIGHBOUR_SEARCH_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """Each point's ``n_neighbors`` nearest points by UMAP's own search (NN-descent, seeded, one
    thread, as a seeded UMAP fit runs it), as UMAP's ``precomputed_knn``: n log n, where the
    exact search grows as n^2.
    """
    # UMAP and numba load only in the jobs that project.
    from umap.umap_ import nearest_neighbors

    cache_umap_kernels()
    indices, distances, _ = nearest_neighbors(
        vectors,
        n_neighbors,
        metric,
        {},
        metric in _ANGULAR_METRICS,
        np.random.RandomState(seed),
        low_memory=True,
        use_pynndescent=True,
        n_jobs=1,
    )
    return indices, distances.astype(np.float32)


def paper_neighbours(
    vectors: np.ndarray, n_neighbors: int, metric: str, exact_neighbours_up_to: int
) -> tuple[np.ndarray, np.ndarray]:
    """The neighbour graph every UMAP projection of the papers starts from: exact up to
    ``exact_neighbours_up_to`` papers, NN-descent above. Either is a function of the papers
    alone, not of umap.random_state, so that only the layouts move with the seed (see
    NEIGHBOUR_SEARCH_SEED).
    """
    if neighbour_search(len(vectors), exact_neighbours_up_to) == "exact":
        return exact_neighbours(vectors, n_neighbors, metric)
    return approximate_neighbours(vectors, n_neighbors, metric)


def neighbour_search(n_papers: int, exact_neighbours_up_to: int) -> str:
    """How ``paper_neighbours`` searches ``n_papers``: ``exact`` or ``nn-descent``."""
    return "exact" if n_papers <= exact_neighbours_up_to else "nn-descent"


def cache_umap_kernels() -> None:
    """Keep UMAP's compiled numba kernels on disk, so that later processes load them.

    umap-learn compiles them afresh in every process (most are not declared ``cache=True``):
    5-10 s per reduce or map job. numba's own cache (beside the library, or in the user's cache
    folder where that is read-only) is keyed by the source files, so an upgrade recompiles.
    """
    # UMAP and numba load only in the jobs that project.
    import umap.distances
    import umap.layouts
    import umap.sparse
    import umap.spectral
    import umap.umap_
    import umap.utils
    from numba.core.caching import NullCache
    from numba.core.registry import CPUDispatcher

    kernels = [
        kernel
        for module in (umap.umap_, umap.layouts, umap.spectral, umap.utils, umap.distances, umap.sparse)
        for kernel in vars(module).values()
        if isinstance(kernel, CPUDispatcher)
    ]
    # numba names a cache entry by the Python function and its signature only, so of variants of
    # one function compiled with other options only one may be cached: the serial one, which a
    # seeded UMAP runs (the others load each other's code otherwise).
    cached_functions = {id(kernel.py_func) for kernel in kernels if not isinstance(kernel._cache, NullCache)}
    for kernel in sorted(kernels, key=lambda kernel: bool(kernel.targetoptions.get("parallel"))):
        if id(kernel.py_func) in cached_functions:
            continue
        try:
            kernel.enable_caching()
        except RuntimeError:  # no writable cache folder: compile in memory (numba's default)
            return
        cached_functions.add(id(kernel.py_func))


def fitted_rows(n_papers: int, fit_sample_size: int | None, random_state: int) -> np.ndarray:
    """Which of ``n_papers`` a UMAP fit of ``umap_project`` is fitted on (the others it
    ``transform``s): all, or a seeded sample of ``fit_sample_size`` above that many.
    """
    if fit_sample_size is None or n_papers <= fit_sample_size:
        return np.ones(n_papers, dtype=bool)
    fitted = np.zeros(n_papers, dtype=bool)
    fitted[np.random.default_rng(random_state).choice(n_papers, size=fit_sample_size, replace=False)] = True
    return fitted


def umap_project(
    embeddings: np.ndarray,
    n_components: int,
    n_neighbors: int,
    min_dist: float,
    metric: str,
    random_state: int,
    fit_sample_size: int | None = None,
    neighbours: tuple[np.ndarray, np.ndarray] | None = None,
    n_epochs: int | None = None,
    models: list | None = None,
) -> np.ndarray:
    """UMAP coordinates of the rows of ``embeddings`` (principal components below UMAP's minimum).

    Args:
        embeddings: the vectors to project, one row per paper.
        n_components: the dimensions of the result.
        n_neighbors: UMAP's neighbourhood size (already resolved).
        min_dist: UMAP's minimum distance between points.
        metric: the distance between vectors.
        random_state: the seed of the fit and of the sample.
        fit_sample_size: above this many papers, fit on a seeded sample of this size and place the
            rest with ``transform``, so that memory and time grow with the sample, not the corpus.
        neighbours: the papers' neighbour graph (indices, distances; UMAP marks far neighbours in
            it, in place); None for a sampled fit, whose ``transform`` needs UMAP's own search index.
        n_epochs: UMAP's optimisation epochs; None for UMAP's own choice.
        models: where given, the fitted UMAP is appended to it (None where no UMAP ran), for
            ``update: place`` to ``transform`` later dumps with (``papertopics.mapping.placement``).

    Returns:
        The coordinates, one float32 row per paper.
    """
    n_papers = len(embeddings)
    if n_papers < n_components + 2:
        if models is not None:
            models.append(None)
        return principal_components(embeddings, n_components)
    # UMAP and numba load only in the jobs that project.
    from umap import UMAP

    cache_umap_kernels()
    sampled = fit_sample_size is not None and n_papers > fit_sample_size
    reducer = UMAP(
        n_components=n_components,
        n_neighbors=n_neighbors,
        min_dist=min_dist,
        n_epochs=n_epochs,
        metric=metric,
        random_state=random_state,
        n_jobs=1,  # a seed makes UMAP single-threaded anyway; saying so avoids its warning
        init="random" if n_papers <= _SMALL_CORPUS else "spectral",
        precomputed_knn=(None, None, None) if neighbours is None else neighbours,
    )
    if models is not None:
        models.append(reducer)
    if not sampled:
        with warnings.catch_warnings():
            # UMAP warns that without its search index transform() is unavailable; a whole-corpus fit never transforms.
            warnings.filterwarnings("ignore", message="precomputed_knn", category=UserWarning)
            return reducer.fit_transform(embeddings).astype(np.float32)
    fitted = fitted_rows(n_papers, fit_sample_size, random_state)
    coordinates = np.zeros((n_papers, n_components), dtype=np.float32)
    start = time.perf_counter()
    coordinates[fitted] = reducer.fit_transform(embeddings[fitted])
    fit_seconds = time.perf_counter() - start
    coordinates[~fitted] = reducer.transform(embeddings[~fitted])
    _LOG.info(
        "UMAP fitted on %d sampled papers in %.1f s, the other %d placed by transform in %.1f s",
        fit_sample_size,
        fit_seconds,
        n_papers - fit_sample_size,
        time.perf_counter() - start - fit_seconds,
    )
    return coordinates


def word_vectors(texts: list[str], dimensions: int, random_state: int) -> np.ndarray:
    """L2-normalised latent-semantic vectors of the texts' words (TF-IDF, then truncated SVD).

    Words a corpus shares (method names, task names) are what human labels follow most
    closely; a short embedding model reads them only through its 256-token window and its
    general-purpose training. Words seen in one abstract only are left out as noise.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    min_df = 2 if len(texts) >= 50 else 1
    try:
        counts = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=min_df).fit_transform(texts)
    except ValueError:  # no word survives (e.g. abstracts made of numbers only)
        return np.zeros((len(texts), 0), dtype=np.float32)
    components = min(dimensions, counts.shape[0] - 1, counts.shape[1] - 1)
    if components < 1:
        return np.zeros((len(texts), 0), dtype=np.float32)
    reduced = TruncatedSVD(components, random_state=random_state).fit_transform(counts)
    return normalize(reduced).astype(np.float32)


def hybrid_vectors(
    embeddings: np.ndarray, texts: list[str], word_weight: float, word_dimensions: int, random_state: int
) -> np.ndarray:
    """Embeddings joined with word vectors so that the cosine similarity of two papers is
    ``(1 - word_weight) * embedding similarity + word_weight * word similarity``.
    """
    if word_weight <= 0:
        return embeddings
    words = word_vectors(texts, word_dimensions, random_state)
    if words.shape[1] == 0:
        return embeddings
    return np.hstack([np.sqrt(1 - word_weight) * embeddings, np.sqrt(word_weight) * words]).astype(np.float32)


# The fewest dimensions a projection has (the 2-d map): below this + 2 papers, no UMAP runs.
_FEWEST_COMPONENTS = 2


def starts_from_neighbours(n_papers: int, n_components: int, fit_sample_size: int | None) -> bool:
    """Whether a UMAP projection of ``n_papers`` is fitted on all of them from a neighbour graph:
    not when fitted on a sample (``transform`` needs UMAP's own search index), nor when the corpus
    is too small for UMAP (projected linearly).
    """
    sampled = fit_sample_size is not None and n_papers > fit_sample_size
    return not sampled and n_papers >= n_components + 2


def neighbour_graph(
    embeddings: np.ndarray,
    texts: list[str],
    n_neighbors: int | str,
    metric: str,
    random_state: int,
    word_weight: float,
    word_dimensions: int,
    fit_sample_size: int | None = None,
    *,
    exact_neighbours_up_to: int,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The papers' neighbour graph that every UMAP projection of them (cluster space, map,
    consensus runs) starts from, so that it is searched once; None where no projection uses one.
    """
    if not starts_from_neighbours(len(embeddings), _FEWEST_COMPONENTS, fit_sample_size):
        return None
    vectors = hybrid_vectors(embeddings, texts, word_weight, word_dimensions, random_state)
    resolved = resolve_n_neighbors(n_neighbors, len(embeddings))
    return paper_neighbours(vectors, resolved, metric, exact_neighbours_up_to)


@dataclass(frozen=True)
class Projection:
    """The knobs of one UMAP projection (``papertopics.settings.ClusterSpaceSettings.umap``, or
    ``MapSettings``' with two dimensions).

    Attributes:
        n_neighbors: UMAP's neighbourhood size, or ``auto`` (``resolve_n_neighbors``).
        n_components: the dimensions of the result.
        min_dist: UMAP's minimum distance between points.
        metric: the distance between vectors (``cosine``).
        random_state: the seed; the same seed and input give the same coordinates.
        word_weight: the share of the similarity taken from the texts' word vectors (0: the
            embeddings alone).
        word_dimensions: the dimensions of the word vectors.
        exact_neighbours_up_to: up to this many papers the neighbour graph is exact, above it
            NN-descent's (see ``neighbour_graph``).
        fit_sample_size: above this many papers, UMAP is fitted on a seeded sample of this size
            and the rest placed by ``transform``; None: always fitted on all.
        n_epochs: UMAP's optimisation epochs, or ``auto`` (UMAP's own choice).
    """

    n_neighbors: int | str
    n_components: int
    min_dist: float
    metric: str
    random_state: int
    word_weight: float
    word_dimensions: int
    exact_neighbours_up_to: int
    fit_sample_size: int | None = None
    n_epochs: int | str = "auto"


def reduce_embeddings(
    embeddings: np.ndarray,
    texts: list[str] | None,
    projection: Projection,
    *,
    neighbours: tuple[np.ndarray, np.ndarray] | None = None,
    models: list | None = None,
) -> tuple[np.ndarray, dict]:
    """The papers' UMAP coordinates, and the settings actually used.

    The cluster space and the 2-d map are two calls (two Snakemake jobs, which run side by side:
    a seeded UMAP uses one core).

    Args:
        embeddings: the papers' embeddings, one row per paper.
        texts: the papers' texts, for the word vectors (read only when ``word_weight`` > 0).
        projection: the projection's knobs.
        neighbours: the ``neighbour_graph`` of the same settings, searched once for all
            projections; None: searched here (not used by a sampled fit).
        models: where given, the fitted UMAP is appended to it (see ``umap_project``).

    Returns:
        The coordinates (one row per paper, float32) and the settings, resolved values included.
    """
    resolved = resolve_n_neighbors(projection.n_neighbors, len(embeddings))
    vectors = hybrid_vectors(
        embeddings, texts, projection.word_weight, projection.word_dimensions, projection.random_state
    )
    sampled = projection.fit_sample_size is not None and len(vectors) > projection.fit_sample_size
    graph = None
    if starts_from_neighbours(len(vectors), projection.n_components, projection.fit_sample_size):
        graph = neighbours
        if graph is None:
            graph = paper_neighbours(vectors, resolved, projection.metric, projection.exact_neighbours_up_to)
        if graph[0].shape != (len(vectors), resolved):
            raise ValueError(
                f"the neighbour graph is {graph[0].shape[0]} papers x {graph[0].shape[1]} neighbours, "
                f"not {len(vectors)} x {resolved}: it was searched with other settings."
            )
    coordinates = umap_project(
        vectors,
        projection.n_components,
        n_neighbors=resolved,
        min_dist=projection.min_dist,
        metric=projection.metric,
        random_state=projection.random_state,
        fit_sample_size=projection.fit_sample_size,
        # UMAP marks far neighbours in place; the graph may be shared by several projections.
        neighbours=None if graph is None else (graph[0].copy(), graph[1].copy()),
        n_epochs=None if projection.n_epochs == "auto" else int(projection.n_epochs),
        models=models,
    )
    settings = {
        "n_papers": len(embeddings),
        "n_neighbors": resolved,
        "n_neighbors_setting": projection.n_neighbors,
        "n_components": projection.n_components,
        "min_dist": projection.min_dist,
        "n_epochs": projection.n_epochs,
        "metric": projection.metric,
        "random_state": projection.random_state,
        "word_weight": projection.word_weight,
        "word_dimensions": projection.word_dimensions,
        "fit_sample_size": projection.fit_sample_size,
        "fitted_on_sample": sampled,
        "exact_neighbours_up_to": projection.exact_neighbours_up_to,
        "neighbours": None
        if graph is None
        else neighbour_search(len(vectors), projection.exact_neighbours_up_to),
    }
    return coordinates, settings
