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
    return {
        "seconds": round(seconds, 2),
        # On a shared machine the CPU seconds vary less than the wall seconds with the others' load.
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "output": output,
    }


def python_child(code: str, *args: str) -> dict:
    """Run a snippet in a fresh interpreter; its last stdout line is parsed as JSON into ``result``."""
    run = measured([sys.executable, "-c", code, *args])
    run["result"] = json.loads(run.pop("output").strip().splitlines()[-1])
    return run


def snakemake_command(workdir: Path, *args: str) -> list[str]:
    """Snakemake on the repository's Snakefile in ``workdir``, on the machine's 2 cores, quiet."""
    return [
        str(SNAKEMAKE),
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--cores",
        "2",
        "--quiet",
        *args,
    ]


def snakemake(workdir: Path, *args: str) -> dict:
    run = measured(snakemake_command(workdir, "--rerun-incomplete", *args))
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
        entry = rules.setdefault(
            rule, {"jobs": 0, "seconds": 0.0, "max_seconds": 0.0, "cpu_seconds": 0.0, "peak_rss_mib": 0.0}
        )
        entry["jobs"] += 1
        entry["seconds"] = round(entry["seconds"] + float(row["s"]), 2)
        entry["cpu_seconds"] = round(entry["cpu_seconds"] + float(row.get("cpu_time") or 0), 2)
        entry["max_seconds"] = max(entry["max_seconds"], round(float(row["s"]), 2))
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
    if "publish" in result["cold_rules"]:  # the job that puts the run's results in place
        found["publish_over_cold"] = result["cold_rules"]["publish"]["seconds"] / result["cold_seconds"]
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
    """Seconds downstream of the embeddings along the longest chain of jobs, as if each had a
    core of its own: the neighbour graph, then the longest projection (reduce or a consensus run,
    then cluster; or the map), then topics, evaluate, report.
    """
    seconds = {rule: entry.get("max_seconds", entry["seconds"]) for rule, entry in rules.items()}
    projections = max(seconds.get("reduce", 0), seconds.get("consensus_run", 0))
    return round(
        seconds.get("neighbours", 0)
        + max(projections + seconds.get("cluster", 0), seconds.get("map", 0))
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

    parsed = measured(snakemake_command(workdir, "--until", "corpus"))
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
    embedded = snakemake(workdir, "--until", "embed")
    downstream = snakemake(workdir)
    rules = rule_benchmarks(workdir)
    noop = snakemake(workdir)
    dry_run = measured(snakemake_command(workdir, "--dry-run"))
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
        "embed_jobs_seconds": embedded["seconds"],
        "downstream_seconds": downstream["seconds"],
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


REDUCE_PATH = """
import glob, json, logging, sys, time
import numpy as np
from papertopics import storage
from papertopics.reduce import approximate_neighbours, exact_neighbours, umap_project
from papertopics.sizing import resolve_n_neighbors
method, size, seed, embeddings, neighbours_in, out = sys.argv[1:]
size, seed = int(size), int(seed)
vectors = np.vstack([storage.read_arrays(p)["vectors"] for p in sorted(glob.glob(embeddings + "/*.npz"))])[:size]
k = resolve_n_neighbors("auto", len(vectors))
phases = {}

class Phases(logging.Handler):  # the sampled fit's own split: fit on the sample, transform of the rest
    def emit(self, record):
        if record.msg.startswith("UMAP fitted on"):
            phases["fit"], phases["transform"] = record.args[1], record.args[3]

logging.getLogger("papertopics.reduce").addHandler(Phases())
logging.getLogger("papertopics.reduce").setLevel(logging.INFO)
start = time.perf_counter()
if method.startswith("sampled:"):
    coordinates = umap_project(vectors, 5, k, 0.0, "cosine", seed, fit_sample_size=int(method.split(":")[1]))
else:
    if neighbours_in != "-":
        stored = np.load(neighbours_in)
        neighbours = (stored["indices"], stored["distances"])
    elif method == "exact":
        neighbours = exact_neighbours(vectors, k, "cosine")
    else:
        neighbours = approximate_neighbours(vectors, k, "cosine", seed)
        np.savez(out + ".neighbours.npz", indices=neighbours[0], distances=neighbours[1])
    phases["neighbours"] = time.perf_counter() - start
    layout = time.perf_counter()
    coordinates = umap_project(vectors, 5, k, 0.0, "cosine", seed, neighbours=(neighbours[0].copy(), neighbours[1].copy()))
    phases["layout"] = time.perf_counter() - layout
phases["total"] = time.perf_counter() - start
np.save(out, coordinates)
print(json.dumps({"papers": len(vectors), "n_neighbors": k, "phases": phases}))
"""

REDUCE_SCORE = """
import glob, json, sys
import numpy as np
from sklearn.metrics import adjusted_rand_score
from papertopics import storage
from papertopics.cluster import cluster_points
from papertopics.topics import assign_outliers
size, embeddings, queries, hdbscan, *outputs = sys.argv[1:]
vectors = np.vstack([storage.read_arrays(p)["vectors"] for p in sorted(glob.glob(embeddings + "/*.npz"))])[:int(size)]
units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
chosen = np.random.default_rng(0).choice(len(units), size=int(queries), replace=False)
k = 15

def nearest(similar):  # the k most similar papers to each query, the query left out, 200 queries at a time
    found = []
    for start in range(0, len(chosen), 200):
        block = chosen[start:start + 200]
        similarity = similar(block)
        similarity[np.arange(len(block)), block] = -np.inf
        found.append(np.argpartition(-similarity, k, axis=1)[:, :k])
    return np.vstack(found)

truth = nearest(lambda block: units[block] @ units.T)
scores, partitions = {}, {}
for path in outputs:
    points = np.load(path).astype(np.float64)
    norms = (points ** 2).sum(axis=1)
    found = nearest(lambda block: 2 * points[block] @ points.T - norms[block][:, None] - norms[None, :])
    preserved = np.mean([len(set(a) & set(b)) / k for a, b in zip(truth, found)])
    labels, _ = cluster_points(points, **json.loads(hdbscan))
    partitions[path] = assign_outliers(vectors, labels)
    scores[path] = {"neighbours_preserved": float(preserved), "topics": int(len(set(labels.tolist()) - {-1})),
                    "outlier_share": float((labels == -1).mean())}
for path in outputs:
    scores[path]["ari"] = {other: float(adjusted_rand_score(partitions[path], partitions[other])) for other in outputs}
print(json.dumps(scores))
"""

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


def bench_reduce_paths(size: int, scratch: Path, queries: int, only: list[str] | None) -> dict:
    """Ways to make the 5-d cluster space of ``size`` papers (the scale run's embeddings), each in
    a fresh process, one after the other: seconds per phase and peak RSS; then how well each keeps
    the papers' nearest neighbours (exact cosine neighbours of ``queries`` seeded papers, against
    their nearest in the 5-d space) and how far HDBSCAN's topics (outliers joined, as the topics
    stage does) agree across paths and seeds (ARI). ``only``: run these paths, keep the others'
    figures (and outputs, which are scored again) from earlier runs at the same size.
    """
    embeddings = scratch / "scale-100000" / "results" / "embeddings"
    if not embeddings.is_dir():
        raise SystemExit("run `bench.py scale --size 100000` first: this reads its embeddings.")
    folder = scratch / f"reduce-paths-{size}"
    folder.mkdir(parents=True, exist_ok=True)
    earlier = json.loads(RESULTS_JSON.read_text()).get("reduce_paths", {}) if RESULTS_JSON.exists() else {}
    runs = dict(earlier.get("paths", {})) if earlier.get("papers") == size and only else {}
    output = {name: folder / f"{index}.npy" for index, (name, *_) in enumerate(REDUCE_PATHS)}
    for name, method, seed, reuse in REDUCE_PATHS:
        if only and name not in only:
            continue
        neighbours = str(output[reuse]) + ".neighbours.npz" if reuse else "-"
        run = python_child(
            REDUCE_PATH, method, str(size), str(seed), str(embeddings), neighbours, str(output[name])
        )
        runs[name] = {
            "seconds": run["seconds"],
            "cpu_seconds": run["cpu_seconds"],
            "peak_rss_mib": run["peak_rss_mib"],
            "phases": {phase: round(value, 1) for phase, value in run["result"]["phases"].items()},
            "load_average": round(os.getloadavg()[0], 2),
        }
        print(name, runs[name], flush=True)
        measured_so_far = {"papers": size, "queries": queries, "paths": runs}
        save(lambda results, figures=measured_so_far: results.__setitem__("reduce_paths", figures))
    scored = {name: path for name, path in output.items() if name in runs and path.exists()}
    hdbscan = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))["hdbscan"]
    hdbscan.pop("consensus_runs")
    score = python_child(
        REDUCE_SCORE,
        str(size),
        str(embeddings),
        str(queries),
        json.dumps(hdbscan),
        *map(str, scored.values()),
    )
    by_path = {str(path): name for name, path in scored.items()}
    for path, figures in score["result"].items():
        runs[by_path[path]].update(
            neighbours_preserved=round(figures["neighbours_preserved"], 4),
            topics=figures["topics"],
            outlier_share=round(figures["outlier_share"], 4),
            ari={by_path[other]: round(value, 4) for other, value in figures["ari"].items()},
        )
    return {"papers": size, "queries": queries, "paths": runs, "scoring_seconds": score["seconds"]}


CONSENSUS_NEIGHBOURS = """
import json, sys, time
from pathlib import Path
import numpy as np
sys.path.insert(0, sys.argv[1])
import quality
from papertopics.consensus import cluster_runs, consensus_seeds, mean_pairwise_ari
from papertopics.embed import embedding_text
from papertopics.reduce import approximate_neighbours, neighbour_graph, reduce_embeddings
from papertopics.sizing import resolve_n_neighbors
from papertopics.topics import assign_outliers
corpus, cache_dir, mode = Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
config = quality.default_config()
papers = quality.load_corpus(corpus)
embeddings = quality.cached_embeddings(papers, corpus, config["embedding"], cache_dir)
texts = [embedding_text(p) for p in papers]
umap = {**config["umap"], "exact_neighbours_up_to": len(papers) if mode == "exact" else 0}
assert umap["word_weight"] == 0, "the graphs below are searched on the embeddings alone"
k = resolve_n_neighbors(umap["n_neighbors"], len(papers))
hdbscan = {k: v for k, v in config["hdbscan"].items() if k != "consensus_runs"}
seconds = {"neighbours": 0.0, "projections": 0.0}

def timed(phase, compute):
    start = time.perf_counter()
    value = compute()
    seconds[phase] += time.perf_counter() - start
    return value

def the_graph():  # what the neighbours job searches: exact, or NN-descent with its fixed seed
    knobs = ("n_neighbors", "metric", "word_weight", "word_dimensions", "fit_sample_size", "exact_neighbours_up_to")
    return neighbour_graph(embeddings, texts, random_state=umap["random_state"], **{k: umap[k] for k in knobs})

every_seed = timed("neighbours", the_graph) if mode.startswith("NN-descent, one graph for every") else None
partitions = []
for seed in quality.STABILITY_SEEDS:
    per_seed = None
    if mode == "exact":
        per_seed = timed("neighbours", the_graph)
    elif mode.startswith("NN-descent, a graph per UMAP seed"):
        per_seed = timed("neighbours", lambda: approximate_neighbours(embeddings, k, umap["metric"], seed))
    spaces = []
    for run_seed in consensus_seeds(seed, config["hdbscan"]["consensus_runs"]):
        graph = every_seed or per_seed
        if mode.startswith("NN-descent, a graph per consensus run"):
            graph = timed("neighbours", lambda: approximate_neighbours(embeddings, k, umap["metric"], run_seed))
        spaces.append(timed("projections", lambda: reduce_embeddings(
            embeddings, texts, neighbours=graph, **{**umap, "random_state": run_seed})[0]))
    clusters = cluster_runs(spaces, embeddings, **hdbscan)[0]
    partitions.append(assign_outliers(embeddings, clusters))
print(json.dumps({"papers": len(papers), "seeds": list(quality.STABILITY_SEEDS), "ari": mean_pairwise_ari(partitions),
                  "topics": [int(len(set(p.tolist()) - {-1})) for p in partitions], "seconds": seconds}))
"""

CONSENSUS_MODES = (
    "exact",
    "NN-descent, a graph per consensus run (seeded by its UMAP seed)",
    "NN-descent, a graph per UMAP seed (seeded by it), shared by its runs",
    "NN-descent, one graph for every seed (fixed search seed; the default)",
)


def bench_consensus_neighbours(scratch: Path, modes: list[str]) -> dict:
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
        run = python_child(CONSENSUS_NEIGHBOURS, str(BENCH), str(IJCAI), str(cache), mode)
        result[mode] = {
            **run["result"],
            "ari": round(run["result"]["ari"], 4),
            "seconds": {phase: round(value, 1) for phase, value in run["result"]["seconds"].items()},
            "wall_seconds": run["seconds"],
            "load_average": round(os.getloadavg()[0], 2),
        }
        print(mode, result[mode], flush=True)
    return result


def scale_runs(results: dict) -> dict:
    """The scale runs by label (one column each). A result of the earlier one-run layout (before the
    whole-workflow benchmark: reduce, cluster and topics only) becomes the column "before".
    """
    runs = results.get("scale", {})
    if "stages" in runs:
        return {
            "before": {
                "label": "before",
                "legacy": True,
                "size": runs["size"],
                "resampled_from": runs["resampled_from"],
                "fit_sample_size": runs["fit_sample_size"],
                "rules": {stage: {"jobs": 1, **figures} for stage, figures in runs["stages"].items()},
                "peak_rss_mib": runs["peak_rss_mib"],
                "critical_path_after_embeddings_seconds": runs["seconds"],
            }
        }
    return {label: run for label, run in runs.items() if isinstance(run, dict) and "label" in run}


SCALE_RULES = (
    "parse",
    "corpus",
    "embed",
    "neighbours",
    "reduce",
    "consensus_run",
    "map",
    "cluster",
    "topics",
    "changes",
    "evaluate",
    "report",
)


def scale_table(runs: list[dict]) -> list[str]:
    """Markdown lines: the scale runs side by side, per rule and against the targets."""
    current = [run for run in runs if not run.get("legacy")]
    lines = ["", f"## {runs[0]['size']:,} abstracts, parse to report", ""]
    if current:
        first = current[0]
        lines += [
            f"{first['dumps']} dumps of {SCALE_DUMP_SIZE:,}: the shared corpora's {first['real_abstracts']:,} "
            f"real abstracts, then copies with {SCALE_DROPPED_WORDS:.0%} of their words dropped; the "
            f"embedding cache is filled first (the real abstracts embedded with {first['backend']}, each "
            f"copy its original's vector with Gaussian noise, sd {first['noise_sd']}), so the embed jobs "
            "only read it. Per rule: summed job seconds (their CPU seconds, which vary less with the "
            "others' load on a shared machine) / largest peak RSS (MiB), and the number of jobs "
            "where more than one. *Downstream wall* is the run after the embed jobs, timed whole on the "
            "machine's 2 cores; the *longest chain* adds the longest job of each step, as if each job had "
            "a core of its own.",
        ]
    if len(current) < len(runs):
        before = next(run for run in runs if run.get("legacy"))
        lines += [
            "",
            f"*before*: the earlier `bench-scale` ({before['size']:,} resampled copies of "
            f"{before['resampled_from']:,} abstracts; reduce, cluster and topics only; UMAP fitted on a "
            f"{before['fit_sample_size']:,}-paper sample, the rest placed by `transform`, and the map job "
            "repeating that work beside reduce); its chain is reduce + cluster + topics.",
        ]
    lines += [
        "",
        "| rule | " + " | ".join(run["label"] for run in runs) + " |",
        "|---|" + "---:|" * len(runs),
    ]
    for rule in SCALE_RULES:
        cells = []
        for run in runs:
            entry = run["rules"].get(rule)
            jobs = f" ({entry['jobs']} jobs)" if entry and entry["jobs"] > 1 else ""
            cpu = f" ({entry['cpu_seconds']:.0f} CPU)" if entry and "cpu_seconds" in entry else ""
            cells.append(f"{entry['seconds']:.1f}{cpu} / {entry['peak_rss_mib']:.0f}{jobs}" if entry else "–")
        if any(cell != "–" for cell in cells):
            lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    for label, key, unit in (
        (
            "**longest chain after the embeddings** (target ≤ 600 s)",
            "critical_path_after_embeddings_seconds",
            "s",
        ),
        ("**downstream wall, 2 cores** (target ≤ 600 s)", "downstream_seconds", "s"),
        ("**largest peak RSS** (target ≤ 8192 MiB)", "peak_rss_mib", "MiB"),
        ("**no-op rerun** (target ≤ 5 s)", "noop_seconds", "s"),
        ("dry run", "dry_run_seconds", "s"),
        ("load average at the end (2 cores)", "load_average_at_end", ""),
    ):
        cells = [f"{run[key]:.1f} {unit}".strip() if key in run else "–" for run in runs]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append(
        "| settings | "
        + " | ".join(
            "earlier defaults" if run.get("legacy") else ", ".join(run["overrides"]) or "config.yaml"
            for run in runs
        )
        + " |"
    )
    return lines


def reduce_paths_table(result: dict | None) -> list[str]:
    if not result:
        return []
    names = list(result["paths"])
    lines = [
        "",
        f"## The cluster space of {result['papers']:,} papers: sampled fit + transform against a full fit",
        "",
        "The scale run's embeddings; each path in a fresh process, one after the other (UMAP's "
        "numba compilation included). *Neighbours kept*: of the 15 nearest papers by cosine of "
        f"{result['queries']:,} seeded papers, the share that are among their 15 nearest in the 5-d "
        "space. ARI: HDBSCAN's topics (config.yaml's settings, outliers joined to topics), each path "
        "against the first full fit.",
        "",
        "| path | seconds | CPU seconds | phases (s) | peak RSS (MiB) | neighbours kept | topics "
        "| ARI to full fit, seed 42 | load average |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    reference = "full fit, NN-descent" if "full fit, NN-descent" in names else names[0]
    for name in names:
        run = result["paths"][name]
        phases = ", ".join(
            f"{phase} {value:.0f}" for phase, value in run["phases"].items() if phase != "total"
        )
        cells = [
            f"{run['seconds']:.1f}",
            f"{run['cpu_seconds']:.1f}" if "cpu_seconds" in run else "–",
            phases or "–",
            f"{run['peak_rss_mib']:.0f}",
            f"{run['neighbours_preserved']:.3f}" if "neighbours_preserved" in run else "–",
            str(run.get("topics", "–")),
            f"{run['ari'][reference]:.3f}" if reference in run.get("ari", {}) else "–",
            f"{run['load_average']:.1f}",
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def consensus_neighbours_table(result: dict | None) -> list[str]:
    if not result:
        return []
    first = next(iter(result.values()))
    lines = [
        "",
        "## Consensus runs: one shared neighbour graph or one per run (IJCAI)",
        "",
        f"{first['papers']:,} IJCAI abstracts; the consensus topics (hdbscan.consensus_runs) for UMAP seeds "
        f"{'/'.join(map(str, first['seeds']))}, their seed stability as `make quality` computes it (mean "
        "pairwise ARI, outliers joined to topics). Each mode in a fresh process; seconds summed over the seeds.",
        "",
        "| neighbour graph | seed stability (ARI) | topics per seed | neighbour search (s) | projections (s) "
        "| load average |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for mode, run in result.items():
        lines.append(
            f"| {mode} | {run['ari']:.3f} | {'/'.join(map(str, run['topics']))} | "
            f"{run['seconds']['neighbours']:.1f} | {run['seconds']['projections']:.1f} | {run['load_average']:.1f} |"
        )
    return lines


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
        row("**publish step / cold** (target ≤ 0.02)", lambda r: f"{r['ratios']['publish_over_cold']:.4f}")
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
        lines += scale_table(runs)
    lines += reduce_paths_table(results.get("reduce_paths"))
    lines += consensus_neighbours_table(results.get("consensus_neighbours"))
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
    consensus_neighbours = commands.add_parser("consensus-neighbours")
    consensus_neighbours.add_argument(
        "--modes", nargs="+", default=list(CONSENSUS_MODES), choices=CONSENSUS_MODES
    )
    reduce_paths = commands.add_parser("reduce-paths")
    reduce_paths.add_argument("--size", type=int, default=100000)
    reduce_paths.add_argument("--queries", type=int, default=2000)
    reduce_paths.add_argument("--only", nargs="+", help="run only these paths (their names)")
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
    elif arguments.command == "consensus-neighbours":
        result = bench_consensus_neighbours(arguments.scratch, arguments.modes)
        save(lambda results: results.setdefault("consensus_neighbours", {}).update(result))
    elif arguments.command == "reduce-paths":
        result = bench_reduce_paths(arguments.size, arguments.scratch, arguments.queries, arguments.only)
        save(lambda results: results.__setitem__("reduce_paths", result))
    else:
        result = bench_scale(
            arguments.size, arguments.scratch, arguments.noise, arguments.label, arguments.overrides
        )

        save(lambda results: results.__setitem__("scale", {**scale_runs(results), arguments.label: result}))


if __name__ == "__main__":
    main()
