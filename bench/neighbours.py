"""Nearest neighbours: exact (blocked products) against UMAP's NN-descent, on the scale run's
embeddings (``python -m bench.scale`` first). Each search in a fresh process: seconds, peak RSS,
NN-descent's recall against the exact neighbours. Updates the neighbours part of results.json and
rewrites results.md.

    PYTHONPATH=workflow python -m bench.neighbours --sizes 25000 50000 100000
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench import results
from bench.common import in_fresh_process, output_arguments


def scale_embeddings(embeddings: str, size: int):
    """The first ``size`` embeddings of a run's results/embeddings folder, dumps in name order."""
    import numpy as np
    from papertopics import storage

    paths = sorted(Path(embeddings).glob("*.npz"))
    return np.vstack([storage.read_arrays(path)["vectors"] for path in paths])[:size]


def searched(method: str, size: int, embeddings: str, exact: str) -> dict:
    """The neighbours of the first ``size`` papers by ``method`` (``exact`` saves them to
    ``exact``; ``nn-descent``, UMAP's own search, seeded, is scored against them).
    """
    import numpy as np
    from papertopics.mapping.reduce import exact_neighbours
    from papertopics.mapping.sizing import resolve_n_neighbors

    vectors = scale_embeddings(embeddings, size)
    k = resolve_n_neighbors("auto", len(vectors))
    start = time.perf_counter()
    if method == "exact":
        indices, _ = exact_neighbours(vectors, k, "cosine")
    else:  # what UMAP runs without precomputed neighbours: NN-descent, seeded
        from umap.umap_ import nearest_neighbors

        indices, _, _ = nearest_neighbors(
            vectors, k, "cosine", {}, False, np.random.RandomState(42), n_jobs=1
        )
    seconds = time.perf_counter() - start
    if method == "exact":
        np.save(exact, indices)
        recall = 1.0
    else:
        truth = np.load(exact)
        recall = float(np.mean([len(set(a) & set(b)) / k for a, b in zip(indices, truth, strict=True)]))
    return {"papers": len(vectors), "n_neighbors": k, "seconds": seconds, "recall": recall}


def bench_neighbours(sizes: list[int], scratch: Path, embeddings: Path) -> dict:
    """Exact neighbours (blocked products) against UMAP's NN-descent on the scale run's embeddings."""
    if not embeddings.is_dir():
        raise SystemExit(
            f"{embeddings} is absent: run `python -m bench.scale` first, this reads its embeddings."
        )
    scratch.mkdir(parents=True, exist_ok=True)
    result = {}
    for size in sizes:
        exact = str(scratch / f"neighbours-{size}.npy")
        runs = {
            method: in_fresh_process(
                searched, method=method, size=size, embeddings=str(embeddings), exact=exact
            )
            for method in ("exact", "nn-descent")
        }
        result[str(size)] = {
            method: {
                "seconds_in_process": round(run["result"]["seconds"], 1),
                "wall_seconds": run["seconds"],
                "peak_rss_mib": run["peak_rss_mib"],
                "recall": round(run["result"]["recall"], 4),
            }
            for method, run in runs.items()
        }
    return result


def scale_run_embeddings(scratch: Path, size: int = 100000) -> Path:
    """Where ``python -m bench.scale --size SIZE`` left its run's embeddings."""
    return scratch / f"scale-{size}" / "results" / "embeddings"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[25000, 50000, 100000])
    parser.add_argument(
        "--scale-size", type=int, default=100000, help="the scale run whose embeddings are read"
    )
    output_arguments(parser)
    args = parser.parse_args()
    embeddings = scale_run_embeddings(args.scratch, args.scale_size)
    result = bench_neighbours(args.sizes, args.scratch, embeddings)
    results.save(lambda stored: stored.__setitem__("neighbours", result), args.results)


if __name__ == "__main__":
    main()
