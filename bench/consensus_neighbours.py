"""Consensus runs with one shared neighbour graph or one per run, on IJCAI: the seed stability
(mean pairwise ARI over UMAP seeds 42/7/1/2/3, as `make quality` computes it) of the consensus
topics with the exact graph, and with NN-descent's searched per consensus run, per UMAP seed, or
once for all. Each mode in a fresh process. Updates the consensus_neighbours part of results.json
and rewrites results.md.

    PYTHONPATH=workflow python -m bench.consensus_neighbours
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from bench import quality_runs, results
from bench.common import IJCAI, in_fresh_process, output_arguments

EXACT = "exact"
PER_RUN = "NN-descent, a graph per consensus run (seeded by its UMAP seed)"
PER_SEED = "NN-descent, a graph per UMAP seed (seeded by it), shared by its runs"
SHARED = "NN-descent, one graph for every seed (fixed search seed; the default)"
CONSENSUS_MODES = (EXACT, PER_RUN, PER_SEED, SHARED)


def seed_stability(corpus: str, cache_dir: str, mode: str, docs: int | None) -> dict:
    """The consensus topics of the first ``docs`` papers of ``corpus`` for each stability seed,
    their graphs searched as ``mode`` says; their mean pairwise ARI and the seconds spent.
    """
    from papertopics.embed.encoders import embedding_text
    from papertopics.mapping.cluster import assign_outliers
    from papertopics.mapping.consensus import cluster_runs, consensus_seeds, mean_pairwise_ari
    from papertopics.mapping.reduce import (
        Projection,
        approximate_neighbours,
        neighbour_graph,
        reduce_embeddings,
    )
    from papertopics.mapping.sizing import resolve_n_neighbors
    from papertopics.settings import ClusterSpaceSettings, NeighbourSettings, umap_knobs

    config = quality_runs.default_config()
    papers = quality_runs.load_corpus(Path(corpus))[:docs]
    embeddings = quality_runs.cached_embeddings(papers, Path(corpus), config["embedding"], Path(cache_dir))
    texts = [embedding_text(p) for p in papers]
    umap = {**config["umap"], "exact_neighbours_up_to": len(papers) if mode == EXACT else 0}
    assert umap["word_weight"] == 0, "the graphs below are searched on the embeddings alone"
    k = resolve_n_neighbors(umap["n_neighbors"], len(papers))
    seconds = {"neighbours": 0.0, "projections": 0.0}

    def timed(phase, compute):
        start = time.perf_counter()
        value = compute()
        seconds[phase] += time.perf_counter() - start
        return value

    def the_graph():  # what the neighbours job searches: exact, or NN-descent with its fixed seed
        return neighbour_graph(embeddings, texts, **umap_knobs(NeighbourSettings, umap))

    every_seed = timed("neighbours", the_graph) if mode == SHARED else None
    partitions = []
    for seed in quality_runs.STABILITY_SEEDS:
        per_seed = None
        if mode == EXACT:
            per_seed = timed("neighbours", the_graph)
        elif mode == PER_SEED:
            per_seed = timed(
                "neighbours", lambda s=seed: approximate_neighbours(embeddings, k, umap["metric"], s)
            )
        spaces = []
        for run_seed in consensus_seeds(seed, umap["consensus_runs"]):
            graph = every_seed or per_seed
            if mode == PER_RUN:
                graph = timed(
                    "neighbours", lambda s=run_seed: approximate_neighbours(embeddings, k, umap["metric"], s)
                )
            settings = {**umap_knobs(ClusterSpaceSettings, umap), "random_state": run_seed}
            space = timed(
                "projections",
                lambda g=graph, s=settings: reduce_embeddings(
                    embeddings, texts, Projection(**s), neighbours=g
                ),
            )
            spaces.append(space[0])
        clusters = cluster_runs(spaces, embeddings, **config["hdbscan"])[0]
        partitions.append(assign_outliers(embeddings, clusters))
    return {
        "papers": len(papers),
        "seeds": list(quality_runs.STABILITY_SEEDS),
        "ari": mean_pairwise_ari(partitions),
        "topics": [int(len(set(p.tolist()) - {-1})) for p in partitions],
        "seconds": seconds,
    }


def bench_consensus_neighbours(scratch: Path, modes: list[str], docs: int | None = None) -> dict:
    """Seed stability (mean pairwise ARI over UMAP seeds 42/7/1/2/3, as `make quality` computes it)
    of the consensus topics on IJCAI, with the exact neighbour graph (the default at this size,
    searched once and shared by the runs), and with NN-descent (what corpora above
    umap.exact_neighbours_up_to get): each consensus run searching its own graph, or all runs of a
    setting sharing one. Each mode in a fresh process.
    """
    cache = scratch / "consensus-neighbours"
    cache.mkdir(parents=True, exist_ok=True)
    result = {}
    for mode in modes:
        run = in_fresh_process(seed_stability, corpus=str(IJCAI), cache_dir=str(cache), mode=mode, docs=docs)
        result[mode] = {
            **run["result"],
            "ari": round(run["result"]["ari"], 4),
            "seconds": {phase: round(value, 1) for phase, value in run["result"]["seconds"].items()},
            "wall_seconds": run["seconds"],
            "load_average": round(os.getloadavg()[0], 2),
        }
        print(mode, result[mode], flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--modes", nargs="+", default=list(CONSENSUS_MODES), choices=CONSENSUS_MODES)
    parser.add_argument("--docs", type=int, help="only the first DOCS abstracts (default: all)")
    output_arguments(parser)
    args = parser.parse_args()
    result = bench_consensus_neighbours(args.scratch, args.modes, args.docs)
    results.save(lambda stored: stored.setdefault("consensus_neighbours", {}).update(result), args.results)


if __name__ == "__main__":
    main()
