"""Ways to make the 5-d cluster space at scale: a sampled fit plus ``transform`` against a full fit
from NN-descent's neighbours, with another seed, and reusing another fit's neighbours; each path in
a fresh process, on the scale run's embeddings (``python -m bench.scale`` first). Then how well
each keeps the papers' nearest neighbours and how far HDBSCAN's topics agree across paths (ARI).
Updates the reduce_paths part of results.json and rewrites results.md.

    PYTHONPATH=workflow python -m bench.reduce_paths --size 100000
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from pathlib import Path

from bench import results
from bench.common import default_config, in_fresh_process, output_arguments
from bench.neighbours import scale_embeddings, scale_run_embeddings

# The reduce-stage paths compared at scale: (name, method, UMAP seed, whose neighbours it reuses).
# numba keeps UMAP's and NN-descent's compiled kernels on disk: the first path to need a kernel
# compiles it, hence the sampled path measured again at the end.
REDUCE_PATHS = (
    ("sampled 25,000 + transform", "sampled:25000", 42, None),
    ("full fit, NN-descent", "nn-descent", 42, None),
    ("full fit, NN-descent, seed 7, own neighbours", "nn-descent", 7, None),
    ("full fit, seed 7, seed 42's neighbours", "nn-descent", 7, "full fit, NN-descent"),
    ("sampled 25,000 + transform, again (kernels compiled)", "sampled:25000", 42, None),
    ("sampled 50,000 + transform", "sampled:50000", 42, None),
)
# Of each query paper, this many nearest neighbours are compared (by cosine, and in the 5-d space).
QUERY_NEIGHBOURS = 15


def projected(method: str, size: int, seed: int, embeddings: str, neighbours: str | None, out: str) -> dict:
    """The 5-d space of the first ``size`` papers by ``method`` (``sampled:N``: UMAP fitted on N
    papers, the rest transformed; ``nn-descent``: a full fit from NN-descent's neighbours, saved
    beside ``out``, or from those in ``neighbours``), saved to ``out``; seconds per phase.
    """
    import numpy as np
    from papertopics.mapping.reduce import approximate_neighbours, umap_project
    from papertopics.mapping.sizing import resolve_n_neighbors

    vectors = scale_embeddings(embeddings, size)
    k = resolve_n_neighbors("auto", len(vectors))
    phases = {}

    class SampledFitPhases(logging.Handler):  # the sampled fit's own split: fit, transform of the rest
        def emit(self, record):
            if record.msg.startswith("UMAP fitted on"):
                phases["fit"], phases["transform"] = record.args[1], record.args[3]

    logger = logging.getLogger("papertopics.mapping.reduce")
    logger.addHandler(SampledFitPhases())
    logger.setLevel(logging.INFO)
    start = time.perf_counter()
    if method.startswith("sampled:"):
        sample = int(method.split(":")[1])
        coordinates = umap_project(vectors, 5, k, 0.0, "cosine", seed, fit_sample_size=sample)
    else:
        if neighbours:
            stored = np.load(neighbours)
            graph = (stored["indices"], stored["distances"])
        else:
            graph = approximate_neighbours(vectors, k, "cosine", seed)
            np.savez(out + ".neighbours.npz", indices=graph[0], distances=graph[1])
        phases["neighbours"] = time.perf_counter() - start
        layout = time.perf_counter()
        coordinates = umap_project(
            vectors, 5, k, 0.0, "cosine", seed, neighbours=(graph[0].copy(), graph[1].copy())
        )
        phases["layout"] = time.perf_counter() - layout
    phases["total"] = time.perf_counter() - start
    np.save(out, coordinates)
    return {"papers": len(vectors), "n_neighbors": k, "phases": phases}


def scored(size: int, embeddings: str, queries: int, hdbscan: dict, outputs: list[str]) -> dict:
    """Per path's output: the share of ``queries`` seeded papers' nearest neighbours by cosine that
    are among their nearest in its space, its HDBSCAN topics, and their ARI to every other path's
    (outliers joined to topics, as the topics stage does).
    """
    import numpy as np
    from papertopics.mapping.cluster import assign_outliers, cluster_points
    from sklearn.metrics import adjusted_rand_score

    vectors = scale_embeddings(embeddings, size)
    units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    chosen = np.random.default_rng(0).choice(len(units), size=queries, replace=False)
    k = QUERY_NEIGHBOURS

    def nearest(similar):  # each query's k most similar papers, itself left out, 200 queries at a time
        found = []
        for start in range(0, len(chosen), 200):
            block = chosen[start : start + 200]
            similarity = similar(block)
            similarity[np.arange(len(block)), block] = -np.inf
            found.append(np.argpartition(-similarity, k, axis=1)[:, :k])
        return np.vstack(found)

    truth = nearest(lambda block: units[block] @ units.T)
    scores, partitions = {}, {}
    for path in outputs:
        points = np.load(path).astype(np.float64)
        norms = (points**2).sum(axis=1)
        found = nearest(lambda block, p=points, n=norms: 2 * p[block] @ p.T - n[block][:, None] - n[None, :])
        preserved = np.mean([len(set(a) & set(b)) / k for a, b in zip(truth, found, strict=True)])
        labels, _ = cluster_points(points, **hdbscan)
        partitions[path] = assign_outliers(vectors, labels)
        scores[path] = {
            "neighbours_preserved": float(preserved),
            "topics": int(len(set(labels.tolist()) - {-1})),
            "outlier_share": float((labels == -1).mean()),
        }
    for path in outputs:
        scores[path]["ari"] = {
            other: float(adjusted_rand_score(partitions[path], partitions[other])) for other in outputs
        }
    return scores


def bench_reduce_paths(
    size: int, scratch: Path, embeddings: Path, queries: int, only: list[str] | None, results_folder: Path
) -> dict:
    """Ways to make the 5-d cluster space of ``size`` papers (the scale run's embeddings), each in
    a fresh process, one after the other: seconds per phase and peak RSS; then how well each keeps
    the papers' nearest neighbours (exact cosine neighbours of ``queries`` seeded papers, against
    their nearest in the 5-d space) and how far HDBSCAN's topics (outliers joined, as the topics
    stage does) agree across paths and seeds (ARI). ``only``: run these paths, keep the others'
    figures (and outputs, which are scored again) from earlier runs at the same size.
    """
    if not embeddings.is_dir():
        raise SystemExit(
            f"{embeddings} is absent: run `python -m bench.scale` first, this reads its embeddings."
        )
    folder = scratch / f"reduce-paths-{size}"
    folder.mkdir(parents=True, exist_ok=True)
    earlier = results.load(results_folder).get("reduce_paths", {})
    runs = dict(earlier.get("paths", {})) if earlier.get("papers") == size and only else {}
    output = {name: folder / f"{index}.npy" for index, (name, *_) in enumerate(REDUCE_PATHS)}
    for name, method, seed, reuse in REDUCE_PATHS:
        if only and name not in only:
            continue
        run = in_fresh_process(
            projected,
            method=method,
            size=size,
            seed=seed,
            embeddings=str(embeddings),
            neighbours=str(output[reuse]) + ".neighbours.npz" if reuse else None,
            out=str(output[name]),
        )
        runs[name] = {
            "seconds": run["seconds"],
            "cpu_seconds": run["cpu_seconds"],
            "peak_rss_mib": run["peak_rss_mib"],
            "phases": {phase: round(value, 1) for phase, value in run["result"]["phases"].items()},
            "load_average": round(os.getloadavg()[0], 2),
        }
        print(name, runs[name], flush=True)
        so_far = {"papers": size, "queries": queries, "paths": runs}
        results.save(
            lambda stored, figures=so_far: stored.__setitem__("reduce_paths", figures), results_folder
        )
    kept = {name: path for name, path in output.items() if name in runs and path.exists()}
    score = in_fresh_process(
        scored,
        size=size,
        embeddings=str(embeddings),
        queries=queries,
        hdbscan=default_config()["hdbscan"],
        outputs=[str(path) for path in kept.values()],
    )
    by_path = {str(path): name for name, path in kept.items()}
    for path, figures in score["result"].items():
        runs[by_path[path]].update(
            neighbours_preserved=round(figures["neighbours_preserved"], 4),
            topics=figures["topics"],
            outlier_share=round(figures["outlier_share"], 4),
            ari={by_path[other]: round(value, 4) for other, value in figures["ari"].items()},
        )
    return {"papers": size, "queries": queries, "paths": runs, "scoring_seconds": score["seconds"]}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=100000)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--only", nargs="+", help="run only these paths (their names)")
    parser.add_argument(
        "--scale-size", type=int, default=100000, help="the scale run whose embeddings are read"
    )
    output_arguments(parser)
    args = parser.parse_args()
    embeddings = scale_run_embeddings(args.scratch, args.scale_size)
    result = bench_reduce_paths(args.size, args.scratch, embeddings, args.queries, args.only, args.results)
    results.save(lambda stored: stored.__setitem__("reduce_paths", result), args.results)


if __name__ == "__main__":
    main()
