"""update: place against a refit, side by side: IJCAI 2020-2023 fitted (a cold run), then 2024 added
and the rerun made both ways from copies of that one run; wall-clock seconds of each, and how far
the placed topics of the 2024 papers agree with the refit's (the refit is the authority).

    PYTHONPATH=workflow python -m bench.placement_bench --per-year 300

``--per-year 0`` takes every paper (3,281); ``--corpus`` another JSON Lines corpus with a ``year``;
``--new-from`` places another corpus's first ``--new-size`` papers instead of the last year (the
issue's 10,000 + 1,000: ``--corpus`` the arXiv one, ``--per-year 0``, ``--new-from`` IJCAI's, as
pipeline.py's new dump). ``--scale 100000`` fits that many abstracts made as bench.scale makes
them, their vectors cached first (with ``--new-from``). ``--keep-cold`` measures the reruns again on a cold run already made. Writes
bench/placement.md and bench/placement.json, with each run's rules' seconds and the place rerun's per job.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import time
from pathlib import Path

import pandas as pd

from bench.common import (
    BENCH,
    IJCAI,
    make_workdir,
    planned_jobs,
    rule_benchmarks,
    run_workflow,
    workdir_config,
    write_config,
)


def year_dumps(corpus: Path, per_year: int) -> dict[str, str]:
    """One JSON Lines dump per year (title, abstract, year only), the first ``per_year`` of each (0: all)."""
    years: dict[int, list[str]] = {}
    with gzip.open(corpus, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            kept = {key: record[key] for key in ("title", "abstract", "year")}
            years.setdefault(int(record["year"]), []).append(json.dumps(kept, ensure_ascii=False) + "\n")
    return {
        f"y{year}.jsonl": "".join(papers[:per_year] if per_year else papers)
        for year, papers in sorted(years.items())
    }


def new_dump(
    corpus: Path, size: int, fields: tuple[str, ...] = ("title", "abstract", "year")
) -> dict[str, str]:
    """The placed dump: the first ``size`` papers of another corpus (as pipeline.py's new dump),
    with their ``fields``.
    """
    with gzip.open(corpus, "rt", encoding="utf-8") as lines:
        papers = [json.loads(line) for _, line in zip(range(size), lines, strict=False)]
    kept = [{key: record[key] for key in fields} for record in papers]
    return {"znew.jsonl": "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in kept)}


def timed_run(workdir: Path) -> float:
    start = time.perf_counter()
    run_workflow(workdir, timeout=7200)
    return round(time.perf_counter() - start, 1)


def cold_run(scratch: Path, dumps: dict[str, str], keep: bool, seeded: bool = False) -> tuple[Path, dict]:
    """The cold run on the fitted dumps and its seconds; with ``keep``, the one a former run of
    the bench left in ``scratch`` (same dumps), so that the reruns can be measured again alone.
    ``seeded`` (``--scale``): the embedding cache is filled after parsing, as bench.scale does
    (the real abstracts embedded, each copy its original's vector with noise), so the cold run's
    seconds are those of parsing and of every stage after it, its embed jobs reading every vector
    from the cache; the seeding's own seconds are kept beside them.
    """
    cold, seconds = scratch / "cold", scratch / "cold_seconds.json"
    if keep and seconds.is_file():
        return cold, json.loads(seconds.read_text())
    shutil.rmtree(scratch, ignore_errors=True)
    make_workdir(cold, dumps)
    timings = {}
    if seeded:
        from bench.scale import parsed_and_seeded

        # The cache in the cold run's own folder, so that each rerun starts from a copy of it and
        # embeds the new dump itself (a cache shared by the reruns would hand the second one the
        # first one's vectors).
        embedding = workdir_config(cold)["embedding"]
        cache = {"cache_dir": str(cold / embedding["cache_dir"])}
        parsed, seeding = parsed_and_seeded(cold, {**embedding, **cache}, noise=0.02)
        timings["seeding"] = {"seconds": seeding["seconds"], **seeding["result"]}
    timings["cold"] = round(timed_run(cold) + (parsed["seconds"] if seeded else 0.0), 1)
    seconds.write_text(json.dumps(timings))
    return cold, timings


def backend(workdir: Path) -> str:
    """The embedding backend ``auto`` picked, as the embed job logged it ("embedded now (torch-bf16 on cpu)")."""
    found = re.search(r"embedded now \(([^)]*)\)", (workdir / "results/logs/embed.log").read_text())
    return found.group(1) if found else "unknown"


def agreement(placed: pd.DataFrame, refit: pd.DataFrame, new_ids: list[str]) -> dict:
    """How the placed topics of the new papers compare with the refit's, beside how far the refit
    itself keeps the earlier papers' topics (the placed run keeps the fit's, so its earlier papers
    hold the fitted topics). Two matchings of the refit's topics to the fitted ones: lineage's ids,
    and each refit topic's overlap (the fitted topic most of its earlier papers had), where a topic
    lineage gives a new id (a split, a merge past lineage's thresholds) still has a match.
    """
    from sklearn.metrics import adjusted_rand_score

    earlier = placed.index.difference(new_ids)
    fitted_ids = set(placed.loc[earlier, "topic"])
    overlap = (
        placed.loc[earlier, "topic"]
        .groupby(refit.loc[earlier, "topic"])
        .agg(lambda s: s.value_counts().index[0])
    )

    def matched(ids):
        return refit.loc[ids, "topic"].map(overlap)

    a, b = placed.loc[new_ids, "topic"], refit.loc[new_ids, "topic"]
    return {
        "new_papers": len(new_ids),
        "same_topic_id": round(float((a == b).mean()), 4),
        "ari_new_papers": round(float(adjusted_rand_score(a, b)), 4),
        "earlier_same_topic_in_refit": round(
            float((placed.loc[earlier, "topic"] == refit.loc[earlier, "topic"]).mean()), 4
        ),
        "new_in_refit_topics_with_a_fitted_id": round(float(b.isin(fitted_ids).mean()), 4),
        "same_topic_by_overlap": round(float((a == matched(new_ids)).mean()), 4),
        "earlier_same_topic_by_overlap": round(
            float((placed.loc[earlier, "topic"] == matched(earlier)).mean()), 4
        ),
    }


def dump_names(names: list[str]) -> str:
    """The fitted dumps' names, the first and last only of many."""
    return ", ".join(names) if len(names) <= 6 else f"{names[0]} to {names[-1]} ({len(names)} dumps)"


def seeding_note(seeding: dict | None) -> str:
    """What the cold run of ``--scale`` did not time: the embedding cache's seeding."""
    if not seeding:
        return ""
    return (
        f"The cold run's embed jobs read every vector from the cache, seeded before it (not timed in it): "
        f"{seeding['real']} real abstracts embedded ({seeding['embedded_now']} of them then), "
        f"{seeding['resampled']} copies given their original's vector with noise, in {seeding['seconds']} s.\n\n"
    )


def job_table(rules: dict, rerun_seconds: float) -> str:
    """The place rerun's rules, longest first: wall seconds and their share of the rerun (two jobs
    run at a time, so the shares add up to more than 1), CPU seconds.
    """
    rows = sorted(rules.items(), key=lambda item: -item[1]["seconds"])
    return "Where the place rerun's seconds go (its jobs' benchmark files):\n\n" + "".join(
        ["| rule | jobs | seconds | of the rerun | CPU seconds |\n|---|---|---|---|---|\n"]
        + [
            f"| {rule} | {r['jobs']} | {r['seconds']} | {r['seconds'] / rerun_seconds:.0%} | {r['cpu_seconds']} |\n"
            for rule, r in rows
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=IJCAI)
    parser.add_argument("--per-year", type=int, default=300)
    parser.add_argument("--scratch", type=Path, default=Path("/tmp") / "papertopics-placement-bench")
    parser.add_argument("--output", type=Path, default=BENCH / "placement")
    parser.add_argument("--new-from", type=Path, help="place this corpus's first --new-size papers instead")
    parser.add_argument("--new-size", type=int, default=1000)
    parser.add_argument(
        "--keep-cold", action="store_true", help="reuse the cold run a former run left in --scratch"
    )
    parser.add_argument(
        "--scale",
        type=int,
        default=0,
        help="fit this many abstracts made as bench.scale makes them, their embeddings cached first "
        "(with --new-from; --corpus and --per-year are then unused)",
    )
    args = parser.parse_args()
    if args.scale:
        from bench.scale import scale_dumps

        # The scale dumps carry no year: nor does the placed one, so that all are compared by dump.
        dumps = scale_dumps(args.scale) | new_dump(args.new_from, args.new_size, ("title", "abstract"))
    else:
        dumps = year_dumps(args.corpus, args.per_year)
        if args.new_from:  # every year of --corpus fitted, the other corpus's first papers placed
            dumps |= new_dump(args.new_from, args.new_size)
    *fitted, last = sorted(dumps)
    cold, timings = cold_run(
        args.scratch, {name: dumps[name] for name in fitted}, args.keep_cold, seeded=bool(args.scale)
    )
    runs, jobs = {}, {"cold": rule_benchmarks(cold)}
    for mode in ("refit", "place"):
        workdir = args.scratch / mode
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.copytree(cold, workdir, symlinks=True)
        # The rerun's own jobs' benchmark files only: the cold run's would pass for jobs not rerun.
        shutil.rmtree(workdir / "results/benchmarks", ignore_errors=True)
        (workdir / "data/raw" / last).write_text(dumps[last], encoding="utf-8")
        write_config(workdir, **{**workdir_config(workdir), "update": mode})
        timings[f"{mode}_rerun"] = timed_run(workdir)
        jobs[f"{mode}_rerun"] = rule_benchmarks(workdir)
        runs[mode] = pd.read_csv(workdir / "results/topics/papers.csv", dtype=str).set_index("id")
    timings["place_noop_jobs"] = planned_jobs(args.scratch / "place")
    new_ids = runs["place"].index[runs["place"]["dump"] == last.split(".")[0]].tolist()
    placement = json.loads((args.scratch / "place/results/clusters/hdbscan.json").read_text())["placement"]
    result = {
        "corpus": f"{args.scale} abstracts as bench.scale makes them" if args.scale else args.corpus.name,
        "fitted": fitted,
        "placed": last,
        "papers": len(runs["refit"]),
        "backend": backend(cold),
        "seconds": timings,
        "ratios": {
            "refit_rerun_to_cold": round(timings["refit_rerun"] / timings["cold"], 3),
            "place_rerun_to_cold": round(timings["place_rerun"] / timings["cold"], 3),
        },
        "agreement": agreement(runs["place"], runs["refit"], new_ids),
        # Per rule: jobs, wall and CPU seconds (bench.common.rule_benchmarks), of each run.
        "jobs": jobs,
        "fit_figures": {k: v for k, v in placement.items() if k != "note"},
    }
    args.output.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    s, r, g = result["seconds"], result["ratios"], result["agreement"]
    args.output.with_suffix(".md").write_text(
        f"# update: place against a refit ({result['corpus']}, {result['papers']} papers, backend {result['backend']})\n\n"
        f"Fitted: {dump_names(fitted)}; placed: {last} ({g['new_papers']} papers). One run each, side by side on a shared machine.\n\n"
        f"{seeding_note(s.get('seeding'))}"
        "| run | seconds | of the cold run |\n|---|---|---|\n"
        f"| cold (refit, fitted dumps) | {s['cold']} | 1 |\n"
        f"| refit rerun (+ new dump) | {s['refit_rerun']} | {r['refit_rerun_to_cold']} |\n"
        f"| place rerun (+ new dump) | {s['place_rerun']} | {r['place_rerun_to_cold']} |\n\n"
        f"No-op rerun after the placement plans: {s['place_noop_jobs'] or 'nothing'}.\n\n"
        f"{job_table(jobs['place_rerun'], s['place_rerun'])}\n"
        f"New papers whose placed topic is their refit topic (ids matched by lineage): {g['same_topic_id']:.1%}; "
        f"ARI of the two partitions of the new papers: {g['ari_new_papers']:.3f}; earlier papers keeping their topic "
        f"in the refit: {g['earlier_same_topic_in_refit']:.1%}; new papers whose refit topic has an id the fit had: "
        f"{g['new_in_refit_topics_with_a_fitted_id']:.1%}.\n\n"
        f"Refit topics matched by overlap instead (each to the fitted topic most of its earlier papers had): "
        f"new papers in their matched refit topic {g['same_topic_by_overlap']:.1%}; earlier papers "
        f"{g['earlier_same_topic_by_overlap']:.1%}.\n\n"
        f"Fit figures: {json.dumps(result['fit_figures'])}\n",
        encoding="utf-8",
    )
    print(args.output.with_suffix(".md").read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
