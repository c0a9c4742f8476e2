"""The report's "What changed" and "Topics since the previous run" sections in headless Chromium,
offline: with one dump, two dumps and three years, from the shipped dumps' real run (its papers
regrouped for each case).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import default_config, offline_chromium
from papertopics.changes.compare import CompareSettings, describe_changes
from papertopics.periods.assign import paper_periods
from papertopics.report import ReportFiles, build_report, load_report_inputs

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
    "flows": {
        "links": [{"from": 0, "to": 0, "papers": 17}, {"from": 1, "to": 0, "papers": 3}],
        "new_papers": [{"to": 5, "papers": 6}, {"to": 0, "papers": 2}],
        "removed_papers": [{"from": 2, "papers": 4}],
    },
}


@pytest.fixture(scope="module")
def seed_inputs(seed_run):
    return load_report_inputs(_seed_files(seed_run / "results"))


def _seed_files(results, **more) -> ReportFiles:
    return ReportFiles(
        corpus_summary=results / "corpus/summary.json",
        umap_settings=results / "reduced/umap.json",
        hdbscan_settings=results / "clusters/hdbscan.json",
        topics=results / "topics/topics.csv",
        papers=results / "topics/papers.csv",
        details=results / "topics/topic_details.json",
        figures=results / "topics/figures.json",
        periods_table=results / "periods/papers.csv",
        periods_settings=results / "periods/periods.json",
        metrics=results / "metrics.json",
        changes=results / "topics/changes.json",
        shares=results / "topics/dump_shares.csv",
        trends=results / "topics/trends.csv",
        **more,
    )


def test_the_comparison_and_bursts_tables_are_downloads_where_they_have_rows(seed_run, tmp_path):
    topics = seed_run / "results" / "topics"
    # The seed run's two dumps give no significant change and no burst: header-only tables.
    assert all(
        len((topics / name).read_text().splitlines()) == 1 for name in ("comparison.csv", "bursts.csv")
    )
    one_row = tmp_path / "comparison.csv"
    one_row.write_text((topics / "comparison.csv").read_text() + "0,diffusion models,a,b\n", encoding="utf-8")
    files = _seed_files(seed_run / "results", comparison=one_row, bursts=topics / "bursts.csv")
    downloads = load_report_inputs(files).comparison_files
    assert downloads["comparison.csv"] == one_row.read_text(encoding="utf-8")
    assert "bursts.csv" not in downloads and "trends.csv" in downloads


def _regrouped(inputs, papers, lineage):
    dump_order = [d["dump"] for d in inputs.corpus_summary["dumps"]]
    settings = CompareSettings(**{**default_config()["compare"], "min_papers": 1, "min_period_papers": 5})
    _, changes = describe_changes(
        papers,
        papers["abstract"].tolist(),
        inputs.topic_details,
        lineage,
        paper_periods(papers, settings.by, dump_order),
        settings,
        "english",
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
    assert "This is the first run" in page.locator("#lineage").inner_text()
    assert section.locator("div.figure").count() == 0, "no empty charts"
    assert page.locator("#lineage div.figure").count() == 0
    assert not errors and not remote


def test_two_dumps_show_shares_with_intervals_and_the_previous_run(seed_inputs, browser_context, tmp_path):
    inputs = _regrouped(seed_inputs, seed_inputs.papers, LATER_RUN)
    page, errors, remote = _open(browser_context, tmp_path, inputs)
    topics = len(inputs.changes["comparison"])
    assert _drawn_points(page, "share-change") == 2 * topics  # baseline and target, per topic
    assert page.locator("#share-change .errorbars path.xerror").count() == 2 * topics
    assert page.locator("#change-table tbody tr").count() == topics
    text = page.locator("#changes").inner_text()
    assert "against" in text and "95% intervals" in text
    assert "No trend test: a trend needs 3 or more dumps" in text  # two dumps: a sentence, not an error
    assert "No burst detection" in text
    lineage = page.locator("#lineage")
    assert "renumbering after a rerun, not new research" in lineage.inner_text()
    assert "Of the previous run's 3 topics, 1 kept their id" in lineage.inner_text()
    assert "5: brand <b>new</b>" in lineage.inner_text() and page.locator("#lineage b").count() == 0
    assert "absorbed" in lineage.inner_text() and "old words → new words" in lineage.inner_text()
    # The Sankey: every topic of either run with a flow, and the new and removed papers' nodes.
    lineage.locator("#lineage-sankey").scroll_into_view_if_needed()
    page.wait_for_selector("#lineage-sankey .sankey-node")
    assert page.locator("#lineage-sankey .sankey-node").count() == 3 + 1 + 2 + 1
    assert page.locator("#lineage-sankey .sankey-link").count() == 5
    assert not errors and not remote


def test_three_years_add_a_share_over_time_chart(seed_inputs, browser_context, tmp_path):
    years = [str(2021 + i % 3) for i in range(len(seed_inputs.papers))]
    inputs = _regrouped(seed_inputs, seed_inputs.papers.assign(year=years), LATER_RUN)
    assert inputs.changes["by"] == "year" and inputs.changes["periods"] == ["2021", "2022", "2023"]
    page, errors, remote = _open(browser_context, tmp_path, inputs)
    assert _drawn_points(page, "share-series") == 3 * len(inputs.changes["series"])
    assert _drawn_points(page, "share-change") == 2 * len(inputs.changes["comparison"])
    text = page.locator("#changes").inner_text()
    assert "2022" in text and "From 2021 to 2023 (3 years" in text
    trends = inputs.changes["trends"]["topics"]
    assert page.locator("#trend-table tbody tr").count() == len(trends)
    # The largest other movements are always listed (none of the rising or falling topics again),
    # each with its shares and counts per year and a share line.
    others = [t for t in trends if t["grade"] == "no evidence"]
    largest = page.locator("#largest-trends li")
    assert largest.count() == min(5, len(others))
    if others:
        assert re.search(r"\d+\.\d% → \d+\.\d% of papers \(\d+ → \d+ → \d+", largest.first.inner_text())
        assert page.locator("#largest-trends svg.sparkline").count() == largest.count()
    # A topic card opens in place on its share line and wording per year.
    card = page.locator("details.topic-card").first
    card.locator(":scope > summary").click()
    assert card.locator("svg.sparkline").count() == 1
    # Its wording per dump, as the topics stage computed it (the seed run compared its two dumps).
    wording = card.locator(".wording")
    assert "Its wording by dump" in wording.inner_text()
    assert wording.locator("dt").count() == len(inputs.topic_details[0]["wording"]) >= 1
    assert not errors and not remote


def test_the_comparison_files_download_as_they_are_on_disk(seed_run, seed_inputs, browser_context, tmp_path):
    page, errors, remote = _open(browser_context, tmp_path, seed_inputs)
    for name in ("changes.json", "dump_shares.csv", "trends.csv"):
        with page.expect_download() as download:
            page.click(f'#downloads button[data-filename="{name}"]')
        saved = tmp_path / name
        download.value.save_as(saved)
        assert saved.read_bytes() == (seed_run / "results" / "topics" / name).read_bytes()
    assert not errors and not remote


def test_a_topic_card_lists_all_its_papers_and_downloads_its_rows_of_papers_csv(
    seed_run, seed_inputs, browser_context, tmp_path
):
    import pandas as pd

    page, errors, remote = _open(browser_context, tmp_path, seed_inputs)
    on_disk = pd.read_csv(seed_run / "results" / "topics" / "papers.csv", keep_default_na=False, dtype=str)
    for topic in seed_inputs.topic_details:
        card = page.locator(f"details#topic-{topic['topic']}")
        card.locator(":scope > summary").click()
        box = card.locator(".topic-papers")
        # Every paper of the topic, a page at a time, each once; the representative ones first.
        names = []
        while True:
            page.wait_for_function("b => b.dataset.page !== undefined", arg=box.element_handle())
            names += box.locator("ol.paper-list > li summary").evaluate_all(
                "items => items.map(s => s.firstChild.textContent)"
            )
            following = box.locator(".pager button", has_text="Next")
            if following.count() == 0 or following.is_disabled():
                break
            shown = box.get_attribute("data-page")
            following.click()
            page.wait_for_function("([b, p]) => b.dataset.page !== p", arg=[box.element_handle(), shown])
        members = on_disk[on_disk["topic"] == str(topic["topic"])]
        assert sorted(names) == sorted(members["display_name"]) and len(names) == topic["size"]
        first = seed_inputs.papers.set_index("id").loc[topic["representative_ids"][0], "display_name"]
        assert names[0] == first
        # Its download: that topic's rows of papers.csv, every column, in the file's order.
        with page.expect_download() as download:
            box.locator(f'a[download="topic-{topic["topic"]}-papers.csv"]').click()
        assert download.value.suggested_filename == f"topic-{topic['topic']}-papers.csv"
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        got = pd.read_csv(saved, keep_default_na=False, dtype=str)
        pd.testing.assert_frame_equal(got, members.reset_index(drop=True))
    assert not errors and not remote
