"""The exports' samples through the whole workflow: papers.csv carries their metadata, and the
report's search finds a paper by its author or keyword and its panel shows them, escaped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import make_workdir, offline_chromium, run_workflow
from test_export_formats import EXPECTED, PUBLISHER_LINE, SAMPLES

pytestmark = [pytest.mark.slow, pytest.mark.browser]

MOE = "Sparse Mixture-of-Experts Routing with Lipschitz Guarantees"


@pytest.fixture(scope="module")
def exports_run(tmp_path_factory) -> Path:
    workdir = make_workdir(
        tmp_path_factory.mktemp("exports"), {name: (SAMPLES / name).read_bytes() for name in EXPECTED}
    )
    run_workflow(workdir)
    return workdir


def test_papers_csv_carries_every_sample_paper_with_its_metadata(exports_run):
    papers = pd.read_csv(exports_run / "results/topics/papers.csv", keep_default_na=False)
    assert sorted(papers["title"]) == sorted(title for expected in EXPECTED.values() for title in expected[2])
    assert not papers["abstract"].str.contains(PUBLISHER_LINE).any()
    moe = papers.set_index("title").loc[MOE]
    assert (moe["authors"], moe["venue"], moe["keywords"], moe["doi"]) == (
        "Müller, Jörg; García, Ana; Østergaard, Lars",
        "Advances in Neural Information Processing Systems",
        "mixture of experts; robustness; routing",
        "10.5555/3540261.3541001",
    )


def test_search_finds_a_paper_by_author_and_keyword_and_its_panel_shows_them(exports_run):
    from test_report_browser import OpenedReport

    with offline_chromium(viewport={"width": 1400, "height": 1000}) as context:
        report = OpenedReport(context, exports_run / "results/report/index.html")
        page = report.page
        page.wait_for_function("document.body.dataset.searchReady === 'true'")
        for query in ("østergaard", "robustness"):
            found = report.search(query)
            assert len(found) == 1 and found[0].startswith(MOE), (query, found)
        page.locator("#search-results li").first.click()
        page.wait_for_selector("#paper-panel p.paper-detail")
        details = page.locator("#paper-panel p.paper-detail").all_text_contents()
        assert details == [
            "Authors: Müller, Jörg; García, Ana; Østergaard, Lars",
            "Venue: Advances in Neural Information Processing Systems",
            "Keywords: mixture of experts; robustness; routing",
            "DOI: 10.5555/3540261.3541001",
        ]
        assert page.get_attribute("#paper-panel p.paper-detail a", "href") == (
            "https://doi.org/10.5555/3540261.3541001"
        )
        note = page.text_content("#abstracts-cut")
        assert re.search(r"scopus: publisher lines cut from 3 abstracts and 1 placeholders", note)
        assert not report.console_errors and not report.remote_requests


def test_the_topics_say_where_each_label_came_from(exports_run):
    topics = pd.read_csv(exports_run / "results/topics/topics.csv", keep_default_na=False)
    details = json.loads((exports_run / "results/topics/topic_details.json").read_text(encoding="utf-8"))
    assert details["settings"]["label_keyword_min_papers"] == 2
    sources = dict(zip(topics["id"], topics["label_source"], strict=True))
    assert sources == {d["topic"]: d["label_source"] or "" for d in details["topics"]}
    assert set(sources.values()) <= {"author keywords", "papers", ""}  # "": the outliers
