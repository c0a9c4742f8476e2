"""Fixed costs, before and after, side by side in one run: the shipped dumps' first run from a fresh
results/ (numba's cache empty, as in a fresh clone), and many small dumps' embedding step.

``--before`` is a checkout of the code to compare with (``git worktree add`` or ``git archive``
of main); this checkout is "after". Each measurement runs both in turn, on 2 cores, in fresh
working folders (an empty embedding cache); ``after`` first warms numba's cache as ``make``'s
set-up does (``python -m papertopics.warm``, timed apart). Writes fixed-costs.json and .md.

    PYTHONPATH=workflow python -m bench.fixed_costs --before ../main-checkout --years 15
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
    CHILD_ENV,
    CORPORA,
    REPO,
    SEEDS,
    measured,
    output_arguments,
    read_corpus,
    rule_benchmarks,
    text_dump,
    write_config,
)

AISTATS = CORPORA / "aistats_1995_2025.jsonl.gz"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
# The interpreter Snakemake and its jobs run (its entry point's): numba's cache folder under
# NUMBA_CACHE_DIR is named for where the library's files were found, so the warm step runs the same.
JOBS_PYTHON = SNAKEMAKE.read_text(encoding="utf-8").splitlines()[0].removeprefix("#!").strip()


def _env(code: Path, numba_cache: Path) -> dict:
    return {**CHILD_ENV, "PYTHONPATH": str(code / "workflow"), "NUMBA_CACHE_DIR": str(numba_cache)}


def snakemake(code: Path, workdir: Path, numba_cache: Path, *targets: str) -> dict:
    """The workflow of ``code`` in ``workdir`` on 2 cores: wall and CPU seconds."""
    command = [str(SNAKEMAKE), "--snakefile", str(code / "Snakefile"), "--directory", str(workdir)]
    # The targets before --quiet, which would take them as its own values.
    run = measured([*command, "--cores", "2", *targets, "--quiet"], env=_env(code, numba_cache))
    run.pop("output")
    return run


def fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def workdir(folder: Path, dumps: dict[str, str]) -> Path:
    raw = fresh(folder) / "data" / "raw"
    raw.mkdir(parents=True)
    for name, text in dumps.items():
        (raw / name).write_text(text, encoding="utf-8")
    write_config(folder)
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
    """The shipped dumps from a fresh results/ and an empty numba cache; ``warm``: make's warm step first."""
    numba_cache = fresh(scratch / "numba")
    folder = workdir(scratch / "seeds", {seed.name: seed.read_text(encoding="utf-8") for seed in SEEDS})
    result = {}
    if warm:
        step = measured([JOBS_PYTHON, "-m", "papertopics.warm"], env=_env(code, numba_cache))
        result["warm_step"] = {key: step[key] for key in ("seconds", "cpu_seconds")}
    result["pipeline"] = snakemake(code, folder, numba_cache)
    result["rules"] = named(rule_benchmarks(folder), code)
    result["backend"] = backend_picked(folder)
    return result


def year_dumps(years: int) -> tuple[dict[str, str], str]:
    """AISTATS's ``years`` smallest years of at least 40 papers, one dump each; and the next larger
    year as a dump to add.
    """
    by_year = collections.defaultdict(list)
    for record in read_corpus(AISTATS):
        by_year[record["year"]].append(f"{record['title']}. {record['abstract']}")
    eligible = sorted(
        (year for year, papers in by_year.items() if len(papers) >= 40), key=lambda y: len(by_year[y])
    )
    chosen, added = sorted(eligible[:years]), eligible[years]
    dumps = {f"aistats_{year}.txt": text_dump(f"AISTATS {year}", by_year[year]) for year in chosen}
    return dumps, (f"aistats_{added}.txt", text_dump(f"AISTATS {added}", by_year[added]))


def many_dumps(code: Path, scratch: Path, dumps: dict[str, str], added: tuple[str, str]) -> dict:
    """The embedding step of ``dumps`` (cold), then of one dump added."""
    numba_cache = scratch / "numba"
    folder = workdir(scratch / "many", dumps)
    names = [Path(name).stem for name in dumps]
    cold = snakemake(code, folder, numba_cache, *[f"results/embeddings/{name}.npz" for name in names])
    cold_rules = embed_rules(named(rule_benchmarks(folder), code))
    shutil.rmtree(folder / "results" / "benchmarks")
    (folder / "data" / "raw" / added[0]).write_text(added[1], encoding="utf-8")
    names.append(Path(added[0]).stem)
    again = snakemake(code, folder, numba_cache, *[f"results/embeddings/{name}.npz" for name in names])
    return {
        "dumps": len(dumps),
        "papers": sum(text.count("\n\n") for text in dumps.values()),
        "cold": cold,
        "cold_rules": cold_rules,
        "added_dump": {
            "name": Path(added[0]).stem,
            "run": again,
            "rules": embed_rules(named(rule_benchmarks(folder), code)),
        },
        "backend": backend_picked(folder),
    }


def one_dump(code: Path, scratch: Path, dumps: dict[str, str]) -> dict:
    """The same papers as one dump: the embedding step's floor."""
    joined = "All years\n\n" + "\n\n".join(text.split("\n\n", 1)[1].strip() for text in dumps.values()) + "\n"
    folder = workdir(scratch / "one", {"all_years.txt": joined})
    run = snakemake(code, folder, scratch / "numba", "results/embeddings/all_years.npz")
    return {
        "run": run,
        "rules": embed_rules(named(rule_benchmarks(folder), code)),
        "backend": backend_picked(folder),
    }


def seconds(entry: dict) -> float:
    return round(sum(rule["seconds"] for rule in entry.values()), 1)


def markdown(figures: dict) -> str:
    before, after = figures["before"], figures["after"]
    lines = [
        "# Fixed costs, before and after (bench/fixed_costs.py)",
        "",
        f"One run, {figures['cores']} cores shared with other work; wall seconds (CPU seconds in brackets).",
        "",
        "## The shipped dumps' first run, fresh results/ and numba cache",
        "",
        "| | before | after |",
        "|---|---|---|",
        f"| embedding backend (`auto`) | {before['first']['backend']} | {after['first']['backend']} |",
        f"| make's warm step (once per environment) | - | {after['first']['warm_step']['seconds']} "
        f"({after['first']['warm_step']['cpu_seconds']}) |",
        f"| pipeline | {before['first']['pipeline']['seconds']} ({before['first']['pipeline']['cpu_seconds']}) | "
        f"{after['first']['pipeline']['seconds']} ({after['first']['pipeline']['cpu_seconds']}) |",
    ]
    rules = sorted(set(before["first"]["rules"]) | set(after["first"]["rules"]))
    for rule in rules:
        cells = []
        for side in (before, after):
            entry = side["first"]["rules"].get(rule)
            cells.append("-" if entry is None else f"{entry['seconds']} s in {entry['jobs']} jobs")
        lines.append(f"| {rule} | {cells[0]} | {cells[1]} |")
    lines += ["", "## Many small dumps: the embedding step", ""]
    many_before, many_after = before["many"], after["many"]
    lines += [
        f"{many_after['dumps']} AISTATS years ({many_after['papers']} papers), embedded from an empty cache, then "
        f"one year added ({many_after['added_dump']['name']}).",
        "",
        "| | before | after |",
        "|---|---|---|",
        f"| embedding backend (`auto`) | {many_before['backend']} | {many_after['backend']} |",
        f"| cold: Snakemake's wall | {many_before['cold']['seconds']} | {many_after['cold']['seconds']} |",
        f"| cold: embed jobs' seconds (jobs) | {seconds(many_before['cold_rules'])} "
        f"({sum(r['jobs'] for r in many_before['cold_rules'].values())}) | {seconds(many_after['cold_rules'])} "
        f"({sum(r['jobs'] for r in many_after['cold_rules'].values())}) |",
        f"| cold: per dump | {seconds(many_before['cold_rules']) / many_before['dumps']:.2f} | "
        f"{seconds(many_after['cold_rules']) / many_after['dumps']:.2f} |",
        f"| a dump added: embed jobs' seconds | {seconds(many_before['added_dump']['rules'])} | "
        f"{seconds(many_after['added_dump']['rules'])} |",
    ]
    if "one" in after:
        lines.append(
            f"| the same papers as one dump: embed seconds ({after['one']['backend']}) | - | "
            f"{seconds(after['one']['rules'])} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the code to compare with")
    parser.add_argument("--years", type=int, default=15, help="how many AISTATS years as dumps")
    parser.add_argument("--no-first-run", action="store_true", help="only the many dumps")
    parser.add_argument("--resume", action="store_true", help="keep the measurements already in the results")
    output_arguments(parser)
    arguments = parser.parse_args()
    dumps, added = year_dumps(arguments.years)
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

    for side, code in (("before", arguments.before.resolve()), ("after", REPO)):
        scratch = arguments.scratch / "fixed-costs" / side
        if not arguments.no_first_run and "first" not in figures[side]:
            figures[side]["first"] = first_run(code, scratch, warm=side == "after")
            print(side, "first run", figures[side]["first"]["pipeline"], flush=True)
            save()
        if "many" not in figures[side]:
            figures[side]["many"] = many_dumps(code, scratch, dumps, added)
            print(side, "many dumps", figures[side]["many"]["cold"], flush=True)
            save()
    if "one" not in figures["after"]:
        figures["after"]["one"] = one_dump(REPO, arguments.scratch / "fixed-costs" / "after", dumps)
        save()
    if not arguments.no_first_run:
        (arguments.results / "fixed-costs.md").write_text(markdown(figures), encoding="utf-8")
    print(os.fspath(arguments.results / "fixed-costs.json"))


if __name__ == "__main__":
    main()
