"""What the benchmarks and the tests share: the repository's paths, a working folder holding a
config and dumps, the workflow run there by Snakemake, the jobs a run plans, the rules' benchmark
files, and a function measured in a fresh process.
"""

from __future__ import annotations

import copy
import csv
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
SEEDS = sorted((REPO / "data" / "raw").glob("*.txt"))
SHARED = REPO.parent / "shared"
CORPORA = SHARED / "corpora"
ARXIV = CORPORA / "arxiv_cs_daily_2025_2026.jsonl.gz"
IJCAI = CORPORA / "ijcai_2020_2024_areas.jsonl.gz"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
# Every workflow run of the tests and benchmarks is offline: a model that is not installed fails
# instead of downloading.
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
# A fresh process imports the package and the benchmarks from this checkout.
CHILD_ENV = {
    **os.environ,
    **OFFLINE,
    "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO / "workflow"), str(REPO), os.environ.get("PYTHONPATH")])
    ),
}
# Debian's Chromium (`make browser`), headless and without a sandbox, as the project's set-up installs it.
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
# The benchmarks' dumps: a new dump of this many abstracts for the pipeline's rerun, and the scale
# run's dumps of this many, each copy of a real abstract with this share of its words dropped.
NEW_DUMP_SIZE = 1000
SCALE_DUMP_SIZE = 1000
SCALE_DROPPED_WORDS = 0.1


# ---------------------------------------------------------------- a working folder


def default_config() -> dict:
    return yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))


def write_config(root: Path, **overrides) -> dict:
    """config.yaml in ``root``: the defaults with ``overrides`` (one level deep: a section's dict
    updates that section, any other value replaces it).
    """
    config = copy.deepcopy(default_config())
    for section, value in overrides.items():
        if isinstance(value, dict):
            config[section] = {**config.get(section, {}), **value}
        else:
            config[section] = value
    (root / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return config


def make_workdir(root: Path, dumps: dict[str, bytes | str] | None = None, **overrides) -> Path:
    """A working folder holding config.yaml (defaults plus ``overrides``, see write_config) and
    ``data/raw`` with the given dumps (the shipped seeds when ``dumps`` is None).
    """
    raw = root / "data" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for name, content in (
        {seed.name: seed.read_bytes() for seed in SEEDS} if dumps is None else dumps
    ).items():
        (raw / name).write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    write_config(root, **overrides)
    return root


def workdir_config(root: Path) -> dict:
    """The config a working folder's runs read."""
    return yaml.safe_load((root / "config.yaml").read_text(encoding="utf-8"))


def read_corpus(path: Path) -> list[dict]:
    """The records of a shared JSON Lines corpus."""
    if not path.exists():
        raise SystemExit(f"{path} is absent: the benchmark needs the shared corpora beside the repository.")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def text_dump(title: str, abstracts: list[str]) -> str:
    """A plain-text dump: its title, then the abstracts, a blank line between each."""
    return title + "\n\n" + "\n\n".join(abstracts) + "\n"


# ---------------------------------------------------------------- the workflow


def snakemake_command(workdir: Path, *args: str) -> list[str]:
    """Snakemake on the repository's Snakefile with ``workdir`` as its working folder."""
    return [str(SNAKEMAKE), "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir), *args]


def run_workflow(
    workdir: Path, *args: str, check: bool = True, timeout: int = 1800
) -> subprocess.CompletedProcess:
    """Run the workflow locally on 2 cores in ``workdir``; fail with its output unless ``check`` is off."""
    command = snakemake_command(workdir, "--cores", "2", "--rerun-incomplete", *args)
    result = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, **OFFLINE}, timeout=timeout
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"snakemake failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-8000:]}"
        )
    return result


def planned_jobs(workdir: Path) -> dict[str, int]:
    """Rule name → job count that a dry run would execute now."""
    output = run_workflow(workdir, "--dry-run", "--quiet", "rules").stdout
    jobs = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("total", "job"):
            jobs[parts[0]] = int(parts[1])
    return jobs


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
