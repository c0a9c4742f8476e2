"""The whole workflow, parse to report, at scale (``make bench-scale``).

N abstracts in dumps of 1,000 (the shared corpora's real abstracts, then copies with words
dropped); their embeddings are put in the embedding cache first (the real abstracts embedded, each
copy its original's vector with noise), so that the embed jobs only read it. Per rule: seconds and
peak RSS; the longest chain after the embeddings, the no-op rerun and the dry run. Updates the
scale part of results.json (a column per ``--label``) and rewrites results.md.

    PYTHONPATH=workflow python -m bench.scale --size 100000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
from pathlib import Path

import yaml

from bench import results
from bench.common import (
    ARXIV,
    IJCAI,
    SCALE_DROPPED_WORDS,
    SCALE_DUMP_SIZE,
    encoder_arguments,
    in_fresh_process,
    make_workdir,
    measured_snakemake,
    output_arguments,
    read_corpus,
    rule_benchmarks,
    write_config,
)


def seed_embedding_cache(
    parsed: str,
    cache_dir: str,
    model: str,
    backend: str,
    max_seq_length: int,
    model_cache_dir: str,
    batch_size: int,
    threads: int,
    noise: float,
) -> dict:
    """The embedding cache filled for every parsed paper: each real abstract (its id ends in -0)
    embedded, each copy its original's vector plus Gaussian noise of sd ``noise``, normalised.
    """
    import numpy as np
    from papertopics import storage
    from papertopics.embed.cache import EmbeddingCache, embed_with_cache
    from papertopics.embed.encoders import embedding_text, encoder_identity, load_encoder, resolve_backend

    backend = resolve_backend(backend)
    cache = EmbeddingCache(cache_dir, encoder_identity(model, backend, max_seq_length))
    papers = [paper for path in sorted(Path(parsed).glob("*.jsonl")) for paper in storage.read_jsonl(path)]

    def original(paper):
        return paper["input_id"].split("-")[0]

    real = {original(p): embedding_text(p) for p in papers if p["input_id"].endswith("-0")}
    for paper in papers:  # a copy whose real abstract did not survive parsing is embedded itself
        real.setdefault(original(paper), embedding_text(paper))
    names = sorted(real)
    vectors, computed = embed_with_cache(
        [real[name] for name in names],
        cache,
        lambda: load_encoder(model, backend, max_seq_length, model_cache_dir, threads),
        batch_size,
    )
    by_name = dict(zip(names, vectors, strict=True))
    rng = np.random.default_rng(0)
    written = 0
    for paper in papers:
        text = embedding_text(paper)
        if text == real[original(paper)] or cache.get(text) is not None:
            continue
        vector = by_name[original(paper)] + rng.normal(0, noise, vectors.shape[1]).astype(np.float32)
        cache.put(text, (vector / np.linalg.norm(vector)).astype(np.float32))
        written += 1
    return {"backend": backend, "real": len(names), "embedded_now": computed, "resampled": written}


def scale_records(size: int) -> list[dict]:
    """``size`` abstracts: the shared corpora's real ones, then copies of them with words dropped."""
    real = read_corpus(ARXIV) + read_corpus(IJCAI)
    records = []
    for row in range(size):
        index, copy = row % len(real), row // len(real)
        source = real[index]
        abstract = source["abstract"]
        if copy:
            rng = random.Random(row)
            abstract = " ".join(word for word in abstract.split() if rng.random() >= SCALE_DROPPED_WORDS)
        records.append({"id": f"s{index}-{copy}", "title": source.get("title"), "abstract": abstract})
    return records


def scale_dumps(size: int, dump_size: int = SCALE_DUMP_SIZE) -> dict[str, str]:
    """``scale_records(size)`` as JSON Lines dumps of ``dump_size`` (part000.jsonl, ...)."""
    records = scale_records(size)
    return {
        f"part{number:03d}.jsonl": "".join(
            json.dumps(r, ensure_ascii=False) + "\n" for r in records[start : start + dump_size]
        )
        for number, start in enumerate(range(0, size, dump_size))
    }


def parsed_and_seeded(workdir: Path, embedding: dict, noise: float) -> tuple[dict, dict]:
    """The workflow in ``workdir`` run up to the corpus, then the embedding cache of its config's
    ``embedding`` section seeded (``seed_embedding_cache``): both measured.
    """
    parsed = measured_snakemake(workdir, "--until", "corpus")
    seeded = in_fresh_process(
        seed_embedding_cache,
        parsed=str(workdir / "results" / "parsed"),
        cache_dir=embedding["cache_dir"],
        **encoder_arguments(workdir, embedding),
        noise=noise,
    )
    return parsed, seeded


def critical_path(rules: dict) -> float:
    """Seconds downstream of the embeddings along the longest chain of jobs, as if each had a
    core of its own: the neighbour graph, then the longest projection (reduce or a consensus run,
    then cluster; or the map), then topics, evaluate, report.
    """
    seconds = {rule: entry.get("max_seconds", entry["seconds"]) for rule, entry in rules.items()}
    projections = max(seconds.get("reduce", 0), seconds.get("consensus_run", 0))
    return round(
        seconds.get("neighbours", 0)
        + max(projections + seconds.get("cluster", 0), seconds.get("map_layout", 0))
        + sum(seconds.get(rule, 0) for rule in ("topics", "evaluate", "report")),
        1,
    )


def overridden(overrides: list[str]) -> dict:
    """``section.key=value`` settings (the value read as YAML) as write_config's overrides."""
    sections: dict[str, dict] = {}
    for override in overrides:
        key, value = override.split("=", 1)
        section, name = key.split(".")
        sections.setdefault(section, {})[name] = yaml.safe_load(value)
    return sections


def bench_scale(
    size: int, scratch: Path, noise: float, label: str, overrides: list[str], dump_size: int = SCALE_DUMP_SIZE
) -> dict:
    """The whole workflow, parse to report, on ``size`` abstracts in dumps of ``dump_size``; the
    embedding cache is filled first (real vectors of the real abstracts, resampled with noise for
    the copies), so the run's embed jobs read it and the figures are those of every other stage.
    """
    workdir = scratch / f"scale-{size}"
    shutil.rmtree(workdir, ignore_errors=True)
    dumps = scale_dumps(size, dump_size)
    make_workdir(workdir, dumps)
    settings = overridden(overrides)
    # Kept between runs of the benchmark: the real abstracts are embedded once.
    embedding_cache = {"cache_dir": str(scratch / "scale-embedding-cache")}
    config = write_config(
        workdir, **{**settings, "embedding": {**settings.get("embedding", {}), **embedding_cache}}
    )
    parsed, seeded = parsed_and_seeded(workdir, config["embedding"], noise)
    embedded = measured_snakemake(workdir, "--until", "embed")
    downstream = measured_snakemake(workdir)
    rules = rule_benchmarks(workdir)
    noop = measured_snakemake(workdir)
    dry_run = measured_snakemake(workdir, "--dry-run")
    with open(workdir / "results" / "corpus" / "papers.jsonl", encoding="utf-8") as lines:
        papers = sum(1 for _ in lines)
    return {
        "label": label,
        "size": size,
        "papers": papers,
        "dumps": len(dumps),
        "noise_sd": noise,
        "overrides": overrides,
        "umap": config["umap"],
        "backend": seeded["result"]["backend"],
        "real_abstracts": seeded["result"]["real"],
        "parse_and_corpus_seconds": parsed["seconds"],
        "embed_jobs_seconds": embedded["seconds"],
        "downstream_seconds": downstream["seconds"],
        "rules": rules,
        "critical_path_after_embeddings_seconds": critical_path(rules),
        "peak_rss_mib": max(entry["peak_rss_mib"] for entry in rules.values()),
        "noop_seconds": noop["seconds"],
        "dry_run_seconds": dry_run["seconds"],
        "load_average_at_end": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=100000)
    parser.add_argument("--dump-size", type=int, default=SCALE_DUMP_SIZE, help="abstracts per dump")
    parser.add_argument("--noise", type=float, default=0.02)
    parser.add_argument("--label", default="config.yaml", help="the run's column in results.md")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="a config value for this run, e.g. umap.fit_sample_size=25000",
    )
    output_arguments(parser)
    args = parser.parse_args()
    result = bench_scale(args.size, args.scratch, args.noise, args.label, args.overrides, args.dump_size)
    results.save(
        lambda stored: stored.__setitem__("scale", {**results.scale_runs(stored), args.label: result}),
        args.results,
    )


if __name__ == "__main__":
    main()
