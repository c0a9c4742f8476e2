"""Big inputs: what parsing a large plain-text dump costs, and how many embed jobs it is planned
(``make bench-big-dumps``; ``--formats jsonl`` writes the dumps as JSON Lines instead).

Dumps of about 0.1, 0.5 and 1 GB are written from IJCAI 2020-2024's real abstracts, two kinds:
*repetitive* (60 distinct abstracts, repeated until the size is reached: many overlapping exports
pasted together) and *distinct* (every abstract once, each copy made distinct by a numbered closing
sentence). For each, in a fresh process: the parse stage's seconds and peak memory, the summary's
size, and the embed jobs the workflow plans for the dump (counted as the Snakefile counts them, with
that count's own seconds and peak memory). Written to bench/big-dumps.md and bench/big-dumps.json.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from bench.common import (
    IJCAI,
    default_config,
    in_fresh_process,
    make_workdir,
    measured_snakemake,
    output_arguments,
    read_corpus,
    rule_benchmarks,
    text_dump,
)

REPETITIVE_DISTINCT_PAPERS = 60
MEGABYTE = 1_000_000


def write_dump(path: str, megabytes: float, kind: str, dump_format: str = "txt") -> dict:
    """A dump of about ``megabytes`` MB from IJCAI's abstracts; ``kind`` is ``repetitive`` (60
    distinct abstracts, repeated) or ``distinct`` (every abstract once); ``dump_format`` ``txt``
    (a title line, then paragraphs) or ``jsonl`` (one ``{"abstract": …}`` object a line).
    """
    abstracts = [record["abstract"] for record in read_corpus(IJCAI)]
    if kind == "repetitive":
        abstracts = abstracts[:REPETITIVE_DISTINCT_PAPERS]
    target = int(megabytes * MEGABYTE)
    written = records = 0
    with open(path, "w", encoding="utf-8") as out:
        if dump_format == "txt":
            written += out.write(f"A {kind} dump of {megabytes} MB\n")
        while written < target:
            abstract = abstracts[records % len(abstracts)]
            if kind == "distinct":
                abstract = f"{abstract} This is copy {records // len(abstracts)} of it."
            line = (
                json.dumps({"abstract": abstract}) + "\n"
                if dump_format == "jsonl"
                else "\n" + abstract + "\n"
            )
            written += out.write(line)
            records += 1
    distinct = min(records, len(abstracts)) if kind == "repetitive" else records
    return {"bytes": os.path.getsize(path), "records": records, "distinct": distinct}


def parse_step(dump: str, papers: str, summary: str) -> dict:
    """The parse stage on ``dump`` with the default settings; the files' sizes."""
    from papertopics.ingest import stages
    from papertopics.settings import ParseSettings, knobs

    stages.parse(dump, papers, summary, knobs=knobs(ParseSettings.from_config(default_config())))
    return {"summary_bytes": os.path.getsize(summary), "papers_bytes": os.path.getsize(papers)}


def planned_embed_jobs(dump: str, shard_size: int) -> dict:
    """The embed jobs the Snakefile plans for ``dump`` (no count remembered: a new dump)."""
    from papertopics.embed.sharding import planned_shards

    return {"embed_jobs": planned_shards(dump, shard_size)}


def measure(scratch: Path, megabytes: float, kind: str, dump_format: str = "txt") -> dict:
    """One dump written, parsed and planned: the figures of one row."""
    scratch.mkdir(parents=True, exist_ok=True)
    dump = scratch / f"{kind}-{megabytes}.{dump_format}"
    written = write_dump(str(dump), megabytes, kind, dump_format)
    parse = in_fresh_process(
        parse_step,
        dump=str(dump),
        papers=str(scratch / "papers.jsonl"),
        summary=str(scratch / "summary.json"),
    )
    plan = in_fresh_process(
        planned_embed_jobs, dump=str(dump), shard_size=default_config()["embedding"]["shard_size"]
    )
    row = {
        "kind": kind,
        "format": dump_format,
        "megabytes": megabytes,
        **written,
        "parse_seconds": parse["seconds"],
        "parse_cpu_seconds": parse["cpu_seconds"],
        "parse_peak_rss_mib": parse["peak_rss_mib"],
        "kept_mib": round(parse["result"]["papers_bytes"] / 2**20, 1),
        "summary_bytes": parse["result"]["summary_bytes"],
        "embed_jobs": plan["result"]["embed_jobs"],
        "plan_seconds": plan["seconds"],
        "plan_cpu_seconds": plan["cpu_seconds"],
        "plan_peak_rss_mib": plan["peak_rss_mib"],
    }
    dump.unlink()
    print(json.dumps(row), flush=True)
    return row


def whole_runs(scratch: Path, megabytes: float) -> dict:
    """The whole workflow (2 cores) on the 60 abstracts as a dump of their own, then on a
    ``megabytes`` MB repetitive dump of them: seconds, peak memory and each rule's figures.
    """
    runs = {}
    for name, size in (("alone", 0), ("repetitive", megabytes)):
        workdir = make_workdir(scratch / f"whole-{name}", dumps={})
        dump = workdir / "data" / "raw" / f"{name}.txt"
        if size:
            write_dump(str(dump), size, "repetitive")
        else:
            abstracts = [record["abstract"] for record in read_corpus(IJCAI)][:REPETITIVE_DISTINCT_PAPERS]
            dump.write_text(text_dump("The 60 abstracts", abstracts), encoding="utf-8")
        run = measured_snakemake(workdir)
        runs[name] = {**run, "rules": rule_benchmarks(workdir)}
        print(json.dumps({name: runs[name]}), flush=True)
        dump.unlink()
    return runs


def whole_runs_table(runs: dict) -> str:
    """The whole runs as Markdown: each rule's jobs, seconds and peak memory, side by side."""
    names = list(runs)
    lines = [
        "",
        "Whole runs (`--whole-run`), 2 cores: "
        + ", ".join(f"{n} {runs[n]['seconds']} s" for n in names)
        + ".",
        "",
        "| rule | " + " | ".join(f"{n}: jobs, s, peak MiB" for n in names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    rules = sorted({rule for run in runs.values() for rule in run["rules"]})
    for rule in rules:
        cells = []
        for name in names:
            entry = runs[name]["rules"].get(rule)
            cells.append(f"{entry['jobs']}, {entry['seconds']}, {entry['peak_rss_mib']}" if entry else "")
        lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def table(rows: list[dict]) -> str:
    """The rows as a Markdown page: what was measured, then the table."""
    lines = [
        "# Big dumps: parse cost and embed jobs planned",
        "",
        "Written by `make bench-big-dumps` (bench/big_dumps.py): dumps of IJCAI 2020-2024's abstracts as",
        "plain text (as JSON Lines where the dump says `.jsonl`), *repetitive* (60 distinct abstracts",
        "repeated) or *distinct* (each copy made distinct by a numbered closing sentence). Parse: the parse stage in a fresh process, default settings",
        "(seconds, peak RSS); kept MiB: its papers.jsonl; embed jobs: as the Snakefile plans them",
        "(default `embedding.shard_size`), with the planning's own seconds and peak RSS (in Snakemake's",
        "process). Wall seconds on a shared machine vary with its load; CPU seconds less.",
        "",
        "| dump | MB | records | distinct | parse s (CPU s) | parse peak MiB | kept MiB | summary bytes "
        "| embed jobs | plan s (CPU s) | plan peak MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        dump = row["kind"] if row.get("format", "txt") == "txt" else f"{row['kind']} .{row['format']}"
        lines.append(
            f"| {dump} | {row['bytes'] / MEGABYTE:.0f} | {row['records']:,} | {row['distinct']:,} "
            f"| {row['parse_seconds']} ({row['parse_cpu_seconds']}) | {row['parse_peak_rss_mib']} | {row['kept_mib']} "
            f"| {row['summary_bytes']:,} | {row['embed_jobs']} | {row['plan_seconds']} ({row['plan_cpu_seconds']}) "
            f"| {row['plan_peak_rss_mib']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[100, 500, 1000], help="dump sizes in MB")
    parser.add_argument("--kinds", nargs="+", default=["repetitive", "distinct"])
    parser.add_argument("--formats", nargs="+", default=["txt"], choices=["txt", "jsonl"])
    parser.add_argument(
        "--add", action="store_true", help="add the rows to those already in the results (whole runs kept)"
    )
    parser.add_argument(
        "--whole-run", type=float, help="also the whole workflow on a repetitive dump of this many MB"
    )
    output_arguments(parser)
    args = parser.parse_args()
    earlier = json.loads((args.results / "big-dumps.json").read_text(encoding="utf-8")) if args.add else []
    rows = earlier["parse"] if isinstance(earlier, dict) else earlier
    runs = earlier.get("whole_runs") if isinstance(earlier, dict) else None
    for size in args.sizes:
        for dump_format in args.formats:
            for kind in args.kinds:
                rows.append(measure(args.scratch / "big-dumps", size, kind, dump_format))
                # Written after each row: a long run stopped half-way keeps what it measured.
                write_results(args.results, rows, runs)
    if args.whole_run:
        runs = whole_runs(args.scratch / "big-dumps", args.whole_run)
        write_results(args.results, rows, runs)


def write_results(folder: Path, rows: list[dict], runs: dict | None) -> None:
    """The rows (ordered by size, plain text first, as the kinds are) and the whole runs, if any."""
    kinds = {"repetitive": 0, "distinct": 1}
    rows.sort(
        key=lambda row: (row["megabytes"], row.get("format", "txt") != "txt", kinds.get(row["kind"], 2))
    )
    results = {"parse": rows, "whole_runs": runs} if runs else rows
    (folder / "big-dumps.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    (folder / "big-dumps.md").write_text(
        table(rows) + (whole_runs_table(runs) if runs else ""), encoding="utf-8"
    )


if __name__ == "__main__":
    main()
