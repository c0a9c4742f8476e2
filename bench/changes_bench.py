"""What changed across dumps: its cost, the tests' power, and IJCAI 2020-2024 by year (``make bench-changes``).

Three parts, written to bench/changes.md and bench/changes.json:

- cost: on N synthetic papers (unit vectors around topic centres, 384-d as all-MiniLM-L6-v2, and
  texts of topic words) in T topics over five dumps, a previous run's record is made first; then
  a rerun with a fifth more papers (a new dump) and a twentieth moved between topics is timed, in
  this process, median of 5: the topics stage's history work, and the changes stage's (shares,
  tests, trends, bursts, files written). A whole job also pays a Python start and its imports.
- power: simulated runs of the trend test (30 topics, BH at 5%): how often a corpus without any
  trend shows one, and the smallest linear rise it finds in 80% of runs, by papers per period and
  number of periods; the same for the burst detector (300 terms, one planted burst).
- ijcai: the whole workflow on ../shared/corpora's IJCAI 2020-2024, one dump per year (years
  compared, five periods): the rising and falling topics and the bursting terms (skipped, with a
  note, where the corpus is absent).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from papertopics import storage
from papertopics.changes.bursts import detect_bursts
from papertopics.changes.compare import CompareSettings, describe_changes
from papertopics.changes.trends import cochran_armitage
from papertopics.periods.assign import paper_periods
from papertopics.stats import benjamini_hochberg
from papertopics.topics.history import TopicHistory
from papertopics.topics.ids import TopicIds
from papertopics.topics.labeller import carry_labels
from papertopics.topics.lineage import follow_topics, lineage_events, paper_flows, record_run
from papertopics.topics.matching import topic_snapshots

from bench.common import BENCH, IJCAI, default_config, measured_snakemake, read_corpus, write_config

SETTINGS = CompareSettings(**default_config()["compare"])
DUMPS = [f"dump{i}" for i in range(5)]


# ---------------------------------------------------------------- cost


def synthetic_run(papers: int, topics: int, seed: int):
    """Ids, vectors, topics, dumps and texts of ``papers`` synthetic papers in five dumps."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(topics, 384))
    assigned = rng.integers(0, topics, size=papers)
    vectors = centres[assigned] + 2.0 * rng.normal(size=(papers, 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    dumps = np.array(DUMPS)[np.minimum(np.arange(papers) * 5 // papers, 4)]
    vocabulary = [f"word{i}" for i in range(2000)]
    texts = [
        " ".join(rng.choice(vocabulary[t * 20 : t * 20 + 40], size=30))
        + " "
        + " ".join(rng.choice(vocabulary, 60))
        for t in assigned
    ]
    return [f"p{i}" for i in range(papers)], vectors.astype(np.float32), assigned, dumps.tolist(), texts


def time_lineage(history_dir: Path, ids, vectors, topics) -> tuple[float, dict]:
    """Seconds of the topics stage's history work for one run (the record is written too)."""
    started = time.perf_counter()
    snapshots = topic_snapshots(ids, vectors, topics)
    history = TopicHistory(history_dir)
    stable, matching, baseline, run = follow_topics(history, snapshots, 0.3, 0.85)
    labels = {stable[s.id]: f"label {stable[s.id]}" for s in snapshots}
    earlier = {t["id"]: t["label"] for t in baseline["topics"]} if baseline else {}
    labels, relabelled = carry_labels(labels, lambda topic, phrase, main: phrase in labels[topic], earlier)
    # The synthetic topics are numbered 0, 1, ... already: each is its own row.
    sizes = np.array([s.size for s in snapshots])
    topic_ids = TopicIds(cluster=np.arange(len(snapshots)), size=sizes).with_stable(stable)
    events = lineage_events(matching, topic_ids, labels, baseline, run, relabelled, set(ids))
    events["flows"] = paper_flows(baseline, snapshots, topic_ids)
    record_run(
        history, run, baseline, [replace(s, id=stable[s.id], label=labels[stable[s.id]]) for s in snapshots]
    )
    return time.perf_counter() - started, events


def time_changes(folder: Path, ids, topics, dumps, texts, lineage) -> tuple[float, dict]:
    papers = pd.DataFrame({"id": ids, "topic": topics, "dumps": dumps, "display_name": ids})
    papers["outlier"] = papers["topic"] == -1  # no outlier assigned to a topic in these runs
    details = [
        {"topic": int(t), "label": f"label {t}", "representative_ids": ids[:3]}
        for t in sorted(set(topics.tolist()))
    ]
    started = time.perf_counter()
    periods = paper_periods(papers, SETTINGS.by, DUMPS)
    shares, record = describe_changes(papers, texts, details, lineage, periods, SETTINGS, "english")
    storage.write_csv(folder / "dump_shares.csv", shares)
    storage.write_json(folder / "changes.json", record)
    return time.perf_counter() - started, record


def bench_cost(papers: int, topics: int, repeats: int) -> dict:
    ids, vectors, assigned, dumps, texts = synthetic_run(papers, topics, seed=0)
    earlier = np.array([d != DUMPS[-1] for d in dumps])
    moved = np.random.default_rng(1).random(papers) < 0.05
    rerun_topics = np.where(moved, (assigned + 1) % topics, assigned)
    lineage_seconds, changes_seconds = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as scratch:
            history = Path(scratch) / "history"
            keep = np.flatnonzero(earlier)
            time_lineage(history, [ids[i] for i in keep], vectors[keep], assigned[keep])
            seconds, events = time_lineage(history, ids, vectors, rerun_topics)
            lineage_seconds.append(seconds)
            seconds, record = time_changes(Path(scratch), ids, rerun_topics, dumps, texts, events)
            changes_seconds.append(seconds)
    return {
        "papers": papers,
        "topics": topics,
        "repeats": repeats,
        "lineage_seconds": statistics.median(lineage_seconds),
        "changes_seconds": statistics.median(changes_seconds),
        "events": {key: len(events[key]) for key in ("kept", "new", "gone", "merged", "split")},
        "terms_tested": record["bursts"]["terms_tested"],
    }


# ---------------------------------------------------------------- power


def trend_hits(rng, shares_per_period: np.ndarray, papers: int, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Per run: significant (BH 5%) and rising, for each topic."""
    counts = np.stack([rng.multinomial(papers, shares, size=runs) for shares in shares_per_period], axis=-1)
    test = cochran_armitage(counts, papers, np.arange(len(shares_per_period)))
    significant = benjamini_hochberg(test.p_value, axis=-1) < SETTINGS.false_discovery_rate
    return significant, test.slope > 0


def planted_trend(periods: int, topics: int, middle: float, slope_pp: float) -> np.ndarray:
    """Periods × topics shares: topic 0 rising linearly by ``slope_pp`` points per period around
    ``middle``, the others sharing the rest evenly.
    """
    steps = np.arange(periods) - (periods - 1) / 2
    planted = middle + slope_pp / 100 * steps
    rest = (1 - planted[:, None]) / (topics - 1) * np.ones((periods, topics - 1))
    return np.column_stack([planted, rest])


def bench_power(runs: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    topics, middle = 30, 0.05
    null = {}
    for periods in (3, 5):
        significant, _ = trend_hits(rng, np.full((periods, topics), 1 / topics), 600, runs)
        null[periods] = float(significant.any(axis=1).mean())
    significant, rising = trend_hits(rng, planted_trend(3, topics, 0.06, 3.0), 600, runs)
    target = float((significant[:, 0] & rising[:, 0]).mean())
    grid = np.round(np.arange(0.1, 6.01, 0.1), 2)
    smallest = {}
    for papers in (200, 500, 1000, 2000, 5000):
        for periods in (3, 5):
            found = None
            for slope in grid:
                if middle - slope / 100 * (periods - 1) / 2 < 0:
                    break
                significant, rising = trend_hits(
                    rng, planted_trend(periods, topics, middle, slope), papers, runs
                )
                if (significant[:, 0] & rising[:, 0]).mean() >= 0.8:
                    found = float(slope)
                    break
            smallest[f"{papers}x{periods}"] = found
    return {
        "runs": runs,
        "topics": topics,
        "null_any_significant": null,
        "planted_3pp_found": target,
        "middle_share": middle,
        "smallest_slope_pp_found_80": smallest,
        "bursts": bench_burst_power(runs, rng),
    }


def bench_burst_power(runs: int, rng) -> dict:
    terms, periods, papers = 300, 5, 600
    rates = np.broadcast_to(rng.uniform(0.005, 0.10, size=(terms, 1)), (terms, periods)).copy()
    totals = np.full(periods, papers)

    def detect(rates_now):
        return detect_bursts(
            rng.binomial(papers, rates_now),
            totals,
            SETTINGS.burst_scaling,
            SETTINGS.burst_transition_cost,
            SETTINGS.false_discovery_rate,
        )

    null = np.mean([bool(detect(rates)) for _ in range(runs)])
    planted = rates.copy()
    planted[0] = [0.02, 0.02, 0.02, 0.06, 0.06]
    found = np.mean([any(b.term == 0 and b.end >= 3 for b, _ in detect(planted)) for _ in range(runs)])
    return {
        "terms": terms,
        "periods": periods,
        "papers": papers,
        "null_any": float(null),
        "planted_found": float(found),
    }


# ---------------------------------------------------------------- IJCAI by year


def embedding_backend(logs: Path) -> str:
    """The backend the embed jobs used (``auto`` resolved), as their logs say: "(torch-bf16 on cpu)"."""
    import re

    paths = [logs / "embed.log", *(logs / "embed").rglob("*.log")]  # the embed job's, the shards'
    found = {
        m
        for path in paths
        if path.is_file()
        for m in re.findall(r"embedded now \(([\w-]+) on", path.read_text())
    }
    return ", ".join(sorted(found)) or "unknown (every embedding came from the cache)"


def bench_ijcai(scratch: Path) -> dict | None:
    """The workflow on IJCAI 2020-2024, one JSON Lines dump per year; the comparison it wrote."""
    if not IJCAI.exists():
        return None
    raw = scratch / "data" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    records = read_corpus(IJCAI)
    for year in sorted({r["year"] for r in records}):
        rows = [
            {key: r[key] for key in ("id", "title", "abstract", "year")} for r in records if r["year"] == year
        ]
        target = raw / f"ijcai{year}.jsonl"
        text = "".join(json.dumps(row) + "\n" for row in rows)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    write_config(scratch)
    run = measured_snakemake(scratch)
    topics = scratch / "results" / "topics"
    changes = json.loads((topics / "changes.json").read_text(encoding="utf-8"))
    details = json.loads((topics / "topic_details.json").read_text(encoding="utf-8"))
    wording = {t["topic"]: t["wording"] for t in details["topics"]}
    return {
        "seconds": run["seconds"],
        "backend": embedding_backend(scratch / "results" / "logs"),
        "periods": changes["periods"],
        "period_papers": changes["period_papers"],
        "trends": changes["trends"]["topics"],
        "bursts": changes["bursts"],
        "pairwise": {
            "baseline": changes.get("baseline"),
            "target": changes.get("target"),
            "significant": sum(r["significant"] for r in changes.get("comparison", [])),
            "suggestive": sum(r["grade"] == "suggestive" for r in changes.get("comparison", [])),
            "topics": len(changes.get("comparison", [])),
        },
        "wording": {str(r["topic"]): wording.get(r["topic"], []) for r in changes["trends"]["topics"][:6]},
    }


# ---------------------------------------------------------------- report


def _trend_rows(rows: list[dict]) -> list[str]:
    lines = [
        "| topic | label | trend | slope, points a year (95% interval) | q | papers per year |",
        "|---|---|---|---|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['topic']} | {r['label']} | {r['direction']}, {r['grade']} | {r['slope_pp']:+.2f} "
            f"({r['slope_low_pp']:+.2f} to {r['slope_high_pp']:+.2f}) | {r['q_value']:.2g} | "
            f"{' → '.join(str(n) for n in r['papers'])} |"
        )
    return lines


def render(results: dict) -> str:
    cost, power, ijcai = results["cost"], results["power"], results.get("ijcai")
    lines = [
        "# What changed across dumps: cost, power, and IJCAI 2020-2024 by year",
        "",
        "Written by `make bench-changes` (`bench/changes_bench.py`); figures in `bench/changes.json`.",
        "",
        "## Cost",
        "",
        f"{cost['papers']:,} synthetic papers (384-d vectors, texts of topic words), {cost['topics']} topics in five "
        f"dumps, a rerun with a new dump of a fifth of the papers and a twentieth moved between topics; median of "
        f"{cost['repeats']}, in one process, no embedding model involved. The changes stage counted and tested "
        f"{cost['terms_tested']:,} keyphrases for bursts.",
        "",
        "| work | seconds |",
        "|---|---:|",
        f"| topics stage: snapshots, matching against history, labels, flows, events, record written | {cost['lineage_seconds']:.3f} |",
        f"| changes stage: shares, intervals, pairwise tests, trends, term counts and bursts, files written | {cost['changes_seconds']:.3f} |",
        "",
        "## Power (simulation)",
        "",
        f"{power['runs']:,} simulated runs per cell, {power['topics']} topics, Benjamini–Hochberg at 5% across them "
        "(Cochran–Armitage trend test, as the changes stage runs it).",
        "",
        f"- No trend anywhere (every topic at 1/30): any topic significant in "
        f"{100 * power['null_any_significant'][3]:.1f}% of runs with 3 periods of 600 papers, "
        f"{100 * power['null_any_significant'][5]:.1f}% with 5 (5% expected).",
        f"- One topic rising 3% → 6% → 9% over 3 periods of 600 papers: found (significant, rising) in "
        f"{100 * power['planted_3pp_found']:.1f}% of runs (target 80%).",
        "",
        f"The smallest steady rise, in points per period, that the test finds in 80% of runs, for a topic whose "
        f"share is {100 * power['middle_share']:.0f}% in the middle period:",
        "",
        "| papers per period | 3 periods | 5 periods |",
        "|---:|---:|---:|",
    ]
    for papers in (200, 500, 1000, 2000, 5000):
        cells = [power["smallest_slope_pp_found_80"][f"{papers}x{periods}"] for periods in (3, 5)]
        shown = [f"{c:.1f}" if c is not None else "more than the share allows" for c in cells]
        lines.append(f"| {papers:,} | {shown[0]} | {shown[1]} |")
    bursts = power["bursts"]
    lines += [
        "",
        f"Bursts: {bursts['terms']} terms at steady rates (0.5–10% of {bursts['papers']} papers in each of "
        f"{bursts['periods']} periods): any burst reported in {100 * bursts['null_any']:.1f}% of runs; one term at 2% "
        f"tripled in the last two periods: found in {100 * bursts['planted_found']:.1f}% of runs.",
        "",
        "## IJCAI 2020–2024, one dump per year",
        "",
    ]
    if ijcai is None:
        lines.append("Not run: ../shared/corpora is absent beside this clone.")
        return "\n".join(lines) + "\n"
    pairwise = ijcai["pairwise"]
    lines += [
        f"The whole workflow with the default config.yaml (embedding backend {ijcai['backend']}; "
        f"{', '.join(f'{p}: {n}' for p, n in zip(ijcai['periods'], ijcai['period_papers'], strict=True))} "
        f"papers). Comparing only the two newest years ({pairwise['baseline']} against {pairwise['target']}) finds "
        f"{pairwise['significant']} of {pairwise['topics']} topics significant and {pairwise['suggestive']} suggestive; "
        "the trend test over all five years:",
        "",
        "### Rising and falling topics (significant or suggestive), strongest evidence first",
        "",
        *_trend_rows([r for r in ijcai["trends"] if r["grade"] != "no evidence"]),
        "",
        "### Bursting terms",
        "",
        f"{ijcai['bursts']['terms_tested']} of {ijcai['bursts']['terms_counted']} keyphrases gather in some topics "
        "and were tested.",
        "",
        "| term | burst | strength | papers per year | topics holding it there |",
        "|---|---|---:|---|---|",
    ]
    for b in ijcai["bursts"]["bursts"]:
        span = b["start"] if b["start"] == b["end"] else f"{b['start']}–{b['end']}"
        holders = ", ".join(f"{t['topic']}: {t['label']} ({t['papers']})" for t in b["topics"])
        lines.append(
            f"| {b['term']} | {span} | {b['strength']:.1f} | {' → '.join(str(n) for n in b['papers'])} | {holders} |"
        )
    lines += ["", "### Wording per year of the six strongest trends", ""]
    for topic, wording in ijcai["wording"].items():
        lines.append(
            f"- topic {topic}: "
            + "; ".join(f"{w['period']}: {', '.join(w['keywords'][:3])}" for w in wording)
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--topics", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--runs", type=int, default=2000, help="simulated runs per power cell")
    parser.add_argument(
        "--scratch", type=Path, default=Path(tempfile.gettempdir()) / "papertopics-changes-bench"
    )
    parser.add_argument("--output", type=Path, default=BENCH / "changes")
    args = parser.parse_args()
    results = {
        "cost": bench_cost(args.papers, args.topics, args.repeats),
        "power": bench_power(args.runs, seed=0),
        "ijcai": bench_ijcai(args.scratch),
    }
    args.output.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    text = render(results)
    args.output.with_suffix(".md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
