"""The reception tests' error rate and power on the shared metadata corpora (``python -m
bench.reception_bench``), written to bench/reception.md and bench/reception.json; how they are
simulated: :mod:`bench.reception_power`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from papertopics import storage
from papertopics.reception.table import FAMILIES
from papertopics.settings import ReceptionStageSettings
from papertopics.settings import knobs as settings_knobs

from bench.common import default_config
from bench.reception_power import (
    ACCEPTANCE,
    CHANGE_EFFECTS,
    CITATIONS,
    CORPORA,
    EFFECTS,
    OUTCOME,
    RATING,
    SIZES,
    change_null_rate,
    change_power,
    load_corpus,
    null_rate,
    power,
)

HERE = Path(__file__).parent
SHARED = HERE.parent.parent / "shared" / "corpora"


def measure(runs: int) -> dict:
    """The null rate and the power table of each corpus present."""
    results = {}
    for name in CORPORA:
        source = SHARED / f"{name}.jsonl.gz"
        if not source.exists():
            continue
        with tempfile.TemporaryDirectory() as folder:
            corpus = load_corpus(source, Path(folder))
        rows = [
            power(corpus, kind, size, effect, runs)
            for kind, effects in EFFECTS.items()
            for effect in effects
            for size in SIZES
        ]
        results[name] = {
            "accepted": list(corpus.settings.accepted),
            "null": null_rate(corpus, runs),
            "power": [row for row in rows if row["runs"]],
            **measure_changes(corpus, runs),
        }
    return results


def measure_changes(corpus, runs: int) -> dict:
    """The error rate and power of the test of a topic's decisions changing across the years."""
    rows = [change_power(corpus, 120, effect, runs) for effect in CHANGE_EFFECTS]
    return {
        "change_null": change_null_rate(corpus, runs),
        "change_power": [row for row in rows if row["runs"]],
    }


def add_changes(results: dict, runs: int) -> dict:
    """``results`` (an earlier run's reception.json) with the change tests measured anew."""
    for name in CORPORA:
        source = SHARED / f"{name}.jsonl.gz"
        if name in results and source.exists():
            with tempfile.TemporaryDirectory() as folder:
                results[name].update(measure_changes(load_corpus(source, Path(folder)), runs))
    return results


def add_decisions(results: dict, runs: int) -> dict:
    """``results`` (an earlier run's reception.json) with the shuffled rates and the decisions'
    planted rows (acceptance, an outcome's share) measured anew, each planted kind tested alone
    (its family's findings are the same; "nothing else at all" is then not counted), at a
    fifteenth of the cost; the ratings' and citations' rows kept (their families' tests are the
    same; their "nothing else at all" counted the decisions as one family).
    """
    for name in CORPORA:
        source = SHARED / f"{name}.jsonl.gz"
        if name not in results or not source.exists():
            continue
        with tempfile.TemporaryDirectory() as folder:
            corpus = load_corpus(source, Path(folder))
        kept = [row for row in results[name]["power"] if row["kind"] in (RATING, CITATIONS)]
        rows = [
            power(corpus, kind, size, effect, runs, other_kinds=False)
            for kind in (ACCEPTANCE, OUTCOME)
            for effect in EFFECTS[kind]
            for size in SIZES
        ]
        results[name].update(
            accepted=list(corpus.settings.accepted),
            null=null_rate(corpus, runs),
            power=[row for row in rows if row["runs"]] + kept,
        )
    return results


def stage_cost(source: Path, size: int, folder: Path) -> dict:
    """Seconds the reception stage takes as a job (a Python start, its imports, its work) on
    ``size`` papers: the corpus's records repeated (each a paper of its own) in 40 topics, a tenth
    outliers, as the topics stage writes them.
    """
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    rng = np.random.default_rng(0)
    papers = []
    for number in range(size):
        record = records[number % len(records)]
        extra = {"venue": record["venue"]}
        papers.append(
            {
                "id": f"p{number}",
                "dump": f"{record['venue'].lower()}{record['year']}",
                "dumps": [f"{record['venue'].lower()}{record['year']}"],
                "location": f"line {number + 1}",
                "year": str(record["year"]),
                "decision": record["decision"],
                "ratings": "; ".join(str(r) for r in record["ratings"] or []),
                "citations": "" if record["citations"] is None else str(record["citations"]),
                "extra": extra,
            }
        )
    storage.write_jsonl(folder / "papers.jsonl", papers)
    topics = rng.integers(0, 40, size)
    pd.DataFrame(
        {
            "id": [p["id"] for p in papers],
            "topic": topics,
            "outlier": rng.random(size) < 0.1,
            "x": rng.random(size),
            "y": rng.random(size),
        }
    ).to_csv(folder / "topic_papers.csv", index=False)
    storage.write_json(
        folder / "details.json", {"topics": [{"topic": t, "label": f"topic {t}"} for t in range(40)]}
    )
    # The stage's knobs as the rule passes them, from config.yaml's defaults.
    knobs = settings_knobs(ReceptionStageSettings.from_config(default_config()))
    call = (
        "from papertopics.reception.stages import reception; "
        f"reception(papers='{folder}/papers.jsonl', parsed=['{folder}/papers.jsonl'], "
        f"topic_papers='{folder}/topic_papers.csv', details='{folder}/details.json', "
        f"table='{folder}/reception.csv', years='{folder}/years.csv', record='{folder}/reception.json', "
        f"paper_table_file='{folder}/papers.csv', knobs={knobs!r})"
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", call], check=True, env={"PYTHONPATH": str(HERE.parent / "workflow")}
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {
        "papers": size,
        "seconds": round(wall, 2),
        "cpu_seconds": round(cpu, 2),
        "load": os.getloadavg()[0],
    }


def markdown(results: dict, runs: int) -> str:
    """The tables as docs/reception.md quotes them."""
    lines = [f"# Reception tests: error rate and power ({runs} runs each)", ""]
    cost = results.get("cost")
    if cost:
        lines += [
            f"Cost: the reception stage as a job on {cost['papers']:,} papers (Python start, imports and "
            f"work) used {cost['cpu_seconds']} CPU-seconds, {cost['seconds']} s of wall time at a load "
            f"average of {cost['load']:.1f}.",
            "",
        ]
    for name, found in results.items():
        if name == "cost":
            continue
        null = found["null"]
        lines += [
            f"## {name}",
            "",
            f"Counted as accepted: {', '.join(found.get('accepted', []))} (the rarest tier).",
            "",
            "Shuffled (decisions and ratings within each venue's year, citations within years), runs flagging "
            "some topic (significant): "
            + ", ".join(f"{family} {null[family]:.1%}" for family in FAMILIES if family in null)
            + f" (any of them {null['any']:.1%}).",
            "",
            "| planted | effect | papers | found | nothing else of its kind flagged | nothing else at all |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for row in found["power"]:
            effect = {
                "acceptance": f"+{row['effect']:.0%} acceptance",
                "outcome": f"+{row['effect']:.0%} outcome share",
                "rating": f"−{row['effect']} rating",
            }.get(row["kind"], "citations halved")
            lines.append(
                f"| {row['kind']} | {effect} | {row['size']} | {row['found']:.1%} | {row['clean']:.1%} "
                f"| {'—' if row['clean_any_kind'] is None else format(row['clean_any_kind'], '.1%')} |"
            )
        lines.append("")
        if "change_null" in found:
            lines += [
                "A topic's decisions changing across the years (the tier share followed against its venue's "
                f"year's): shuffled runs flagging some topic {found['change_null']:.1%}.",
                "",
                "| planted in the later half of its years | papers | found | nothing else flagged |",
                "|---|---:|---:|---:|",
            ]
            lines += [
                f"| +{row['effect']:.0%} tier share | {row['size']} | {row['found']:.1%} | {row['clean']:.1%} |"
                for row in found["change_power"]
            ]
            lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--cost-size", type=int, default=10_000)
    parser.add_argument("--results", type=Path, default=HERE, help="folder of reception.md and .json")
    parser.add_argument(
        "--changes-only",
        action="store_true",
        help="keep the other figures of the reception.json there and measure the change tests only",
    )
    parser.add_argument(
        "--decisions-only",
        action="store_true",
        help="keep the ratings' and citations' rows of the reception.json there and measure the "
        "shuffled rates and the decisions' rows anew",
    )
    arguments = parser.parse_args()
    runs = arguments.runs
    earlier = arguments.results / "reception.json"
    if arguments.changes_only and earlier.exists():
        results = add_changes(json.loads(earlier.read_text(encoding="utf-8")), runs)
    elif arguments.decisions_only and earlier.exists():
        results = add_decisions(json.loads(earlier.read_text(encoding="utf-8")), runs)
    else:
        results = measure(runs)
        with tempfile.TemporaryDirectory() as folder:
            source = SHARED / f"{CORPORA[0]}.jsonl.gz"
            results["cost"] = stage_cost(source, arguments.cost_size, Path(folder))
    arguments.results.mkdir(parents=True, exist_ok=True)
    (arguments.results / "reception.json").write_text(
        json.dumps(results, indent=1, default=float) + "\n", encoding="utf-8"
    )
    (arguments.results / "reception.md").write_text(markdown(results, runs), encoding="utf-8")


if __name__ == "__main__":
    main()
