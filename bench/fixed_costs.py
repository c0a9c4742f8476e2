"""Fixed costs, side by side in one run: the shipped dumps' first run from a fresh results/ (numba's
cache empty, as in a fresh clone) and the second after ``make clean``, per rule, with what each job
imports; and many small dumps' embedding step against the same papers as one dump.

``--before`` is a checkout of the code to compare with (``git archive`` of main); this checkout is
"after". The first runs run both in turn, on 2 cores, in fresh working folders (an empty embedding
cache); ``after`` first warms numba's cache as ``make``'s set-up does (``python -m
papertopics.runtime.warm``, timed apart). Each job's imports come from a profiled rerun of every job on one
core (``bench.job_imports``). The many dumps are this checkout's only: AISTATS's years (the
smallest ``--years``) and arXiv's months (the smallest ``--arxiv-months``), one dump each, then
the next month (or year) added. The load average is recorded beside each figure (the machine may
be shared). Writes fixed-costs.json and .md.

    PYTHONPATH=workflow python -m bench.fixed_costs --before ../main-checkout --years 23 --arxiv-months 9
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import sys
from pathlib import Path

from bench.common import (
    ARXIV,
    CHILD_ENV,
    CORPORA,
    REPO,
    SEEDS,
    measured,
    output_arguments,
    read_corpus,
    rule_benchmarks,
    text_dump,
)
from bench.job_imports import PROFILE_ENV, job_imports

AISTATS = CORPORA / "aistats_1995_2025.jsonl.gz"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
# The interpreter Snakemake and its jobs run (its entry point's): numba's cache folder under
# NUMBA_CACHE_DIR is named for where the library's files were found, so the warm step runs the same.
JOBS_PYTHON = SNAKEMAKE.read_text(encoding="utf-8").splitlines()[0].removeprefix("#!").strip()


def _env(code: Path, numba_cache: Path) -> dict:
    return {**CHILD_ENV, "PYTHONPATH": str(code / "workflow"), "NUMBA_CACHE_DIR": str(numba_cache)}


def snakemake(code: Path, workdir: Path, numba_cache: Path, *targets: str) -> dict:
    """The workflow of ``code`` in ``workdir`` on 2 cores: wall and CPU seconds, and the load
    average (1 minute) as it ended.
    """
    command = [str(SNAKEMAKE), "--snakefile", str(code / "Snakefile"), "--directory", str(workdir)]
    # The targets before --quiet, which would take them as its own values.
    run = measured([*command, "--cores", "2", *targets, "--quiet"], env=_env(code, numba_cache))
    run.pop("output")
    return {**run, "load": load()}


def load() -> float:
    """The machine's load average over the last minute."""
    return round(os.getloadavg()[0], 1)


def profiled_imports(code: Path, workdir: Path, numba_cache: Path) -> dict:
    """Every job of the run in ``workdir`` again, one at a time, with Python's import profile: what
    each rule's jobs import (``bench.job_imports``).
    """
    command = [str(SNAKEMAKE), "--snakefile", str(code / "Snakefile"), "--directory", str(workdir)]
    run = measured([*command, "--cores", "1", "--forceall"], env={**_env(code, numba_cache), **PROFILE_ENV})
    return {"rules": job_imports(run["output"]), "load": load()}


def fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def workdir(folder: Path, dumps: dict[str, str], code: Path) -> Path:
    """A working folder of ``dumps`` with ``code``'s config.yaml (a newer one may have keys the
    older code's schema rejects).
    """
    raw = fresh(folder) / "data" / "raw"
    raw.mkdir(parents=True)
    for name, text in dumps.items():
        (raw / name).write_text(text, encoding="utf-8")
    shutil.copy(code / "config.yaml", folder / "config.yaml")
    return folder


def named(rules: dict, code: Path) -> dict:
    """The rules' benchmark entries; before, results/benchmarks/embed/<dump>.tsv was the per-dump
    embed job's (now embed_gather's).
    """
    if code.resolve() != REPO.resolve() and "embed_gather" in rules:
        rules = {
            ("embed (per dump)" if rule == "embed_gather" else rule): entry for rule, entry in rules.items()
        }
    return rules


def embed_rules(rules: dict) -> dict:
    return {rule: entry for rule, entry in rules.items() if rule.startswith("embed")}


def backend_picked(folder: Path) -> str:
    """The backend ``auto`` resolved to, as the embedding jobs' logs name it."""
    import re

    logs = folder / "results" / "logs"
    # The embed job's log; before, one per dump (and the shards').
    for path in [logs / "embed.log", *sorted((logs / "embed").rglob("*.log"))]:
        if not path.is_file():
            continue
        found = re.search(r"embedded now \(([\w-]+) on (\w+)\)", path.read_text(encoding="utf-8"))
        if found:
            return f"{found.group(1)} on {found.group(2)}"
    return "unknown"


def first_run(code: Path, scratch: Path, warm: bool) -> dict:
    """The shipped dumps from a fresh results/ and an empty numba cache (``warm``: make's warm step
    first); then again after ``make clean``; then every job again with the import profile.
    """
    numba_cache = fresh(scratch / "numba")
    folder = workdir(scratch / "seeds", {seed.name: seed.read_text(encoding="utf-8") for seed in SEEDS}, code)
    result = {}
    if warm:
        step = measured([JOBS_PYTHON, "-m", "papertopics.runtime.warm"], env=_env(code, numba_cache))
        result["warm_step"] = {"seconds": step["seconds"], "cpu_seconds": step["cpu_seconds"], "load": load()}
    result["pipeline"] = snakemake(code, folder, numba_cache)
    result["rules"] = named(rule_benchmarks(folder), code)
    result["backend"] = backend_picked(folder)
    # make clean: results/ and .snakemake go; numba's cache (the environment's) stays.
    shutil.rmtree(folder / "results")
    shutil.rmtree(folder / ".snakemake")
    result["second"] = {
        "pipeline": snakemake(code, folder, numba_cache),
        "rules": named(rule_benchmarks(folder), code),
        "backend": backend_picked(folder),
    }
    result["imports"] = profiled_imports(code, folder, numba_cache)
    return result


def _by_size(groups: dict, prefix: str, title: str, most: int | None) -> list[tuple[str, str]]:
    """Each group as a dump (file name, text) of its first ``most`` papers (None: all), the
    smallest group first.
    """
    order = sorted(groups, key=lambda key: (len(groups[key]), key))
    return [(f"{prefix}_{key}.txt", text_dump(f"{title} {key}", groups[key][:most])) for key in order]


def many_small_dumps(
    years: int, months: int, most: int | None = None
) -> tuple[dict[str, str], tuple[str, str]]:
    """AISTATS's ``years`` smallest years and arXiv's ``months`` smallest months (by the id's
    YYMM; months of at least 100 papers), one dump each of at most ``most`` papers; and the next
    month (or year) as a dump to add.
    """
    by_year, by_month = collections.defaultdict(list), collections.defaultdict(list)
    for record in read_corpus(AISTATS):
        by_year[record["year"]].append(f"{record['title']}. {record['abstract']}")
    if months:
        for record in read_corpus(ARXIV):
            by_month["20" + record["id"].split(":")[1][:4]].append(f"{record['title']}. {record['abstract']}")
    year_dumps = _by_size(by_year, "aistats", "AISTATS", most)
    month_dumps = _by_size({m: p for m, p in by_month.items() if len(p) >= 100}, "arxiv", "arXiv cs", most)
    chosen = year_dumps[:years] + month_dumps[:months]
    return dict(chosen), month_dumps[months] if months else year_dumps[years]


def many_dumps(code: Path, scratch: Path, dumps: dict[str, str], added: tuple[str, str]) -> dict:
    """The embedding step of ``dumps`` (cold), then of one dump added."""
    numba_cache = scratch / "numba"
    folder = workdir(scratch / "many", dumps, code)
    names = [Path(name).stem for name in dumps]
    cold = snakemake(code, folder, numba_cache, *[f"results/embeddings/{name}.npz" for name in names])
    cold_rules = embed_rules(named(rule_benchmarks(folder), code))
    shutil.rmtree(folder / "results" / "benchmarks")
    (folder / "data" / "raw" / added[0]).write_text(added[1], encoding="utf-8")
    names.append(Path(added[0]).stem)
    again = snakemake(code, folder, numba_cache, *[f"results/embeddings/{name}.npz" for name in names])
    sizes = [text.count("\n\n") for text in dumps.values()]
    return {
        "dumps": len(dumps),
        "papers": sum(sizes),
        "smallest": min(sizes),
        "largest": max(sizes),
        "cold": cold,
        "cold_rules": cold_rules,
        "added_dump": {
            "name": Path(added[0]).stem,
            "papers": added[1].count("\n\n"),
            "run": again,
            "rules": embed_rules(named(rule_benchmarks(folder), code)),
        },
        "backend": backend_picked(folder),
    }


def one_dump(code: Path, scratch: Path, dumps: dict[str, str]) -> dict:
    """The same papers as one dump: the embedding step's floor."""
    joined = "All dumps\n\n" + "\n\n".join(text.split("\n\n", 1)[1].strip() for text in dumps.values()) + "\n"
    folder = workdir(scratch / "one", {"all_dumps.txt": joined}, code)
    run = snakemake(code, folder, scratch / "numba", "results/embeddings/all_dumps.npz")
    return {
        "run": run,
        "rules": embed_rules(named(rule_benchmarks(folder), code)),
        "backend": backend_picked(folder),
    }


def seconds(entry: dict, key: str = "seconds") -> float:
    return round(sum(rule[key] for rule in entry.values()), 1)


def _run_cell(run: dict) -> str:
    return f"{run['seconds']} ({run['cpu_seconds']}) at load {run['load']}"


def _warm_cell(first: dict) -> str:
    return _run_cell(first["warm_step"]) if "warm_step" in first else "-"


def _first_run_lines(before: dict, after: dict) -> list[str]:
    first_before, first_after = before["first"], after["first"]
    lines = [
        "## The shipped dumps: the first run (fresh results/ and numba cache) and the second (after `make clean`)",
        "",
        "| | before: first | before: second | after: first | after: second |",
        "|---|---|---|---|---|",
        f"| embedding backend (`auto`) | {first_before['backend']} | {first_before['second']['backend']} | "
        f"{first_after['backend']} | {first_after['second']['backend']} |",
        f"| make's warm step (once per environment) | {_warm_cell(first_before)} | - | {_warm_cell(first_after)} | - |",
        f"| pipeline | {_run_cell(first_before['pipeline'])} | {_run_cell(first_before['second']['pipeline'])} | "
        f"{_run_cell(first_after['pipeline'])} | {_run_cell(first_after['second']['pipeline'])} |",
    ]
    runs = [
        first_before["rules"],
        first_before["second"]["rules"],
        first_after["rules"],
        first_after["second"]["rules"],
    ]
    for rule in sorted(set().union(*runs)):
        cells = [
            "-" if rule not in run else f"{run[rule]['seconds']} s in {run[rule]['jobs']} jobs"
            for run in runs
        ]
        lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    return lines


def _imports_lines(before: dict, after: dict) -> list[str]:
    from bench.job_imports import markdown_rows

    imports_before, imports_after = before["first"]["imports"], after["first"]["imports"]
    return [
        "## What each job imports",
        "",
        "The heavy libraries each rule's jobs import (of `bench.job_imports.HEAVY`), and the seconds its jobs "
        "spent importing, from Python's import profile of every job rerun on one core (before at load "
        f"{imports_before['load']}, after at {imports_after['load']}).",
        "",
        *markdown_rows(imports_before["rules"], imports_after["rules"]),
    ]


def _many_lines(after: dict) -> list[str]:
    many, one = after["many"], after["one"]
    many_seconds, one_seconds = seconds(many["cold_rules"]), seconds(one["rules"])
    many_cpu, one_cpu = seconds(many["cold_rules"], "cpu_seconds"), seconds(one["rules"], "cpu_seconds")
    return [
        "## Many small dumps: the embedding step",
        "",
        f"{many['dumps']} dumps ({many['papers']} papers, {many['smallest']} to {many['largest']} a dump), "
        f"embedded from an empty cache; the same papers as one dump; then one dump added "
        f"({many['added_dump']['name']}, {many['added_dump']['papers']} papers). This checkout only.",
        "",
        "| | seconds (CPU seconds) | backend (`auto`) |",
        "|---|---|---|",
        f"| {many['dumps']} dumps, cold: Snakemake's wall | {_run_cell(many['cold'])} | {many['backend']} |",
        f"| ... its embed jobs ({sum(r['jobs'] for r in many['cold_rules'].values())}) | {many_seconds} ({many_cpu}) "
        f"| {many['backend']} |",
        f"| the same papers as one dump: Snakemake's wall | {_run_cell(one['run'])} | {one['backend']} |",
        f"| ... its embed jobs ({sum(r['jobs'] for r in one['rules'].values())}) | {one_seconds} ({one_cpu}) "
        f"| {one['backend']} |",
        f"| fixed cost per dump: (many - one) / {many['dumps']} | {(many_seconds - one_seconds) / many['dumps']:.2f} "
        f"({(many_cpu - one_cpu) / many['dumps']:.2f}) | |",
        f"| many / one | {many_seconds / one_seconds:.2f}x ({many_cpu / one_cpu:.2f}x) | |",
        f"| a dump added: embed jobs | {seconds(many['added_dump']['rules'])} "
        f"({seconds(many['added_dump']['rules'], 'cpu_seconds')}) at load {many['added_dump']['run']['load']} "
        f"| {many['backend']} |",
    ]


def markdown(figures: dict) -> str:
    before, after = figures["before"], figures["after"]
    lines = [
        "# Fixed costs (bench/fixed_costs.py)",
        "",
        f"One run, {figures['cores']} cores shared with other work; wall seconds (CPU seconds in brackets), "
        "with the load average (1 minute) as each ended. Before: the code this change started from.",
        "",
    ]
    if "first" in before and "first" in after:
        lines += [*_first_run_lines(before, after), "", *_imports_lines(before, after), ""]
    if "many" in after and "one" in after:
        lines += _many_lines(after)
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare the first runs with")
    parser.add_argument("--years", type=int, default=23, help="how many AISTATS years as dumps")
    parser.add_argument("--arxiv-months", type=int, default=9, help="how many arXiv months as dumps")
    parser.add_argument("--most-papers", type=int, help="each dump's first this many papers (default: all)")
    parser.add_argument("--no-first-run", action="store_true", help="only the many dumps")
    parser.add_argument("--no-many", action="store_true", help="only the first runs")
    parser.add_argument("--resume", action="store_true", help="keep the measurements already in the results")
    output_arguments(parser)
    arguments = parser.parse_args()
    if not arguments.no_first_run and arguments.before is None:
        parser.error("the first runs need --before (or --no-first-run)")
    arguments.results.mkdir(parents=True, exist_ok=True)
    output = arguments.results / "fixed-costs.json"
    # --resume keeps the measurements a stopped run already wrote (each is saved as it is taken).
    figures = (
        json.loads(output.read_text(encoding="utf-8"))
        if arguments.resume and output.exists()
        else {"cores": 2, "before": {}, "after": {}}
    )

    def save() -> None:
        output.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")

    scratch = arguments.scratch / "fixed-costs"
    if not arguments.no_first_run:
        for side, code in (("before", arguments.before.resolve()), ("after", REPO)):
            if "first" not in figures[side]:
                # make's warm step where the code has one (as make's set-up runs it).
                warm = (code / "workflow" / "papertopics" / "warm.py").is_file()
                figures[side]["first"] = first_run(code, scratch / side, warm=warm)
                print(side, "first run", figures[side]["first"]["pipeline"], flush=True)
                save()
    if not arguments.no_many:
        dumps, added = many_small_dumps(arguments.years, arguments.arxiv_months, arguments.most_papers)
        if "many" not in figures["after"]:
            figures["after"]["many"] = many_dumps(REPO, scratch / "after", dumps, added)
            print("many dumps", figures["after"]["many"]["cold"], flush=True)
            save()
        if "one" not in figures["after"]:
            figures["after"]["one"] = one_dump(REPO, scratch / "after", dumps)
            save()
    (arguments.results / "fixed-costs.md").write_text(markdown(figures), encoding="utf-8")
    print(os.fspath(output))


if __name__ == "__main__":
    main()
