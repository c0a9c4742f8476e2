"""The embedding backends' quality on IJCAI (``make bench-quality``): NMI/ARI against the area
labels of each backend's vectors, clustered with the pipeline's reduce and cluster functions and
default settings, and their cosine to torch's. Each backend embeds in a fresh process. Updates the
quality part of results.json and rewrites results.md.

    PYTHONPATH=workflow python -m bench.backend_quality --backends torch onnx
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

from bench import results
from bench.common import (
    IJCAI,
    in_fresh_process,
    make_workdir,
    output_arguments,
    read_corpus,
    text_dump,
    workdir_config,
)

BACKENDS = ["torch", "torch-bf16", "onnx", "onnx-int8"]


def embedded(
    texts: str, out: str, model: str, backend: str, max_seq_length: int, model_cache_dir: str, batch_size: int
) -> dict:
    """The ``texts`` (a JSON list in a file) embedded with ``backend``, saved to ``out`` (.npy)."""
    import numpy as np
    from papertopics.embed.encoders import load_encoder

    encoder = load_encoder(model, backend, max_seq_length, model_cache_dir, 2)
    start = time.perf_counter()
    vectors = encoder.encode(json.loads(Path(texts).read_text()), batch_size=batch_size)
    seconds = time.perf_counter() - start
    np.save(out, vectors)
    return {"docs": len(vectors), "encode_seconds": seconds}


def bench_quality(backends: list[str], scratch: Path, docs: int | None = None) -> dict:
    import numpy as np
    from papertopics.embed.encoders import embedding_text
    from papertopics.ingest.parse import parse_dump
    from papertopics.mapping.cluster import cluster_points
    from papertopics.mapping.reduce import Projection, reduce_embeddings
    from papertopics.settings import ClusterSpaceSettings, umap_knobs
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    records = read_corpus(IJCAI)[:docs]
    workdir = scratch / "quality"
    shutil.rmtree(workdir, ignore_errors=True)
    make_workdir(workdir, {"ijcai.txt": text_dump("IJCAI 2020-2024", [r["abstract"] for r in records])})
    config = workdir_config(workdir)
    papers = parse_dump(workdir / "data" / "raw" / "ijcai.txt", config["parse"]["min_abstract_chars"]).papers
    labels = [records[p["position"]]["label"] for p in papers]  # for scoring only
    texts = [embedding_text(p) for p in papers]
    texts_path = workdir / "texts.json"
    texts_path.write_text(json.dumps(texts))
    embedding = config["embedding"]

    vectors, rows = {}, {}
    for backend in backends:
        out = workdir / f"{backend}.npy"
        run = in_fresh_process(
            embedded,
            texts=str(texts_path),
            out=str(out),
            model=embedding["model"],
            backend=backend,
            max_seq_length=embedding["max_seq_length"],
            model_cache_dir=str(workdir / embedding["model_cache_dir"]),
            batch_size=embedding["batch_size"],
        )
        vectors[backend] = np.load(out)
        umap = umap_knobs(ClusterSpaceSettings, config["umap"])
        cluster_space, _ = reduce_embeddings(vectors[backend], texts, Projection(**umap))
        assigned, _ = cluster_points(cluster_space, **config["hdbscan"])
        rows[backend] = {
            "docs": len(papers),
            "docs_per_second": round(len(papers) / run["result"]["encode_seconds"], 1),
            "nmi": round(normalized_mutual_info_score(labels, assigned), 4),
            "ari": round(adjusted_rand_score(labels, assigned), 4),
            "clusters": int(len(set(assigned.tolist()) - {-1})),
            "outlier_share": round(float((assigned == -1).mean()), 4),
        }
    if "torch" in vectors:
        for backend, matrix in vectors.items():
            cosine = (matrix * vectors["torch"]).sum(axis=1)
            rows[backend]["cosine_to_torch_min"] = round(float(cosine.min()), 4)
            rows[backend]["cosine_to_torch_mean"] = round(float(cosine.mean()), 4)
            rows[backend]["nmi_minus_torch"] = round(rows[backend]["nmi"] - rows["torch"]["nmi"], 4)
    return {"corpus": IJCAI.name, "backends": rows}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backends", nargs="+", default=BACKENDS)
    parser.add_argument("--docs", type=int, help="only the first DOCS abstracts (default: all)")
    output_arguments(parser)
    args = parser.parse_args()
    result = bench_quality(args.backends, args.scratch, args.docs)
    results.save(lambda stored: stored.__setitem__("quality", result), args.results)


if __name__ == "__main__":
    main()
