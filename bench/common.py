"""What the benchmarks share: the workflow in a working folder (tests.workflow_support, which the
tests use too), the benchmark corpora, the rules' benchmark files, and a function measured in a
fresh process.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.workflow_support import (  # noqa: F401  (the benchmarks import these from here)
    ARXIV,
    CHROMIUM,
    CHROMIUM_ARGS,
    CORPORA,
    IJCAI,
    OFFLINE,
    REPO,
    SEEDS,
    default_config,
    executed_jobs,
    make_workdir,
    planned_jobs,
    run_workflow,
    snakemake_command,
    workdir_config,
    write_config,
)

BENCH = REPO / "bench"
# A fresh process imports the package and the benchmarks from this checkout.
CHILD_ENV = {
    **os.environ,
    **OFFLINE,
    "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO / "workflow"), str(REPO), os.environ.get("PYTHONPATH")])
    ),
}
# The benchmarks' dumps: a new dump of this many abstracts for the pipeline's rerun, and the scale
# run's dumps of this many, each copy of a real abstract with this share of its words dropped.
NEW_DUMP_SIZE = 1000
SCALE_DUMP_SIZE = 1000
SCALE_DROPPED_WORDS = 0.1


# ---------------------------------------------------------------- corpora and benchmark files


def read_corpus(path: Path) -> list[dict]:
    """The records of a shared JSON Lines corpus."""
    if not path.exists():
        raise SystemExit(f"{path} is absent: the benchmark needs the shared corpora beside the repository.")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def text_dump(title: str, abstracts: list[str]) -> str:
    """A plain-text dump: its title, then the abstracts, a blank line between each."""
    return title + "\n\n" + "\n\n".join(abstracts) + "\n"


def rule_benchmarks(workdir: Path) -> dict:
    """Per rule: jobs, summed wall and CPU seconds, the longest job, largest peak RSS (MiB), from
    the rules' benchmark files.
    """
    rules: dict[str, dict] = {}
    root = workdir / "results" / "benchmarks"
    for path in sorted(root.rglob("*.tsv")):
        relative = path.relative_to(root)
        rule = relative.parts[0].removesuffix(".tsv")
        if rule == "embed" and len(relative.parts) == 3:  # embed/{dump}/{shard}-of-{shards}.tsv
            rule = "embed_shard"
        elif rule == "embed" and len(relative.parts) == 2:  # embed/{dump}.tsv
            rule = "embed_gather"
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


# ---------------------------------------------------------------- measuring in a fresh process


def measured(command: list[str], env: dict | None = None) -> dict:
    """Run ``command``; return its wall and CPU seconds, peak RSS (MiB) and output; fail loudly on error."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, env=env or CHILD_ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
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


def measured_snakemake(workdir: Path, *args: str) -> dict:
    """The workflow in ``workdir`` on 2 cores, quiet, measured; without its output."""
    run = measured(snakemake_command(workdir, "--cores", "2", "--quiet", "--rerun-incomplete", *args))
    run.pop("output")
    return run


def encoder_arguments(workdir: Path, embedding: dict) -> dict:
    """The encoder's settings from a config's ``embedding`` section, as the functions a benchmark
    runs in a fresh process take them (the model cache's folder in ``workdir``).
    """
    return {
        "model": embedding["model"],
        "backend": embedding["backend"],
        "max_seq_length": embedding["max_seq_length"],
        "model_cache_dir": str(workdir / embedding["model_cache_dir"]),
        "batch_size": embedding["batch_size"],
        "threads": embedding["threads"],
    }


def in_fresh_process(function, **arguments) -> dict:
    """``function(**arguments)`` run by ``python -m bench.child`` in a fresh interpreter, so that its
    peak RSS and imports are its own: the measurement, with the function's JSON result as ``result``.
    """
    module = function.__module__
    if module == "__main__":  # the benchmark itself, started as `python -m bench.<name>`
        module = sys.modules["__main__"].__spec__.name
    target = f"{module}:{function.__qualname__}"
    run = measured([sys.executable, "-m", "bench.child", target, json.dumps(arguments)])
    run["result"] = json.loads(run.pop("output").strip().splitlines()[-1])
    return run


def output_arguments(parser) -> None:
    """The options every benchmark module takes: where its scratch copies and its results go."""
    parser.add_argument("--scratch", type=Path, default=BENCH / "scratch", help="where the scratch copies go")
    parser.add_argument("--results", type=Path, default=BENCH, help="the folder of results.json and .md")
