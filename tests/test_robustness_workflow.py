"""The robustness stage in the workflow, on the shipped dumps: each replicate its own job, every
topic's stability in topics.csv, its match per replicate in stability.csv, the stability on the
topic cards and in the topics table; replicates are cached: another false discovery rate
re-tests the findings without drawing a replicate again, and one more replicate draws only it.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import executed_jobs, make_workdir, planned_jobs, run_workflow, write_config

pytestmark = pytest.mark.slow
REPLICATES = 3


def test_replicates_grade_each_topic_and_are_drawn_once(tmp_path):
    workdir = make_workdir(tmp_path, robustness={"replicates": REPLICATES})
    first = executed_jobs(run_workflow(workdir))
    assert first["replicate"] == REPLICATES and first["topic_stability"] == 1

    topics = pd.read_csv(workdir / "results/topics/topics.csv", keep_default_na=False)
    real = topics[topics["id"] != -1]
    assert len(real) >= 2
    assert real["stability"].between(0, 1).all()
    assert (real["replicates"] == REPLICATES).all()
    assert set(real["stability_grade"]) <= {
        "highly stable",
        "stable",
        "doubtful",
        "not to be trusted",
        "dissolved",
    }
    matches = pd.read_csv(workdir / "results/topics/stability.csv")
    assert len(matches) == len(real) * REPLICATES  # the outliers' group is no topic to match
    mean = matches.groupby("topic")["jaccard"].mean().round(3)
    assert mean[real["id"]].tolist() == real["stability"].tolist()
    # Every table of findings says how often each held: the trends, the newest period against the
    # one before, the bursts' topics, reception (and its changes across the years), people, venues
    # and each venue's own trends.
    tables = ("trends", "comparison", "bursts", "reception", "reception_years", "people_rising")
    for table in (*tables, "people_topics", "venues", "venue_trends"):
        found = pd.read_csv(workdir / f"results/topics/{table}.csv", keep_default_na=False)
        assert {"holds", "replicates", "robustness"} <= set(found.columns), table
        assert (found["replicates"] == REPLICATES).all() and found["holds"].between(0, REPLICATES).all()
    record = json.loads((workdir / "results/topics/robustness.json").read_text(encoding="utf-8"))
    assert record["replicates"] == REPLICATES
    kinds = {
        "trends",
        "shapes",
        "comparison",
        "bursts",
        "reception",
        "reception_years",
        "people_rising",
        "people_topics",
        "venues",
        "venue_trends",
    }
    assert kinds <= set(record)
    # The trajectories' shapes are graded beside the trends.
    trends = pd.read_csv(workdir / "results/topics/trends.csv", keep_default_na=False)
    assert {"shape_holds", "shape_replicates", "shape_robustness"} <= set(trends.columns)
    # The comparison is re-tested topic by topic where the changes stage tested it, else not at all.
    changes = json.loads((workdir / "results/topics/changes.json").read_text(encoding="utf-8"))
    compared = pd.read_csv(workdir / "results/topics/comparison.csv", keep_default_na=False)
    tested = changes.get("comparable") and changes.get("tested")
    assert len(compared) == (len(changes["comparison"]) if tested else 0)
    assert len(record["comparison"]) == len(compared)

    page = (workdir / "results/report/index.html").read_text(encoding="utf-8")
    largest = real.sort_values("size").iloc[-1]
    phrase = f"stability {largest['stability']:.2f}, {largest['stability_grade']} ({REPLICATES} resamples)"
    assert phrase in page
    assert "<th" in page and ">Stability<" in page

    # Another error rate re-tests the findings; no replicate is drawn, no topic matched again.
    write_config(workdir, robustness={"replicates": REPLICATES}, compare={"false_discovery_rate": 0.1})
    planned = planned_jobs(workdir)
    assert "finding_robustness" in planned
    assert not {"replicate", "topic_stability", "neighbours", "reduce", "cluster"} & set(planned)
    # Another people knob re-tests the people's findings, again with no replicate drawn.
    write_config(workdir, robustness={"replicates": REPLICATES}, people={"min_papers": 2})
    planned = planned_jobs(workdir)
    assert {"people", "finding_robustness"} <= set(planned) and "replicate" not in planned
    # One more replicate: only it is drawn.
    write_config(workdir, robustness={"replicates": REPLICATES + 1})
    assert planned_jobs(workdir)["replicate"] == 1
