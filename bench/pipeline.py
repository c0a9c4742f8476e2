"""The pipeline against itself and against a plain BERTopic ``fit_transform`` (``make bench``).

N arXiv abstracts as a dump in a scratch copy: cold run, no-op rerun, rerun after a new dump of
1,000 IJCAI abstracts; per-rule seconds and peak RSS from the rules' benchmark files; the embedding
step alone; plain BERTopic on the same documents and model (in its own process, so that its peak
RSS is its own). Updates the pipeline part of results.json and rewrites results.md.

    PYTHONPATH=workflow python -m bench.pipeline --size 10000
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from pathlib import Path

from bench import results
from bench.common import (
    ARXIV,
    IJCAI,
    NEW_DUMP_SIZE,
    encoder_arguments,
    in_fresh_process,
    make_workdir,
    measured_snakemake,
    output_arguments,
    read_corpus,
    rule_benchmarks,
    text_dump,
    workdir_config,
)

BACKENDS = ["auto", "torch", "torch-bf16", "onnx", "onnx-int8"]


def embedding_step(
    papers: str,
    model: str,
    backend: str,
    max_seq_length: int,
    model_cache_dir: str,
    batch_size: int,
    threads: int,
) -> dict:
    """The embed stage's work alone on the parsed ``papers``: the encoder loaded, the texts encoded."""
    from papertopics import storage
    from papertopics.embed.encoders import embedding_text, load_encoder, resolve_backend

    backend = resolve_backend(backend)
    texts = [embedding_text(paper) for paper in storage.read_jsonl(papers)]
    encoder = load_encoder(model, backend, max_seq_length, model_cache_dir, threads)
    start = time.perf_counter()
    encoder.encode(texts, batch_size=batch_size)
    return {"docs": len(texts), "backend": backend, "encode_seconds": time.perf_counter() - start}


def plain_bertopic(papers: str, model: str, max_seq_length: int) -> dict:
    """BERTopic as it comes, on the parsed ``papers`` with the same model: ``fit_transform``."""
    start = time.perf_counter()
    from bertopic import BERTopic
    from papertopics import storage
    from papertopics.embed.encoders import embedding_text, load_model

    texts = [embedding_text(paper) for paper in storage.read_jsonl(papers)]
    topics, _ = BERTopic(embedding_model=load_model(model, max_seq_length)).fit_transform(texts)
    return {
        "docs": len(texts),
        "topics": len(set(topics) - {-1}),
        "seconds_in_process": time.perf_counter() - start,
    }


def bench_pipeline(
    size: int, backend: str | None, scratch: Path, skip_baseline: bool, new_dump_size: int = NEW_DUMP_SIZE
) -> dict:
    records = read_corpus(ARXIV)
    if size > len(records):
        raise SystemExit(f"--size {size}: the arXiv corpus has {len(records)} abstracts.")
    workdir = scratch / ("pipeline-" + run_key(size, backend).replace(" ", "-"))
    shutil.rmtree(workdir, ignore_errors=True)
    dump = text_dump("arXiv cs abstracts", [r["abstract"] for r in records[:size]])
    make_workdir(workdir, {"arxiv.txt": dump}, **({"embedding": {"backend": backend}} if backend else {}))
    embedding = workdir_config(workdir)["embedding"]

    cold = measured_snakemake(workdir)
    cold_rules = rule_benchmarks(workdir)
    noop = measured_snakemake(workdir)
    # The new dump is another venue's (IJCAI's first abstracts), as when a conference's papers arrive.
    (workdir / "data" / "raw" / "ijcai_new.txt").write_text(
        text_dump("New IJCAI abstracts", [r["abstract"] for r in read_corpus(IJCAI)[:new_dump_size]]),
        encoding="utf-8",
    )
    # Only the jobs of the rerun: clear the cold run's benchmark files first.
    shutil.rmtree(workdir / "results" / "benchmarks")
    warm = measured_snakemake(workdir)
    warm_rules = rule_benchmarks(workdir)

    papers = str(workdir / "results" / "parsed" / "arxiv.jsonl")
    embed_only = in_fresh_process(
        embedding_step,
        papers=papers,
        **encoder_arguments(workdir, embedding),
    )
    docs = embed_only["result"]["docs"]
    result = {
        "size": size,
        "docs": docs,
        "backend": embed_only["result"]["backend"],
        "cold_seconds": cold["seconds"],
        "noop_seconds": noop["seconds"],
        "new_dump_rerun_seconds": warm["seconds"],
        "embedding_only_seconds": embed_only["seconds"],
        "embedding_only_peak_rss_mib": embed_only["peak_rss_mib"],
        "embedding_docs_per_second": round(docs / embed_only["result"]["encode_seconds"], 1),
        "cold_rules": cold_rules,
        "new_dump_rules": warm_rules,
        "cores": os.cpu_count(),
        "load_average_at_end": round(os.getloadavg()[0], 2),
    }
    if new_dump_size != NEW_DUMP_SIZE:
        result["new_dump_size"] = new_dump_size
    if not skip_baseline:
        plain = in_fresh_process(
            plain_bertopic,
            papers=papers,
            model=embedding["model"],
            max_seq_length=embedding["max_seq_length"],
        )
        result["plain_bertopic_seconds"] = plain["seconds"]
        result["plain_bertopic_peak_rss_mib"] = plain["peak_rss_mib"]
        result["plain_bertopic_topics"] = plain["result"]["topics"]
    result["ratios"] = ratios(result)
    return result


def run_key(size: int, backend: str | None) -> str:
    """Where a pipeline run is kept in results.json: by size, and by backend when one was forced."""
    return str(size) if backend is None else f"{size} {backend}"


def ratios(result: dict) -> dict:
    found = {
        "cold_over_embedding_only": result["cold_seconds"] / result["embedding_only_seconds"],
        "new_dump_rerun_over_cold": result["new_dump_rerun_seconds"] / result["cold_seconds"],
    }
    if "plain_bertopic_seconds" in result:
        found["plain_bertopic_over_cold"] = result["plain_bertopic_seconds"] / result["cold_seconds"]
    if "publish" in result["cold_rules"]:  # the job that puts the run's results in place
        found["publish_over_cold"] = result["cold_rules"]["publish"]["seconds"] / result["cold_seconds"]
    return {name: round(value, 3) for name, value in found.items()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=10000, help="arXiv abstracts in the first dump")
    parser.add_argument("--backend", choices=BACKENDS, help="default: config.yaml's")
    parser.add_argument("--skip-baseline", action="store_true", help="without plain BERTopic")
    parser.add_argument(
        "--new-dump-size", type=int, default=NEW_DUMP_SIZE, help="IJCAI abstracts in the new dump"
    )
    output_arguments(parser)
    args = parser.parse_args()
    result = bench_pipeline(args.size, args.backend, args.scratch, args.skip_baseline, args.new_dump_size)
    key = run_key(args.size, args.backend)
    results.save(lambda stored: stored.setdefault("pipeline", {}).__setitem__(key, result), args.results)


if __name__ == "__main__":
    main()
