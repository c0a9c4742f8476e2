"""The whole workflow with ``compare.by: venue``: three dumps whose papers carry a venue give the
venues table, the report's Venues section and the brief's line per venue, and no trend.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import make_workdir, run_workflow

pytestmark = pytest.mark.slow
VENUES = ("ICML", "ICLR", "NeurIPS")


def test_three_venues_give_the_venues_table_and_section_and_no_trend(tmp_path, seed_papers):
    dumps = {}
    for index, venue in enumerate(VENUES):
        papers = seed_papers[index::3]
        dumps[f"{venue.lower()}.jsonl"] = "".join(
            json.dumps({"title": p["display_name"], "abstract": p["abstract"], "venue": venue if i else ""})
            + "\n"
            for i, p in enumerate(papers)
        )
    workdir = make_workdir(tmp_path, dumps, compare={"by": "venue"}, umap={"consensus_runs": 1})
    run_workflow(workdir)
    results = workdir / "results"

    groups = pd.read_csv(results / "periods" / "papers.csv", keep_default_na=False)
    assert len(groups) == len(seed_papers) and (groups["group"] == "").sum() == 3
    table = pd.read_csv(results / "topics" / "venues.csv", keep_default_na=False)
    assert table.columns.tolist() == [
        "venue",
        "topic",
        "label",
        "papers",
        "venue_papers",
        "share",
        "low",
        "high",
        "residual",
        "p",
        "q",
        "grade",
        "direction",
        "holds",
        "replicates",
        "robustness",
    ]
    assert set(table["venue"]) == set(VENUES) and len(table) == 3 * table["topic"].nunique()
    assert table.groupby("venue")["venue_papers"].first().sum() == len(seed_papers) - 3
    record = json.loads((results / "topics" / "venues.json").read_text(encoding="utf-8"))
    assert record["available"] and record["venues"] == sorted(VENUES) and record["papers_without_venue"] == 3
    changes = json.loads((results / "topics" / "changes.json").read_text(encoding="utf-8"))
    assert changes["by"] == "venue" and changes["ordered"] is False and not changes["trends"]["available"]

    page = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert '<section id="venues"><h2>Venues</h2>' in page and 'href="#venues"' in page
    assert 'id="venue-heatmap"' in page and "What each venue holds more of" in page
    assert f"{len(seed_papers)} papers in 3 venues" in page
    assert "No trends: compare.by is &#x27;venue&#x27;, whose groups have no order" in page


def test_venues_and_years_give_each_venues_trends_and_one_group_per_venue_however_written(
    tmp_path, seed_papers
):
    # Two venues, each written two ways (as Web of Science and Scopus would), over three years.
    written = {
        "ICML": (
            "INTERNATIONAL CONFERENCE ON MACHINE LEARNING",
            "International Conference on Machine Learning.",
        ),
        "ICLR": (
            "Proceedings of the International Conference on Learning Representations",
            "International Conference on Learning Representations",
        ),
    }
    lines = []
    for i, paper in enumerate(seed_papers):
        forms = written["ICML" if i % 2 else "ICLR"]
        record = {"title": paper["display_name"], "abstract": paper["abstract"], "year": 2020 + i % 3}
        lines.append(json.dumps({**record, "venue": forms[(i // 2) % 2 if i < 30 else 1]}) + "\n")
    workdir = make_workdir(
        tmp_path,
        {"papers.jsonl": "".join(lines)},
        compare={"by": ["venue", "year"], "min_period_papers": 3},
        umap={"consensus_runs": 1},
    )
    run_workflow(workdir)
    results = workdir / "results"

    record = json.loads((results / "topics" / "venues.json").read_text(encoding="utf-8"))
    # Each venue by its most common written form, full stop and all.
    assert record["venues"] == [
        "International Conference on Learning Representations",
        "International Conference on Machine Learning.",
    ]
    trends = pd.read_csv(results / "topics" / "venue_trends.csv", keep_default_na=False, dtype=str)
    assert trends.columns.tolist()[:5] == ["venue", "topic", "label", "direction", "grade"]
    assert set(trends["venue"]) == set(record["venues"]) and set(trends["first_period"]) == {"2020"}
    assert record["trends"]["available"] and record["trends"]["tests"] == len(trends)
    changes = json.loads((results / "topics" / "changes.json").read_text(encoding="utf-8"))
    assert changes["by"] == "year" and changes["trends"]["available"]
    page = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert "<h3>Trends within each venue</h3>" in page and "venue_trends.csv" in page
