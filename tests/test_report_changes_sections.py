"""The What changed and Topics since the previous run sections as HTML: what they say, escaped."""

from __future__ import annotations

import re

import pandas as pd
from conftest import default_config
from papertopics.changes.compare import CompareSettings, describe_changes
from papertopics.periods.assign import paper_periods
from papertopics.report.colours import OUTLIER_COLOUR
from papertopics.report.lineage_flow import lineage_sankey, lineage_section
from papertopics.report.what_changed_section import changes_section

HOSTILE = "<script>alert(1)</script>"
LATER_RUN = {
    "first_run": False,
    "run": 2,
    "previous_run": 1,
    "topics": 3,
    "previous_topics": 3,
    "papers_in_both_runs": 1200,
    "papers_new": 600,
    "papers_removed": 0,
    "kept": [
        {"id": t, "label": f"t{t}", "size": 600, "previous_size": 400, "matched_by": "papers"} for t in (0, 1)
    ],
    "new": [{"id": 2, "label": HOSTILE, "size": 600}],
    "gone": [{"id": 9, "label": "gone", "size": 400}],
    "merged": [],
    "split": [],
    "relabelled": [],
    "flows": {
        "links": [
            {"from": 0, "to": 0, "papers": 380},
            {"from": 1, "to": 1, "papers": 390},
            {"from": 9, "to": 2, "papers": 400},
        ],
        "new_papers": [{"to": 0, "papers": 220}, {"to": 1, "papers": 210}, {"to": 2, "papers": 170}],
        "removed_papers": [],
    },
}


def _record(years: list[int], rising: bool = True, earlier: dict | None = None, assigned: int = 0):
    """Three topics over ``years`` (600 papers each); topic 2 (a hostile label) rises 3% a year;
    ``assigned`` of topic 0's papers each year are outliers assigned to it.
    """
    rows, year_of, outlier = [], [], []
    for index, year in enumerate(years):
        planted = round(600 * (0.1 + (0.03 * index if rising else 0)))
        zeros = (600 - planted) // 2
        rows += [0] * zeros + [1] * (600 - planted - zeros) + [2] * planted
        outlier += [True] * assigned + [False] * (600 - assigned)
        year_of += [year] * 600
    papers = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(len(rows))],
            "dumps": "x",
            "topic": rows,
            "outlier": outlier,
            "display_name": "a paper",
            "year": year_of,
        }
    )
    details = [
        {"topic": t, "label": HOSTILE if t == 2 else f"t{t}", "representative_ids": []} for t in range(3)
    ]
    settings = CompareSettings(**default_config()["compare"])
    shares, record = describe_changes(
        papers,
        ["words"] * len(rows),
        details,
        LATER_RUN,
        paper_periods(papers, settings.by, ["x"]),
        settings,
        "english",
    )
    return shares, record


def test_the_section_leads_with_the_trend_escaped_with_counts_and_the_recomputed_shares_beside_them():
    from papertopics.changes.shares import recomputed_shares

    shares, record = _record([2021, 2022, 2023])
    earlier = shares.copy()
    moved_row = (earlier["topic"] == 2) & (earlier["period"] == "2021")
    earlier.loc[moved_row, "share"] = 0.30
    record["recomputed"] = recomputed_shares(shares, earlier, {**LATER_RUN, "kept": [{"id": 2}]})
    page = changes_section(record, {}, {})
    assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.index('id="trend-summary"') < page.index('id="pairwise-summary"')  # trends lead
    rising = page[page.index('id="rising-topics"') : page.index("<h4>Falling")]
    assert 'href="#topic-2"' in rising and "significant" in rising
    assert "10.0% → 16.0% of papers" in rising and "(60 → 78 → 96)" in rising
    assert "1 shares of topics that kept their id moved beyond their interval" in page
    assert "; run 1: 30.0%" in page  # the earlier run's figure beside this run's in the trend table


def test_a_trend_reads_as_shares_and_counts_first_with_the_test_a_hover_and_a_footnote_away():
    _, record = _record([2021, 2022, 2023], assigned=40)
    page = changes_section(record, {}, {})
    rising = page[page.index('id="rising-topics"') : page.index("<h4>Falling")]
    # The plain line leads: shares, then counts; no statistics in the line's text itself.
    line = re.sub(r"<svg.*?</svg>|<[^>]+>", "", rising)
    assert "10.0% → 16.0% of papers (60 → 78 → 96)" in line
    assert not re.search(r"q =|Cochran|Benjamini|points a year", line)
    # The test's figures are in the grade's hover, and the method in a footnote it links to.
    hover = re.search(r'class="grade grade-significant" title="([^"]+)"', rising).group(1)
    assert "points a year" in hover and "q = " in hover and "clustered" in hover
    footnote = page[page.index('id="trend-test"') :]
    assert (
        'href="#trend-test"' in rising and "Cochran–Armitage" in footnote and "Benjamini–Hochberg" in footnote
    )
    # Topic 0's 40 outliers a year are counted beside its clustered papers, and said to be.
    trend_0 = next(t for t in record["trends"]["topics"] if t["topic"] == 0)
    assert trend_0["clustered_papers"] == [t - 40 for t in trend_0["papers"]]
    summary = page[page.index('id="trend-summary"') : page.index("<h4>Rising")]
    assert "120 of the 1800 papers (7%) fit no cluster" in summary
    expected = (
        f"{' → '.join(map(str, trend_0['clustered_papers']))}; {' → '.join(map(str, trend_0['papers']))}"
    )
    assert f"{expected} with the outliers assigned to it" in page


def test_the_largest_movements_leave_out_the_topics_listed_above_them():
    _, record = _record([2021, 2022, 2023])
    page = changes_section(record, {}, {})
    listed = set(
        re.findall(
            r'<li data-topic="(\d+)"', page[page.index('id="rising-topics"') : page.index("Other large")]
        )
    )
    largest = set(
        re.findall(
            r'<li data-topic="(\d+)"', page[page.index('id="largest-trends"') : page.index('id="trend-test"')]
        )
    )
    assert listed == {"2"} and largest == {"0", "1"}
    assert "Largest movements" not in page


def test_nothing_significant_still_lists_the_largest_movements_and_says_what_it_means():
    _, record = _record([2021, 2022, 2023], rising=False)
    page = changes_section(record, {}, {})
    assert "No trend is significant, which says the tests cannot tell" in page
    assert page.count('<li data-topic="') >= 3  # the largest movements, whatever the evidence
    # Nothing significant: each movement with its size and interval, the trends' move over the span.
    largest = page[page.index('id="largest-trends"') : page.index('id="trend-test"')]
    for row in record["trends"]["topics"]:
        if f'<li data-topic="{row["topic"]}"' in largest:
            assert (
                f"{row['move_pp']:+.1f} points ({row['move_low_pp']:+.1f} to {row['move_high_pp']:+.1f})"
                in largest
            )


def test_the_lineage_section_is_renumbering_with_a_sankey_of_every_flow_and_escaped_labels():
    page = lineage_section(LATER_RUN, {0: "#123456"})
    assert "renumbering after a rerun, not new research" in page and HOSTILE not in page
    assert 'id="lineage-sankey"' in page
    figure = lineage_sankey(LATER_RUN, {0: "#123456"})
    sankey = figure.data[0]
    assert len(sankey.node.label) == 3 + 1 + 3 + 1  # earlier topics, new papers, topics now, removed
    assert sum(sankey.link.value) == 380 + 390 + 400 + 600
    assert any("&lt;script&gt;" in label for label in sankey.node.label)
    # Topics in the map's colours; a topic the map does not have (gone) in grey.
    assert sankey.node.color[0] == "#123456" and sankey.node.color[2] == OUTLIER_COLOUR
    first = lineage_section({"first_run": True, "run": 1}, {})
    assert "This is the first run" in first and "lineage-sankey" not in first
