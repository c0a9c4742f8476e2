"""Benchmark the pipeline against itself and against a plain BERTopic ``fit_transform``.

Subcommands (each updates its part of bench/results.json and rewrites bench/results.md):

  pipeline --size N   N arXiv abstracts as a dump in a scratch copy: cold run, no-op rerun,
                      rerun after a new 1,000-abstract dump (IJCAI abstracts); per-rule seconds and peak RSS from the
                      rules' benchmark files; the embedding step alone; plain BERTopic on the same
                      documents and model (in its own process, so its peak RSS is its own).
  quality             NMI/ARI against the IJCAI area labels of each embedding backend's vectors,
                      clustered with the pipeline's reduce and cluster functions, and cosine to torch.
  speed               the backends' embedding speed, measured interleaved (torch, onnx, onnx-int8,
                      repeated) in one process, so that all see the same machine load.
  scale --size N      the whole workflow on N abstracts in dumps of 1,000 (the shared corpora's real
                      abstracts, then copies with words dropped; their embeddings resampled with noise
                      into the embedding cache first); per-rule seconds and peak RSS, the critical path
                      after the embeddings, the no-op rerun and the dry run.

Every measurement runs in a fresh child process; peak RSS is the child's ``ru_maxrss``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO / "workflow"))
CORPORA = REPO.parent / "shared" / "corpora"
ARXIV = CORPORA / "arxiv_cs_daily_2025_2026.jsonl.gz"
IJCAI = CORPORA / "ijcai_2020_2024_areas.jsonl.gz"
RESULTS_JSON = BENCH / "results.json"
RESULTS_MD = BENCH / "results.md"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
NEW_DUMP_SIZE = 1000
ENV = {
    **os.environ,
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "workflow"), os.environ.get("PYTHONPATH")])),
}


# ---------------------------------------------------------------- measuring child processes


def measured(command: list[str], cwd: Path | None = None) -> dict:
    """Run ``command``; return its wall seconds and peak RSS (MiB); fail loudly on error."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, command))} failed ({process.returncode}):\n{output[-6000:]}")
    return {"seconds": round(seconds, 2), "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "output": output}


def python_child(code: str, *args: str) -> dict:
    """Run a snippet in a fresh interpreter; its last stdout line is parsed as JSON into ``result``."""
    run = measured([sys.executable, "-c", code, *args])
    run["result"] = json.loads(run.pop("output").strip().splitlines()[-1])
    return run


def snakemake(workdir: Path) -> dict:
    run = measured(
        [
            str(SNAKEMAKE),
            "--snakefile",
            str(REPO / "Snakefile"),
            "--directory",
            str(workdir),
            "--cores",
            "2",
            "--rerun-incomplete",
            "--quiet",
        ]
    )
    run.pop("output")
    return run


def rule_benchmarks(workdir: Path) -> dict:
    """Per rule: jobs, summed wall seconds, largest peak RSS (MiB), from the benchmark files."""
    import csv

    rules: dict[str, dict] = {}
    root = workdir / "results" / "benchmarks"
    for path in sorted(root.rglob("*.tsv")):
        relative = path.relative_to(root)
        rule = relative.parts[0].removesuffix(".tsv")
        if rule == "embed" and len(relative.parts) == 3:  # embed/{dump}/{shard}-of-{shards}.tsv
            rule = "embed_shard"
        with open(path) as stream:
            row = next(csv.DictReader(stream, delimiter="\t"))
        entry = rules.setdefault(rule, {"jobs": 0, "seconds": 0.0, "peak_rss_mib": 0.0})
        entry["jobs"] += 1
        entry["seconds"] = round(entry["seconds"] + float(row["s"]), 2)
        rss = float(row["max_rss"]) if row["max_rss"] not in ("", "NA", "-") else 0.0
        entry["peak_rss_mib"] = max(entry["peak_rss_mib"], round(rss, 1))
    return rules


# ---------------------------------------------------------------- inputs


def read_corpus(path: Path) -> list[dict]:
    if not path.exists():
        raise SystemExit(f"{path} is absent: the benchmark needs the shared corpora beside the repository.")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def write_dump(path: Path, title: str, abstracts: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(title + "\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")


def scratch_workdir(root: Path, backend: str | None) -> dict:
    """A fresh working folder with the repository's config (backend overridden if given)."""
    shutil.rmtree(root, ignore_errors=True)
    (root / "data" / "raw").mkdir(parents=True)
    config = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    if backend:
        config["embedding"]["backend"] = backend
    (root / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return config


# ---------------------------------------------------------------- child snippets

EMBED_ONLY = """
import json, sys, time
from papertopics import storage
from papertopics.embed import embedding_text, load_encoder, resolve_backend
papers_path, model, backend, max_seq_length, model_cache_dir, batch_size, threads = sys.argv[1:]
backend = resolve_backend(backend)
texts = [embedding_text(p) for p in storage.read_jsonl(papers_path)]
encoder = load_encoder(model, backend, int(max_seq_length), model_cache_dir, int(threads))
start = time.perf_counter()
encoder.encode(texts, batch_size=int(batch_size))
print(json.dumps({"docs": len(texts), "backend": backend, "encode_seconds": time.perf_counter() - start}))
"""

PLAIN_BERTOPIC = """
import json, sys, time
start = time.perf_counter()
from bertopic import BERTopic
from papertopics import storage
from papertopics.embed import embedding_text, load_model
papers_path, model, max_seq_length = sys.argv[1:]
texts = [embedding_text(p) for p in storage.read_jsonl(papers_path)]
topics, _ = BERTopic(embedding_model=load_model(model, int(max_seq_length))).fit_transform(texts)
print(json.dumps({"docs": len(texts), "topics": len(set(topics) - {-1}), "seconds_in_process": time.perf_counter() - start}))
"""

QUALITY = """
import json, sys, time
import numpy as np
from papertopics.embed import load_encoder
texts_path, out_path, model, backend, max_seq_length, model_cache_dir, batch_size = sys.argv[1:]
texts = json.load(open(texts_path))
encoder = load_encoder(model, backend, int(max_seq_length), model_cache_dir, 2)
start = time.perf_counter()
vectors = encoder.encode(texts, batch_size=int(batch_size))
seconds = time.perf_counter() - start
np.save(out_path, vectors)
print(json.dumps({"docs": len(texts), "encode_seconds": seconds}))
"""

SPEED = """
import json, statistics, sys, time
from papertopics.embed import load_encoder
texts_path, model, max_seq_length, model_cache_dir, batch_size, rounds, *backends = sys.argv[1:]
texts = json.load(open(texts_path))
encoders = {b: load_encoder(model, b, int(max_seq_length), model_cache_dir, 2) for b in backends}
seconds = {b: [] for b in backends}
for _ in range(int(rounds)):
    for backend, encoder in encoders.items():
        start = time.perf_counter()
        encoder.encode(texts, batch_size=int(batch_size))
        seconds[backend].append(time.perf_counter() - start)
print(json.dumps({b: statistics.median(s) for b, s in seconds.items()}))
"""

STAGE = """
import json, sys
from papertopics import stages
name, arguments = sys.argv[1], json.loads(sys.argv[2])
getattr(stages, name)(**arguments)
print(json.dumps({}))
"""


# ---------------------------------------------------------------- subcommands


def bench_pipeline(size: int, backend: str | None, scratch: Path, skip_baseline: bool) -> dict:
    records = read_corpus(ARXIV)
    if size > len(records):
        raise SystemExit(f"--size {size}: the arXiv corpus has {len(records)} abstracts.")
    workdir = scratch / ("pipeline-" + run_key(size, backend).replace(" ", "-"))
    config = scratch_workdir(workdir, backend)
    embedding = config["embedding"]
    write_dump(
        workdir / "data" / "raw" / "arxiv.txt", "arXiv cs abstracts", [r["abstract"] for r in records[:size]]
    )

    cold = snakemake(workdir)
    cold_rules = rule_benchmarks(workdir)
    noop = snakemake(workdir)
    # The new dump is another venue's (IJCAI's first abstracts), as when a conference's papers arrive.
    write_dump(
        workdir / "data" / "raw" / "ijcai_new.txt",
        "New IJCAI abstracts",
        [r["abstract"] for r in read_corpus(IJCAI)[:NEW_DUMP_SIZE]],
    )
    # Only the jobs of the rerun: clear the cold run's benchmark files first.
    shutil.rmtree(workdir / "results" / "benchmarks")
    warm = snakemake(workdir)
    warm_rules = rule_benchmarks(workdir)

    papers = workdir / "results" / "parsed" / "arxiv.jsonl"
    embed_only = python_child(
        EMBED_ONLY,
        str(papers),
        embedding["model"],
        embedding["backend"],
        str(embedding["max_seq_length"]),
        str(workdir / embedding["model_cache_dir"]),
        str(embedding["batch_size"]),
        str(embedding["threads"]),
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
    if not skip_baseline:
        plain = python_child(
            PLAIN_BERTOPIC, str(papers), embedding["model"], str(embedding["max_seq_length"])
        )
        result["plain_bertopic_seconds"] = plain["seconds"]
        result["plain_bertopic_peak_rss_mib"] = plain["peak_rss_mib"]
        result["plain_bertopic_topics"] = plain["result"]["topics"]
    result["ratios"] = ratios(result)
    return result


def run_key(size: int, backend: str | None) -> str:
    """Where a pipeline run is kept in results.json: by size, and by backend when one was forced."""
    return str(size) if backend is None else f"{size} {backend}"


def run_heading(key: str, run: dict) -> str:
    forced = key.split(" ", 1)[1:]
    return f"{run['size']:,} abstracts" + (f" ({forced[0]} forced)" if forced else "")


def rule_table(heading: str, sizes: dict, order: list, run: str) -> list[str]:
    """Markdown lines: a rule per row, for each size its summed seconds / largest peak RSS / jobs in ``run``."""
    lines = [
        "",
        f"### {heading}",
        "",
        "| rule | " + " | ".join(run_heading(s, sizes[s]) for s in order) + " |",
        "|---|" + "---:|" * len(order),
    ]
    for rule in sorted({rule for size in order for rule in sizes[size][run]}):
        entries = [sizes[size][run].get(rule) for size in order]
        cells = [
            f"{e['seconds']:.1f} s / {e['peak_rss_mib']:.0f} / {e['jobs']}" if e else "–" for e in entries
        ]
        lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    return lines


def ratios(result: dict) -> dict:
    found = {
        "cold_over_embedding_only": result["cold_seconds"] / result["embedding_only_seconds"],
        "new_dump_rerun_over_cold": result["new_dump_rerun_seconds"] / result["cold_seconds"],
    }
    if "plain_bertopic_seconds" in result:
        found["plain_bertopic_over_cold"] = result["plain_bertopic_seconds"] / result["cold_seconds"]
    return {name: round(value, 3) for name, value in found.items()}


def bench_quality(backends: list[str], scratch: Path) -> dict:
    import numpy as np
    from papertopics.cluster import cluster_points
    from papertopics.embed import embedding_text
    from papertopics.parse import parse_dump
    from papertopics.reduce import reduce_embeddings
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    records = read_corpus(IJCAI)
    workdir = scratch / "quality"
    config = scratch_workdir(workdir, None)
    dump = workdir / "data" / "raw" / "ijcai.txt"
    write_dump(dump, "IJCAI 2020-2024", [r["abstract"] for r in records])
    papers = parse_dump(dump, config["parse"]["min_abstract_chars"]).papers
    labels = [records[p["position"]]["label"] for p in papers]  # for scoring only
    texts_path = workdir / "texts.json"
    texts_path.write_text(json.dumps([embedding_text(p) for p in papers]))
    embedding, umap, hdbscan = config["embedding"], config["umap"], config["hdbscan"]

    vectors, rows = {}, {}
    for backend in backends:
        out = workdir / f"{backend}.npy"
        run = python_child(
            QUALITY,
            str(texts_path),
            str(out),
            embedding["model"],
            backend,
            str(embedding["max_seq_length"]),
            str(workdir / embedding["model_cache_dir"]),
            str(embedding["batch_size"]),
        )
        vectors[backend] = np.load(out)
        cluster_space, _ = reduce_embeddings(
            vectors[backend], texts=json.loads(texts_path.read_text()), **umap
        )
        assigned, _ = cluster_points(cluster_space, **hdbscan)
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


def bench_speed(backends: list[str], docs: int, rounds: int, scratch: Path) -> dict:
    records = read_corpus(IJCAI)[:docs]
    workdir = scratch / "speed"
    config = scratch_workdir(workdir, None)
    texts_path = workdir / "texts.json"
    texts_path.write_text(json.dumps([r["abstract"] for r in records]))
    embedding = config["embedding"]
    run = python_child(
        SPEED,
        str(texts_path),
        embedding["model"],
        str(embedding["max_seq_length"]),
        str(workdir / embedding["model_cache_dir"]),
        str(embedding["batch_size"]),
        str(rounds),
        *backends,
    )
    median = run["result"]
    return {
        "docs": len(records),
        "rounds": rounds,
        "backends": {
            b: {
                "median_seconds": round(median[b], 3),
                "docs_per_second": round(len(records) / median[b], 1),
                "speedup_over_torch": round(median["torch"] / median[b], 2) if "torch" in median else None,
            }
            for b in backends
        },
        "load_average_at_end": round(os.getloadavg()[0], 2),
    }


SCALE_DUMP_SIZE = 1000
# Of each copy of a real abstract beyond the first, this share of its words is dropped (seeded),
# so that every one of the N abstracts is distinct text with a real abstract's vocabulary.
SCALE_DROPPED_WORDS = 0.1

SEED_EMBEDDINGS = """
import glob, json, sys
import numpy as np
from papertopics import storage
from papertopics.embed import embedding_text, encoder_identity, load_encoder, resolve_backend
from papertopics.embedding_cache import EmbeddingCache, embed_with_cache
parsed_folder, cache_dir, model, backend, max_seq_length, model_cache_dir, batch_size, threads, noise = sys.argv[1:]
backend = resolve_backend(backend)
cache = EmbeddingCache(cache_dir, encoder_identity(model, backend, int(max_seq_length)))
papers = [p for path in sorted(glob.glob(parsed_folder + "/*.jsonl")) for p in storage.read_jsonl(path)]
original = lambda p: p["input_id"].split("-")[0]
real = {original(p): embedding_text(p) for p in papers if p["input_id"].endswith("-0")}
for p in papers:  # a copy whose real abstract did not survive parsing is embedded itself
    real.setdefault(original(p), embedding_text(p))
names = sorted(real)
vectors, computed = embed_with_cache([real[name] for name in names], cache,
                                     lambda: load_encoder(model, backend, int(max_seq_length), model_cache_dir, int(threads)),
                                     int(batch_size))
by_name = dict(zip(names, vectors))
rng = np.random.default_rng(0)
written = 0
for p in papers:
    text = embedding_text(p)
    if text == real[original(p)] or cache.get(text) is not None:
        continue
    vector = by_name[original(p)] + rng.normal(0, float(noise), vectors.shape[1]).astype(np.float32)
    cache.put(text, (vector / np.linalg.norm(vector)).astype(np.float32))
    written += 1
print(json.dumps({"backend": backend, "real": len(names), "embedded_now": computed, "resampled": written}))
"""


def scale_records(size: int) -> list[dict]:
    """``size`` abstracts: the shared corpora's real ones, then copies of them with words dropped."""
    import random

    real = read_corpus(ARXIV) + read_corpus(IJCAI)
    records = []
    for row in range(size):
        index, copy = row % len(real), row // len(real)
        source = real[index]
        abstract = source["abstract"]
        if copy:
            words = abstract.split()
            rng = random.Random(row)
            abstract = " ".join(word for word in words if rng.random() >= SCALE_DROPPED_WORDS)
        records.append({"id": f"s{index}-{copy}", "title": source.get("title"), "abstract": abstract})
    return records


def critical_path(rules: dict) -> float:
    """Seconds downstream of the embeddings on the critical path: reduce then cluster beside map,
    then topics, evaluate, report.
    """
    seconds = {rule: entry["seconds"] for rule, entry in rules.items()}
    return round(
        max(seconds.get("reduce", 0) + seconds.get("cluster", 0), seconds.get("map", 0))
        + sum(seconds.get(rule, 0) for rule in ("topics", "evaluate", "report")),
        1,
    )


def bench_scale(size: int, scratch: Path, noise: float, label: str, overrides: list[str]) -> dict:
    """The whole workflow, parse to report, on ``size`` abstracts in dumps of 1,000; the embedding
    cache is filled first (real vectors of the real abstracts, resampled with noise for the copies),
    so the run's embed jobs read it and the figures are those of every other stage.
    """
    workdir = scratch / f"scale-{size}"
    config = scratch_workdir(workdir, None)
    # Kept between runs of the benchmark: the real abstracts are embedded once.
    config["embedding"]["cache_dir"] = str(scratch / "scale-embedding-cache")
    for override in overrides:  # section.key=value (YAML value)
        key, value = override.split("=", 1)
        section, name = key.split(".")
        config[section][name] = yaml.safe_load(value)
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    records = scale_records(size)
    for number, start in enumerate(range(0, size, SCALE_DUMP_SIZE)):
        path = workdir / "data" / "raw" / f"part{number:03d}.jsonl"
        path.write_text(
            "".join(
                json.dumps(r, ensure_ascii=False) + "\n" for r in records[start : start + SCALE_DUMP_SIZE]
            ),
            encoding="utf-8",
        )
    del records

    parsed = measured(
        [
            str(SNAKEMAKE),
            "--snakefile",
            str(REPO / "Snakefile"),
            "--directory",
            str(workdir),
            "--cores",
            "2",
            "--quiet",
            "--until",
            "corpus",
        ]
    )
    embedding = config["embedding"]
    seeded = python_child(
        SEED_EMBEDDINGS,
        str(workdir / "results" / "parsed"),
        embedding["cache_dir"],
        embedding["model"],
        embedding["backend"],
        str(embedding["max_seq_length"]),
        str(workdir / embedding["model_cache_dir"]),
        str(embedding["batch_size"]),
        str(embedding["threads"]),
        str(noise),
    )
    rest = snakemake(workdir)
    rules = rule_benchmarks(workdir)
    noop = snakemake(workdir)
    dry_run = measured(
        [
            str(SNAKEMAKE),
            "--snakefile",
            str(REPO / "Snakefile"),
            "--directory",
            str(workdir),
            "--cores",
            "2",
            "--dry-run",
            "--quiet",
        ]
    )
    papers = storage_count(workdir / "results" / "corpus" / "papers.jsonl")
    return {
        "label": label,
        "size": size,
        "papers": papers,
        "dumps": -(-size // SCALE_DUMP_SIZE),
        "noise_sd": noise,
        "overrides": overrides,
        "umap": config["umap"],
        "backend": seeded["result"]["backend"],
        "real_abstracts": seeded["result"]["real"],
        "parse_and_corpus_seconds": parsed["seconds"],
        "after_embeddings_seeded_seconds": rest["seconds"],
        "rules": rules,
        "critical_path_after_embeddings_seconds": critical_path(rules),
        "peak_rss_mib": max(entry["peak_rss_mib"] for entry in rules.values()),
        "noop_seconds": noop["seconds"],
        "dry_run_seconds": dry_run["seconds"],
        "load_average_at_end": round(os.getloadavg()[0], 2),
    }


NEIGHBOURS = """
import glob, json, sys, time
import numpy as np
from papertopics import storage
from papertopics.reduce import exact_neighbours
from papertopics.sizing import resolve_n_neighbors
method, size, reference = sys.argv[1], int(sys.argv[2]), sys.argv[3]
paths = sorted(glob.glob(sys.argv[4] + "/*.npz"))
vectors = np.vstack([storage.read_arrays(path)["vectors"] for path in paths])[:size]
k = resolve_n_neighbors("auto", len(vectors))
start = time.perf_counter()
if method == "exact":
    indices, _ = exact_neighbours(vectors, k, "cosine")
else:  # what UMAP runs without precomputed neighbours: NN-descent, seeded
    from umap.umap_ import nearest_neighbors
    indices, _, _ = nearest_neighbors(vectors, k, "cosine", {}, False, np.random.RandomState(42), n_jobs=1)
seconds = time.perf_counter() - start
if reference == "-":
    np.save(sys.argv[5], indices)
    recall = 1.0
else:
    exact = np.load(reference)
    recall = float(np.mean([len(set(a) & set(b)) / k for a, b in zip(indices, exact)]))
print(json.dumps({"papers": len(vectors), "n_neighbors": k, "seconds": seconds, "recall": recall}))
"""


def bench_neighbours(sizes: list[int], scratch: Path) -> dict:
    """Exact neighbours (blocked products) against UMAP's NN-descent on the scale run's embeddings."""
    embeddings = scratch / "scale-100000" / "results" / "embeddings"
    if not embeddings.is_dir():
        raise SystemExit("run `bench.py scale --size 100000` first: this reads its embeddings.")
    result = {}
    for size in sizes:
        reference = scratch / f"neighbours-{size}.npy"
        exact = python_child(NEIGHBOURS, "exact", str(size), "-", str(embeddings), str(reference))
        descent = python_child(NEIGHBOURS, "nndescent", str(size), str(reference), str(embeddings))
        result[str(size)] = {
            method: {
                "seconds_in_process": round(run["result"]["seconds"], 1),
                "wall_seconds": run["seconds"],
                "peak_rss_mib": run["peak_rss_mib"],
                "recall": round(run["result"]["recall"], 4),
            }
            for method, run in (("exact", exact), ("nn-descent", descent))
        }
    return result


def scale_runs(results: dict) -> dict:
    """The scale runs by label (one column each); a result of the earlier one-run layout is dropped."""
    runs = results.get("scale", {})
    return {label: run for label, run in runs.items() if isinstance(run, dict) and "label" in run}


def storage_count(path: Path) -> int:
    with open(path, encoding="utf-8") as lines:
        return sum(1 for _ in lines)


# ---------------------------------------------------------------- results


def render_markdown(results: dict) -> str:
    lines = [
        "# Benchmark results",
        "",
        "Written by `bench/bench.py` (see `make bench`); the numbers come from `results.json`. Each "
        "size's figures come from one run on the machine named below; every figure is wall-clock "
        "seconds, and every RSS is the peak resident memory of one process (MiB).",
        "",
    ]
    sizes = results.get("pipeline", {})
    if sizes:
        order = sorted(sizes, key=lambda key: (sizes[key]["size"], key))
        header = "| | " + " | ".join(run_heading(key, sizes[key]) for key in order) + " |"
        lines += ["## Pipeline", "", header, "|---|" + "---:|" * len(order)]

        def row(label, render):
            cells = []
            for size in order:
                try:
                    cells.append(render(sizes[size]))
                except KeyError:
                    cells.append("–")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")

        row("embedding backend", lambda r: r["backend"])
        row("cold end-to-end (s)", lambda r: f"{r['cold_seconds']:.1f}")
        row("embedding step alone (s)", lambda r: f"{r['embedding_only_seconds']:.1f}")
        row("embedding speed (abstracts/s)", lambda r: f"{r['embedding_docs_per_second']:.1f}")
        row(
            f"rerun after a new {NEW_DUMP_SIZE:,}-abstract dump (s)",
            lambda r: f"{r['new_dump_rerun_seconds']:.1f}",
        )
        row("no-op rerun (s)", lambda r: f"{r['noop_seconds']:.1f}")
        row("plain BERTopic fit_transform (s)", lambda r: f"{r['plain_bertopic_seconds']:.1f}")
        row("plain BERTopic peak RSS (MiB)", lambda r: f"{r['plain_bertopic_peak_rss_mib']:.0f}")
        row(
            "**cold / embedding alone** (target ≤ 1.3)",
            lambda r: f"{r['ratios']['cold_over_embedding_only']:.2f}",
        )
        row(
            "**new-dump rerun / cold** (target ≤ 0.25)",
            lambda r: f"{r['ratios']['new_dump_rerun_over_cold']:.2f}",
        )
        row(
            "**plain BERTopic / ours (cold)** (target ≥ 1.3)",
            lambda r: f"{r['ratios']['plain_bertopic_over_cold']:.2f}",
        )
        row("load average at the end (2 cores)", lambda r: f"{r['load_average_at_end']:.1f}")
        lines += [
            "",
            f"The targets are set for 10,000 abstracts: with fewer, the fixed costs (imports, model "
            f"loading, numba compilation) weigh more, and the new {NEW_DUMP_SIZE:,}-abstract dump "
            "is a larger share of the corpus. The plain BERTopic baseline embeds with torch (fp32), as it comes.",
        ]
        lines += rule_table(
            "Per rule, cold run (summed job seconds / largest peak RSS MiB / jobs)",
            sizes,
            order,
            "cold_rules",
        )
        lines += rule_table(
            f"Per rule, rerun after the new {NEW_DUMP_SIZE:,}-abstract dump", sizes, order, "new_dump_rules"
        )
    quality = results.get("quality")
    if quality:
        lines += [
            "",
            f"## Embedding backends on IJCAI ({quality['corpus']})",
            "",
            "Each backend's vectors clustered with the pipeline's reduce and cluster functions and "
            "default settings; NMI/ARI against the area labels (used only for scoring).",
            "",
            "| backend | NMI | ARI | NMI − torch | clusters | outliers | cosine to torch (min / mean) | abstracts/s |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for backend, r in quality["backends"].items():
            lines.append(
                f"| {backend} | {r['nmi']:.4f} | {r['ari']:.4f} | {r.get('nmi_minus_torch', 0):+.4f} | {r['clusters']} | "
                f"{r['outlier_share']:.1%} | {r.get('cosine_to_torch_min', 1):.4f} / {r.get('cosine_to_torch_mean', 1):.4f} | "
                f"{r['docs_per_second']:.1f} |"
            )
    speed = results.get("speed")
    if speed:
        lines += [
            "",
            "## Embedding speed, backends interleaved",
            "",
            f"{speed['docs']} IJCAI abstracts, each backend in turn, {speed['rounds']} rounds in one process "
            f"(median; load average {speed['load_average_at_end']} on 2 cores at the end).",
            "",
            "| backend | abstracts/s | speed-up over torch |",
            "|---|---:|---:|",
        ]
        for backend, r in speed["backends"].items():
            lines.append(f"| {backend} | {r['docs_per_second']:.1f} | {r['speedup_over_torch']:.2f}× |")
    runs = list(scale_runs(results).values())
    if runs:
        first = runs[0]
        lines += [
            "",
            f"## {first['size']:,} abstracts, parse to report",
            "",
            f"{first['dumps']} dumps of {SCALE_DUMP_SIZE:,}: the shared corpora's {first['real_abstracts']:,} real "
            f"abstracts, then copies with {SCALE_DROPPED_WORDS:.0%} of their words dropped; the embedding cache "
            f"is filled first (the real abstracts embedded with {first['backend']}, each copy its original's vector "
            f"with Gaussian noise, sd {first['noise_sd']}), so the embed jobs only read it. Per rule: summed job "
            "seconds / largest peak RSS (MiB).",
            "",
            "| rule | " + " | ".join(run["label"] for run in runs) + " |",
            "|---|" + "---:|" * len(runs),
        ]
        for rule in ["parse", "corpus", "embed", "reduce", "map", "cluster", "topics", "evaluate", "report"]:
            cells = [
                f"{run['rules'][rule]['seconds']:.1f} / {run['rules'][rule]['peak_rss_mib']:.0f}"
                if rule in run["rules"]
                else "–"
                for run in runs
            ]
            lines.append(f"| {rule} | " + " | ".join(cells) + " |")
        for label, key, unit in (
            (
                "**critical path after the embeddings** (target ≤ 600 s)",
                "critical_path_after_embeddings_seconds",
                "s",
            ),
            ("**largest peak RSS** (target ≤ 8192 MiB)", "peak_rss_mib", "MiB"),
            ("**no-op rerun** (target ≤ 5 s)", "noop_seconds", "s"),
            ("dry run", "dry_run_seconds", "s"),
            ("load average at the end (2 cores)", "load_average_at_end", ""),
        ):
            lines.append(
                f"| {label} | " + " | ".join(f"{run[key]:.1f} {unit}".strip() for run in runs) + " |"
            )
        lines.append(
            "| settings | " + " | ".join(", ".join(run["overrides"]) or "config.yaml" for run in runs) + " |"
        )
    neighbours = results.get("neighbours")
    if neighbours:
        lines += [
            "",
            "## Nearest neighbours: exact (blocked products) against UMAP's NN-descent",
            "",
            "The scale run's embeddings, first N papers; each method in a fresh process (seconds of the "
            "search itself, NN-descent's numba compilation included; recall against the exact neighbours).",
            "",
            "| papers | exact (s) | exact peak RSS (MiB) | NN-descent (s) | NN-descent peak RSS (MiB) | NN-descent recall |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        for size, r in neighbours.items():
            exact, descent = r["exact"], r["nn-descent"]
            lines.append(
                f"| {int(size):,} | {exact['seconds_in_process']:.1f} | {exact['peak_rss_mib']:.0f} | "
                f"{descent['seconds_in_process']:.1f} | {descent['peak_rss_mib']:.0f} | {descent['recall']:.3f} |"
            )
    machine = results.get("machine")
    if machine:
        lines += ["", f"Machine: {machine}"]
    return "\n".join(lines) + "\n"


def save(update) -> None:
    results = json.loads(RESULTS_JSON.read_text()) if RESULTS_JSON.exists() else {}
    update(results)
    results["machine"] = (
        f"{os.cpu_count()} CPU cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB memory, no GPU used"
    )
    RESULTS_JSON.write_text(json.dumps(results, indent=2) + "\n")
    RESULTS_MD.write_text(render_markdown(results))
    print(RESULTS_MD.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scratch", type=Path, default=BENCH / "scratch", help="where the scratch copies go")
    commands = parser.add_subparsers(dest="command", required=True)
    pipeline = commands.add_parser("pipeline")
    pipeline.add_argument("--size", type=int, default=10000)
    pipeline.add_argument(
        "--backend",
        choices=["auto", "torch", "torch-bf16", "onnx", "onnx-int8"],
        help="default: config.yaml's",
    )
    pipeline.add_argument("--skip-baseline", action="store_true")
    quality = commands.add_parser("quality")
    quality.add_argument("--backends", nargs="+", default=["torch", "torch-bf16", "onnx", "onnx-int8"])
    speed = commands.add_parser("speed")
    speed.add_argument("--backends", nargs="+", default=["torch", "torch-bf16", "onnx", "onnx-int8"])
    speed.add_argument("--docs", type=int, default=128)
    speed.add_argument("--rounds", type=int, default=3)
    scale = commands.add_parser("scale")
    scale.add_argument("--size", type=int, default=100000)
    scale.add_argument("--noise", type=float, default=0.02)
    neighbours = commands.add_parser("neighbours")
    neighbours.add_argument("--sizes", type=int, nargs="+", default=[25000, 50000, 100000])
    scale.add_argument("--label", default="config.yaml", help="the run's column in results.md")
    scale.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="a config value for this run, e.g. umap.fit_sample_size=25000",
    )
    arguments = parser.parse_args()

    if arguments.command == "pipeline":
        result = bench_pipeline(arguments.size, arguments.backend, arguments.scratch, arguments.skip_baseline)
        key = run_key(arguments.size, arguments.backend)
        save(lambda results: results.setdefault("pipeline", {}).__setitem__(key, result))
    elif arguments.command == "quality":
        result = bench_quality(arguments.backends, arguments.scratch)
        save(lambda results: results.__setitem__("quality", result))
    elif arguments.command == "speed":
        result = bench_speed(arguments.backends, arguments.docs, arguments.rounds, arguments.scratch)
        save(lambda results: results.__setitem__("speed", result))
    elif arguments.command == "neighbours":
        result = bench_neighbours(arguments.sizes, arguments.scratch)
        save(lambda results: results.__setitem__("neighbours", result))
    else:
        result = bench_scale(
            arguments.size, arguments.scratch, arguments.noise, arguments.label, arguments.overrides
        )

        save(lambda results: results.__setitem__("scale", {**scale_runs(results), arguments.label: result}))


if __name__ == "__main__":
    main()
