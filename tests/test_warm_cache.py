"""make's warm step (python -m papertopics.runtime.warm): after it, a job's UMAP projections compile nothing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO

# A fresh process projecting 120 papers from the stages' own functions, as the reduce and
# map_layout jobs do; it prints numba's cache hits and misses over UMAP's kernels.
PROJECTION = """
import numpy as np
import umap.umap_, umap.layouts, umap.spectral, umap.utils, umap.distances, umap.sparse
from numba.core.registry import CPUDispatcher
from papertopics.mapping.reduce import Projection, cache_umap_kernels, neighbour_graph, reduce_embeddings
from papertopics.runtime.warm import _umap_settings

modules = (umap.umap_, umap.layouts, umap.spectral, umap.utils, umap.distances, umap.sparse)
kernels = [k for m in modules for k in vars(m).values() if isinstance(k, CPUDispatcher)]
def counts(kind):
    return sum(sum(getattr(k.stats, kind).values()) for k in kernels)
cache_umap_kernels()
# A few kernels declare their signature and compile when umap is imported: not the projection's.
at_import = counts("cache_misses")
umap = _umap_settings("config.yaml")
vectors = np.random.default_rng(7).normal(size=(120, 40)).astype(np.float32)
vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
keys = ("n_neighbors", "metric", "random_state", "word_weight", "word_dimensions", "fit_sample_size")
graph = neighbour_graph(vectors, None, **{key: umap[key] for key in keys}, exact_neighbours_up_to=25000)
for components, min_dist in ((umap["n_components"], umap["min_dist"]), (2, 0.1)):
    projection = Projection(n_neighbors=umap["n_neighbors"], n_components=components, min_dist=min_dist,
                            metric=umap["metric"], random_state=umap["random_state"], word_weight=0.0,
                            word_dimensions=100, exact_neighbours_up_to=25000)
    reduce_embeddings(vectors, None, projection, neighbours=graph)
print(counts("cache_hits"), counts("cache_misses") - at_import)
"""


def _python(code: list[str], numba_cache) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO / "workflow"), "NUMBA_CACHE_DIR": str(numba_cache)}
    result = subprocess.run(
        [sys.executable, *code], cwd=REPO, env=env, capture_output=True, text=True, timeout=1200
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


@pytest.mark.slow
def test_after_the_warm_step_a_projection_loads_every_umap_kernel_from_the_cache(tmp_path):
    assert "compiled into numba's cache" in _python(["-m", "papertopics.runtime.warm"], tmp_path / "warmed")
    # Loaded from the cache (hits), none compiled: a kernel the warm step missed is a miss here.
    hits, misses = (int(count) for count in _python(["-c", PROJECTION], tmp_path / "warmed").split()[-2:])
    assert misses == 0 and hits > 0, (hits, misses)
