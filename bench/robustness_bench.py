"""How the robustness grades behave on a finished run of a shared corpus with replicates.

On the run (``robustness.replicates`` > 0): each topic's stability, two made-up topics that should not be
stable (two unrelated topics' papers merged; a random half of a large topic), and simulations of
the trend findings on the run's real papers and real topics, their years redrawn:

- planted: the years shuffled across the papers, then one topic's papers drawn towards the later
  years; where the main run finds its rise at q < 0.01, how often it is graded robust;
- null: the years shuffled only; of the findings the main run's test passes, how many are robust.

The topics and replicates are the run's (years play no part in clustering), so a simulation
reruns only the tests. Adds the corpus's figures to robustness.json beside this file.

    PYTHONPATH=workflow:. python -m bench.robustness_bench --run <a finished run's folder> --runs 100
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from papertopics import storage
from papertopics.changes.shares import dump_shares
from papertopics.changes.signals import topic_trends
from papertopics.mapping.cluster import OUTLIER
from papertopics.periods.assign import Periods
from papertopics.robustness.findings import ROBUST, Replicate, count_holds, matched_topics, robustness_grade
from papertopics.robustness.retests import replicate_trends
from papertopics.robustness.stability import STABLE, best_matches
from papertopics.settings import CompareSettings
from papertopics.storage import flag_column

from bench.common import BENCH, default_config

# The planted rise: a topic's papers drawn over the years with each year's share times these
# weights, oldest first.
PLANTED_WEIGHTS = (1.0, 2.0, 4.0, 6.0, 8.0)
# Topics planted in: at least this many papers (a smaller one's rise is rarely found at q < 0.01).
PLANTED_MIN_PAPERS = 40


def load_run(run: Path) -> dict:
    """The run's papers (topic, outlier flag, year), its topics' stability, replicates and matches."""
    assigned = pd.read_csv(
        run / "results/assigned/papers.csv", keep_default_na=False, dtype={"id": str, "year": str}
    )
    topics = pd.read_csv(run / "results/staged/topics/topics.csv", keep_default_na=False)
    matches = pd.read_csv(run / "results/staged/topics/stability.csv", keep_default_na=False)
    row_of = {paper: row for row, paper in enumerate(assigned["id"])}
    replicates = []
    for path in sorted((run / "results/robustness/replicates").glob("*.npz"), key=lambda p: int(p.stem)):
        drawn = storage.read_arrays(path)
        replicates.append(
            Replicate(
                rows=np.array([row_of[p] for p in drawn["ids"].tolist()]),
                labels=drawn["labels"],
                outlier=drawn["outlier"],
                match=matched_topics(matches, int(path.stem)),
            )
        )
    return {
        "papers": assigned.assign(outlier=flag_column(assigned["outlier"])),
        "stability": {
            int(t): float(s) for t, s in zip(topics["id"], topics["stability"], strict=True) if s != ""
        },
        "labels": dict(zip(topics["id"].astype(int), topics["label"], strict=True)),
        "replicates": replicates,
    }


def made_up_topics(data: dict, seed: int = 0) -> dict:
    """The stability of two made-up topics: the second largest and the smallest topics' papers
    merged (two unrelated topics), and a random half of the largest topic.
    """
    topic_of = data["papers"]["topic"].to_numpy()
    sizes = pd.Series(topic_of[topic_of != OUTLIER]).value_counts()
    largest, smallest = int(sizes.index[0]), int(sizes.index[-1])
    second = int(sizes.index[1])
    rng = np.random.default_rng(seed)
    merged = np.where(np.isin(topic_of, [second, smallest]), -2, topic_of)
    half = topic_of.copy()
    members = np.flatnonzero(topic_of == largest)
    half[rng.choice(members, size=len(members) // 2, replace=False)] = -3
    found = {}
    for name, labels, topic in (
        (f"topics {second} and {smallest} merged", merged, -2),
        (f"a random half of topic {largest}", half, -3),
    ):
        values = [best_matches(labels, r.rows, r.labels, [topic])[1][0] for r in data["replicates"]]
        found[name] = round(float(np.mean(values)), 3)
    return found


def _trends(papers: pd.DataFrame, years: np.ndarray, settings: CompareSettings) -> pd.DataFrame:
    names = sorted(set(years.tolist()))
    periods = Periods(by="year", names=names, rows=np.arange(len(years)), period=years, left_out=0)
    labels = {int(t): str(t) for t in np.unique(papers["topic"])}
    found = topic_trends(dump_shares(papers, periods, labels, settings.confidence), "year", names, settings)
    return pd.DataFrame(found["topics"]), periods


def simulate(data: dict, runs: int, settings: CompareSettings, min_stability: float = 0.0) -> dict:
    """``runs`` planted and ``runs`` null simulations (see the module's docstring), the rises
    planted in topics of at least ``min_stability``.
    """
    papers = data["papers"][["topic", "outlier"]]
    years = data["papers"]["year"].to_numpy().astype(object)
    names = np.array(sorted(set(years.tolist())), dtype=object)
    year_shares = np.array([(years == name).mean() for name in names])
    sizes = papers["topic"].value_counts()
    candidates = sorted(
        int(t)
        for t in sizes.index
        if t != OUTLIER
        and sizes[t] >= PLANTED_MIN_PAPERS
        and data["stability"].get(int(t), 0.0) >= min_stability
    )
    planted_rows, null_rows = [], []
    for run in range(runs):
        rng = np.random.default_rng(run)
        shuffled = rng.permutation(years)
        # Null: the years shuffled. Every finding the main run's test passes, graded.
        main, periods = _trends(papers, shuffled, settings)
        findings = main[main["finding"].astype(bool)]
        if len(findings):
            holds, count = count_holds(
                findings,
                data["replicates"],
                lambda r, periods=periods: replicate_trends(r, periods, list(names), settings),
            )
            for (_, row), held in zip(findings.iterrows(), holds, strict=True):
                grade = robustness_grade(int(held), count, data["stability"].get(int(row["topic"])))
                null_rows.append({"run": run, "topic": int(row["topic"]), "holds": int(held), "grade": grade})
        # Planted: one topic's papers drawn towards the later years.
        topic = candidates[run % len(candidates)]
        planted = shuffled.copy()
        members = np.flatnonzero(papers["topic"].to_numpy() == topic)
        # Each year's own share of the papers tilted by the weights: a rise whatever the years' sizes.
        tilted = year_shares * np.array(PLANTED_WEIGHTS[: len(names)])
        planted[members] = rng.choice(names, size=len(members), p=tilted / tilted.sum())
        main, periods = _trends(papers, planted, settings)
        row = main[main["topic"] == topic].iloc[0]
        found = bool(row["q_value"] < 0.01 and row["direction"] == "rising")
        held, count = count_holds(
            row.to_frame().T,
            data["replicates"],
            lambda r, periods=periods: replicate_trends(r, periods, list(names), settings),
        )
        stability = data["stability"].get(topic)
        planted_rows.append(
            {
                "run": run,
                "topic": topic,
                "stability": stability,
                "q": float(row["q_value"]),
                "found": found,
                "holds": int(held[0]),
                "grade": robustness_grade(int(held[0]), count, stability),
            }
        )
    return {"planted": planted_rows, "null": null_rows}


def summary(simulated: dict) -> dict:
    """The targets' figures: planted and found at q < 0.01, the share graded robust (all topics,
    and in topics at least stable); null findings, the share graded robust.
    """
    planted = pd.DataFrame(simulated["planted"])
    found = planted[planted["found"]]
    stable = found[found["stability"] >= STABLE]
    null = pd.DataFrame(simulated["null"], columns=["run", "topic", "holds", "grade"])
    return {
        "planted_runs": len(planted),
        "planted_found_q_below_0.01": len(found),
        "planted_found_robust_share": round(float((found["grade"] == ROBUST).mean()), 3)
        if len(found)
        else None,
        "planted_found_in_stable_topics": len(stable),
        "planted_found_in_stable_topics_robust_share": round(float((stable["grade"] == ROBUST).mean()), 3)
        if len(stable)
        else None,
        "planted_grades": found["grade"].value_counts().to_dict(),
        "null_runs_with_findings": int(null["run"].nunique()) if len(null) else 0,
        "null_findings": len(null),
        "null_findings_robust_share": round(float((null["grade"] == ROBUST).mean()), 3)
        if len(null)
        else None,
        "null_grades": null["grade"].value_counts().to_dict(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="a finished run's folder, with replicates")
    parser.add_argument("--runs", type=int, default=100, help="simulations of each kind")
    parser.add_argument("--name", default="run", help="the corpus's name, in the results")
    parser.add_argument(
        "--planted-min-stability", type=float, default=0.0, help="plant only in topics at least this stable"
    )
    parser.add_argument("--results", type=Path, default=BENCH)
    arguments = parser.parse_args()
    start = time.perf_counter()
    data = load_run(arguments.run)
    settings = CompareSettings(**default_config()["compare"])
    sizes = data["papers"]["topic"].value_counts()
    stability = sorted(
        ({"topic": t, "papers": int(sizes.get(t, 0)), "stability": s} for t, s in data["stability"].items()),
        key=lambda r: -r["papers"],
    )
    simulated = simulate(data, arguments.runs, settings, arguments.planted_min_stability)
    result = {
        "corpus": arguments.name,
        "replicates": len(data["replicates"]),
        "planted_min_stability": arguments.planted_min_stability,
        "topic_stability": stability,
        "made_up_topics": made_up_topics(data),
        "simulations": summary(simulated),
        "seconds": round(time.perf_counter() - start, 1),
    }
    path = arguments.results / "robustness.json"
    kept = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    kept[arguments.name] = result
    path.write_text(json.dumps(kept, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "topic_stability"}, indent=2))


if __name__ == "__main__":
    main()
