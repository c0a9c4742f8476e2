"""What the robustness stage costs at 10,000 abstracts (``make bench-robustness-cost``).

Four of the shared corpora, each its own JSON Lines dump as an export carries it: OpenReview (COLM,
CoRL) and ACL with their decisions, ratings, citations, authors and countries; IJCAI 2020-2024; and
the newest AISTATS papers to make up the size (no single shared corpus with decisions holds 10,000
papers). The labels are left out: they are for scoring only. In one working folder, side by side:

1. cold: ``robustness.replicates: 0`` from an empty results folder (and so an empty embedding cache);
2. add: the same folder with the default replicates; only the robustness jobs should run;
3. retest: one paper's decision edited in its dump (Poster to Oral); the rerun re-tests the findings
   and draws no replicate, reduces and clusters nothing.

Each step's wall time, the jobs its Snakemake log started and each job's seconds from the rules'
benchmark files; the embedding backend ``auto`` picked. Writes bench/robustness-cost.md and .json.
``--retest-only`` measures step 3 again on a kept folder (another paper's decision edited), for a
change to the re-tests' code; ``--keep`` copies the robustness outputs aside first, so that the
new code's outputs can be compared byte for byte with the old's.

    PYTHONPATH=workflow:. python -m bench.robustness_cost --scratch <folder>
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

from bench.common import (
    BENCH,
    CORPORA,
    default_config,
    executed_jobs,
    make_workdir,
    read_corpus,
    rule_benchmarks,
    run_workflow,
    workdir_config,
    write_config,
)

SIZE = 10_000
# The dumps, in order: the corpora with decisions first, then those that make up the size.
DUMPS = (
    ("openreview", "openreview_metadata.jsonl.gz"),
    ("acl", "acl_2021_2022_metadata.jsonl.gz"),
    ("ijcai", "ijcai_2020_2024_areas.jsonl.gz"),
    ("aistats", "aistats_1995_2025.jsonl.gz"),
)
# Fields a user's export carries; the corpora's labels are for scoring only.
FIELDS = (
    "id",
    "title",
    "abstract",
    "venue",
    "year",
    "decision",
    "rating",
    "ratings",
    "authors",
    "affiliations",
    "countries",
    "citations",
)
EDITED_DUMP = "openreview"
# Jobs that draw, project or cluster papers: none may run after a decision is edited.
CLUSTERING_RULES = ("embed", "embed_shard", "neighbours", "reduce", "cluster", "topics", "replicate")


def corpus_dumps(size: int) -> dict[str, list[dict]]:
    """``size`` papers in the four dumps: every paper of the first three, the newest AISTATS ones
    after (its file is sorted by year).
    """
    dumps, left = {}, size
    for name, file in DUMPS:
        records = read_corpus(CORPORA / file)
        taken = records[-left:] if name == "aistats" else records[:left]
        dumps[name] = [{k: r[k] for k in FIELDS if k in r} for r in taken]
        left -= len(taken)
        if left == 0:
            break
    if left:
        raise SystemExit(f"--size {size}: the four corpora hold {size - left} papers.")
    return dumps


def write_dump(workdir: Path, name: str, records: list[dict]) -> None:
    text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    (workdir / "data" / "raw" / f"{name}.jsonl").write_text(text, encoding="utf-8")


def edit_one_decision(workdir: Path) -> str:
    """The first poster of the edited dump made an oral, as a chair's correction would; its id."""
    path = workdir / "data" / "raw" / f"{EDITED_DUMP}.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    record = next(r for r in records if r.get("decision") == "Poster")
    record["decision"] = "Oral"
    write_dump(workdir, EDITED_DUMP, records)
    return record["id"]


def timed_step(workdir: Path) -> dict:
    """The workflow run once in ``workdir``: wall seconds, jobs started, each rule's job seconds."""
    shutil.rmtree(workdir / "results" / "benchmarks", ignore_errors=True)
    start = time.perf_counter()
    run = run_workflow(workdir, timeout=4 * 3600)
    return {
        "seconds": round(time.perf_counter() - start, 2),
        "jobs": executed_jobs(run),
        "rules": rule_benchmarks(workdir),
        "load_average_at_end": round(os.getloadavg()[0], 2),
    }


def retest(workdir: Path) -> dict:
    """Step 3: a decision edited, the rerun measured, and whether it clustered anything."""
    edited = edit_one_decision(workdir)
    step = timed_step(workdir)
    step["edited_paper"] = edited
    step["clustering_jobs"] = {rule: n for rule, n in step["jobs"].items() if rule in CLUSTERING_RULES}
    return step


def picked_backend(workdir: Path) -> str:
    from papertopics.embed.encoders import resolve_backend

    return resolve_backend(workdir_config(workdir)["embedding"]["backend"])


def measure(workdir: Path, size: int) -> dict:
    shutil.rmtree(workdir, ignore_errors=True)
    dumps = corpus_dumps(size)
    make_workdir(workdir, {}, robustness={"replicates": 0})
    for name, records in dumps.items():
        write_dump(workdir, name, records)
    replicates = workdir_config(workdir)["robustness"]["replicates"]
    cold = timed_step(workdir)
    # Each step's figures kept as they come, should a later step fail after the long cold run.
    (workdir / "cold.json").write_text(json.dumps(cold, indent=1), encoding="utf-8")
    default_replicates = default_config()["robustness"]["replicates"]
    write_config(workdir, robustness={"replicates": default_replicates})
    add = timed_step(workdir)
    (workdir / "add.json").write_text(json.dumps(add, indent=1), encoding="utf-8")
    return {
        "size": size,
        "dumps": {name: len(records) for name, records in dumps.items()},
        "with_decisions": sum(1 for records in dumps.values() for r in records if r.get("decision")),
        "backend": picked_backend(workdir),
        "cores": os.cpu_count(),
        "cold_replicates": replicates,
        "replicates": default_replicates,
        "cold": cold,
        "add": add,
        "retest": retest(workdir),
    }


def summary(result: dict) -> dict:
    cold, add, again = result["cold"]["seconds"], result["add"]["seconds"], result["retest"]
    retest_job = again["rules"].get("finding_robustness", {}).get("seconds")
    return {
        "cold_seconds": cold,
        "add_seconds": add,
        "add_over_cold": round(add / cold, 3),
        "retest_seconds": again["seconds"],
        "retest_job_seconds": retest_job,
        "retest_clustered": bool(again["clustering_jobs"]),
    }


def rule_rows(rules: dict) -> list[str]:
    return [
        f"| {rule} | {entry['jobs']} | {entry['seconds']:.1f} | {entry['max_seconds']:.1f} | {entry['cpu_seconds']:.1f} |"
        for rule, entry in sorted(rules.items(), key=lambda item: -item[1]["seconds"])
    ]


def markdown(result: dict) -> str:
    s = result["summary"]
    dumps = ", ".join(f"{name} {n:,}" for name, n in result["dumps"].items())
    lines = [
        "# Robustness stage: cost at 10,000 abstracts",
        "",
        f"`python -m bench.robustness_cost`: {result['size']:,} real abstracts in four JSON Lines dumps "
        f"({dumps}; {result['with_decisions']:,} with decisions, ratings and citations: no single shared "
        f"corpus with decisions holds 10,000), {result['cores']} cores shared with other work, embedding "
        f"backend `auto` = `{result['backend']}`. One working folder, side by side: the cold run with "
        f"`robustness.replicates: 0`, then the default {result['replicates']} replicates added, then one "
        f"decision edited ({result['retest']['edited_paper']}, Poster to Oral).",
        "",
        "| step | wall seconds | target |",
        "|---|---:|---|",
        f"| cold run, no replicates (T0) | {s['cold_seconds']:.1f} | |",
        f"| {result['replicates']} replicates added (T_add) | {s['add_seconds']:.1f} | "
        f"T_add / T0 = {s['add_over_cold']:.2f} (≤ 0.5) |",
        f"| rerun after one decision edited | {s['retest_seconds']:.1f} | |",
        f"| … of which the re-tests (`finding_robustness` job) | {s['retest_job_seconds']:.1f} | ≤ 10 s |",
        "",
        f"Clustering jobs in the rerun after the edit: {result['retest']['clustering_jobs'] or 'none'}.",
    ]
    retests = [*result.get("earlier_retests", []), result["retest"]]
    if len(retests) > 1:
        lines += [
            "",
            "## The decision edit, each time it was measured on this folder",
            "",
            "| code | paper edited | rerun wall seconds | `finding_robustness` seconds | clustering jobs |",
            "|---|---|---:|---:|---|",
            *(
                f"| {again.get('code', '')} | {again['edited_paper']} | {again['seconds']:.1f} | "
                f"{again['rules'].get('finding_robustness', {}).get('seconds', 0):.1f} | "
                f"{again['clustering_jobs'] or 'none'} |"
                for again in retests
            ),
        ]
    for step, title in (("add", "Replicates added"), ("retest", "Rerun after one decision edited")):
        jobs = ", ".join(f"{rule} {n}" for rule, n in sorted(result[step]["jobs"].items()))
        lines += [
            "",
            f"## {title}: each rule's jobs",
            "",
            f"Jobs started (Snakemake's log): {jobs}.",
            "",
            "| rule | jobs | seconds (sum) | longest job | CPU seconds |",
            "|---|---:|---:|---:|---:|",
            *rule_rows(result[step]["rules"]),
        ]
    lines += [
        "",
        "## Cold run: each rule's jobs",
        "",
        "| rule | jobs | seconds (sum) | longest job | CPU seconds |",
        "|---|---:|---:|---:|---:|",
        *rule_rows(result["cold"]["rules"]),
    ]
    for note in result.get("notes", []):
        lines += ["", note]
    return "\n".join(lines) + "\n"


def save(result: dict, folder: Path) -> None:
    result["summary"] = summary(result)
    (folder / "robustness-cost.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    (folder / "robustness-cost.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))


def keep_outputs(workdir: Path, aside: Path) -> None:
    """The robustness stage's outputs copied to ``aside`` (to compare another version's with)."""
    shutil.rmtree(aside, ignore_errors=True)
    shutil.copytree(workdir / "results" / "staged" / "topics", aside)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=SIZE)
    parser.add_argument("--scratch", type=Path, default=BENCH / "scratch")
    parser.add_argument("--results", type=Path, default=BENCH)
    parser.add_argument(
        "--retest-only", action="store_true", help="step 3 again on the kept folder; the other steps kept"
    )
    parser.add_argument("--keep", type=Path, help="copy the robustness outputs here before the retest")
    parser.add_argument("--code", default="", help="what code the retest ran (a commit), for its row")
    args = parser.parse_args()
    if not CORPORA.exists():
        raise SystemExit(
            f"{CORPORA} is absent: the benchmark needs the shared corpora beside the repository."
        )
    workdir = args.scratch / f"robustness-cost-{args.size}"
    if args.retest_only:
        result = json.loads((args.results / "robustness-cost.json").read_text(encoding="utf-8"))
        result.setdefault("earlier_retests", []).append(result["retest"])
        if args.keep:
            keep_outputs(workdir, args.keep)
        result["retest"] = retest(workdir)
        result["retest"]["code"] = args.code
    else:
        result = measure(workdir, args.size)
        result["retest"]["code"] = args.code
        if args.keep:
            keep_outputs(workdir, args.keep)
    args.results.mkdir(parents=True, exist_ok=True)
    save(result, args.results)


if __name__ == "__main__":
    main()
