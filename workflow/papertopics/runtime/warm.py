"""Compile UMAP's numba kernels once per environment, before any job needs them.

umap-learn's kernels are compiled on first use; ``papertopics.mapping.reduce.cache_umap_kernels`` keeps
them in numba's on-disk cache, so only the first process to run a projection pays (about a minute
on two cores), but on a first run the reduce and consensus_run jobs start side by side and each
compiled them. ``make``'s set-up runs this module once after installing the environment: a tiny fit
through the reduce stage's own functions and settings (config.yaml's umap section), on each path
a job may take (the exact neighbour graph, the cluster space, the 2-d map, and a fit on a sample
placing the rest by ``transform``), so the jobs load compiled kernels. Not NN-descent's graph
(above umap.exact_neighbours_up_to papers): pynndescent's kernels are compiled in the neighbours
job whatever was warmed, as they are not kept in numba's cache.

Run as ``python -m papertopics.runtime.warm [config.yaml]``; it prints what it did and how long it took.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from papertopics.mapping.reduce import MAP_MIN_DIST, Projection, neighbour_graph, reduce_embeddings
from papertopics.settings import ClusterSpaceSettings, MapSettings, NeighbourSettings, umap_knobs

# Enough papers for UMAP's spectral initialisation and a sample below them; few enough to take
# no time but the compilation.
_PAPERS = 80
_SAMPLE = 60
_DIMENSIONS = 24
_SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "config.schema.yaml"


def _umap_settings(config_path: str | Path) -> dict:
    """The umap settings the jobs project with: config.yaml's, else the schema's defaults."""
    # The config's libraries load only where a file is checked.
    import yaml

    schema = yaml.safe_load(_SCHEMA.read_text(encoding="utf-8"))["properties"]["umap"]["properties"]
    path = Path(config_path)
    given = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("umap", {}) if path.is_file() else {}
    return {name: given.get(name, entry.get("default")) for name, entry in schema.items()}


def warm_numba_cache(config_path: str | Path = "config.yaml") -> float:
    """Run every UMAP path the reduce, consensus_run and map_layout jobs take on a tiny corpus,
    so that numba's cache holds their kernels; returns the seconds it took.
    """
    start = time.perf_counter()
    umap = _umap_settings(config_path)
    vectors = np.random.default_rng(0).normal(size=(_PAPERS, _DIMENSIONS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    texts = [f"paper {index}" for index in range(_PAPERS)]
    # The graph as the neighbours job builds it from these settings, exact at this size.
    graph = neighbour_graph(
        vectors,
        texts,
        **(umap_knobs(NeighbourSettings, umap) | {"exact_neighbours_up_to": _PAPERS}),
    )
    for projection in (ClusterSpaceSettings, MapSettings):
        settings = umap_knobs(projection, umap)
        settings["exact_neighbours_up_to"] = _PAPERS
        if projection is MapSettings:
            settings.update(n_components=2, min_dist=max(settings["min_dist"], MAP_MIN_DIST))
        reduce_embeddings(vectors, texts, Projection(**settings), neighbours=graph)
    # A fit on a sample, the rest placed by transform (corpora above umap.fit_sample_size).
    settings = umap_knobs(ClusterSpaceSettings, umap)
    settings["fit_sample_size"] = _SAMPLE
    reduce_embeddings(vectors, texts, Projection(**settings))
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    """Warm the cache for the settings of the config file given (config.yaml by default)."""
    arguments = sys.argv[1:] if argv is None else argv
    seconds = warm_numba_cache(arguments[0] if arguments else "config.yaml")
    print(f"UMAP's numba kernels compiled into numba's cache in {seconds:.1f} s (once per environment)")


if __name__ == "__main__":
    main()
