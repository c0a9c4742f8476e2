"""The report's "What changed" section in headless Chromium, offline: with one dump, two dumps
and three years, from the shipped dumps' real run (its papers regrouped for each case).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import offline_chromium
from papertopics.changes import describe_changes
from papertopics.report import build_report, load_report_inputs

pytestmark = [pytest.mark.slow, pytest.mark.browser]

LATER_RUN = {
    "first_run": False,
    "run": 2,
    "previous_run": 1,
    "topics": 2,
    "previous_topics": 3,
    "papers_in_both_runs": 30,
    "papers_new": 8,
    "papers_removed": 4,
    "kept": [{"id": 0, "label": "kept", "size": 20, "previous_size": 18, "matched_by": "papers"}],
    "new": [{"id": 5, "label": "brand <b>new</b>", "size": 6}],
    "gone": [{"id": 2, "label": "gone topic", "size": 4}],
    "merged": [
        {
            "into": {"id": 0, "label": "kept", "size": 20},
            "from": [{"id": 0, "label": "kept", "size": 18}, {"id": 1, "label": "absorbed", "size": 5}],
        }
    ],
    "split": [],
    "relabelled": [{"id": 0, "from": "old words", "to": "new words"}],
}


@pytest.fixture(scope="module")
def seed_inputs(seed_run):
    results = seed_run / "results"
    return load_report_inputs(
        corpus_summary=results / "corpus/summary.json",
        umap_settings=results / "reduced/umap.json",
        hdbscan_settings=results / "clusters/hdbscan.json",
        topics=results / "topics/topics.csv",
        papers=results / "topics/papers.csv",
        details=results / "topics/topic_details.json",
        figures=results / "topics/figures.json",
        metrics=results / "metrics.json",
        changes=results / "topics/changes.json",
    )


def _regrouped(inputs, papers, lineage):
    dump_order = [d["dump"] for d in inputs.corpus_summary["dumps"]]
    _, changes = describe_changes(
        papers, inputs.topic_details, lineage, dump_order, "auto", "auto", "auto", 0.95, 0.05, 0.9, 0.1, 1
    )
    return replace(inputs, papers=papers, changes=changes)


def _open(browser_context, tmp_path: Path, inputs):
    page_file = tmp_path / "index.html"
    page_file.write_text(build_report(inputs, title="auto", hover_chars=100), encoding="utf-8")
    page = browser_context.new_page()
    errors, remote = [], []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    page.route(
        re.compile(r"^(?!file:|data:|blob:)"), lambda route: (remote.append(route.request.url), route.abort())
    )
    page.goto(page_file.resolve().as_uri(), wait_until="load")
    page.locator("#changes").scroll_into_view_if_needed()
    return page, errors, remote


def _drawn_points(page, figure_id: str) -> int:
    page.locator(f"#{figure_id}").scroll_into_view_if_needed()
    page.wait_for_selector(f"#{figure_id}.js-plotly-plot .scatterlayer .point")
    return page.locator(f"#{figure_id} .scatterlayer .point").count()


@pytest.fixture(scope="module")
def browser_context():
    with offline_chromium() as context:
        yield context


def test_one_dump_says_so_in_a_sentence(seed_inputs, browser_context, tmp_path):
    papers = seed_inputs.papers.assign(dumps=seed_inputs.papers["dump"].iloc[0])
    page, errors, remote = _open(
        browser_context, tmp_path, _regrouped(seed_inputs, papers, {"first_run": True})
    )
    section = page.locator("#changes")
    assert "Nothing to compare yet: only one dump" in section.inner_text()
    assert "This is the first run" in section.inner_text()
    assert section.locator("div.figure").count() == 0, "no empty charts"
    assert not errors and not remote


def test_two_dumps_show_shares_with_intervals_and_the_previous_run(seed_inputs, browser_context, tmp_path):
    inputs = _regrouped(seed_inputs, seed_inputs.papers, LATER_RUN)
    page, errors, remote = _open(browser_context, tmp_path, inputs)
    topics = len(inputs.changes["comparison"])
    assert _drawn_points(page, "share-change") == 2 * topics  # baseline and target, per topic
    assert page.locator("#share-change .errorbars path.xerror").count() == 2 * topics
    assert page.locator("#change-table tbody tr").count() == topics
    text = page.locator("#changes").inner_text()
    assert "Comparing" in text and "95% intervals" in text
    assert "Of the previous run's 3 topics, 1 kept their id" in text
    assert (
        "5: brand <b>new</b>" in text and page.locator("#changes b").count() == 0
    )  # shown literally, never markup
    assert "absorbed" in text and "old words → new words" in text
    assert not errors and not remote


def test_three_years_add_a_share_over_time_chart(seed_inputs, browser_context, tmp_path):
    years = [str(2021 + i % 3) for i in range(len(seed_inputs.papers))]
    inputs = _regrouped(seed_inputs, seed_inputs.papers.assign(year=years), LATER_RUN)
    assert inputs.changes["by"] == "year" and inputs.changes["periods"] == ["2021", "2022", "2023"]
    page, errors, remote = _open(browser_context, tmp_path, inputs)
    assert _drawn_points(page, "share-series") == 3 * len(inputs.changes["series"])
    assert _drawn_points(page, "share-change") == 2 * len(inputs.changes["comparison"])
    assert "2022" in page.locator("#changes").inner_text()
    assert not errors and not remote
