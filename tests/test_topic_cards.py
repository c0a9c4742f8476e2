"""Topic cards: every paper of a topic listed most central first, its download link, clustered
and assigned counts, and a period's wording marked where the topic has too few papers there.
"""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pandas as pd
from papertopics.report.html_blocks import gzip_block
from papertopics.report.topic_cards import ORDER_BLOCK, topic_cards_section, topic_paper_order

HOSTILE = "<img src=x onerror=alert(1)>"


def _papers() -> pd.DataFrame:
    """Topic 0: four clustered papers on a line (their median at 2.7) and an assigned outlier
    right at that middle; topic 1: two clustered papers; one paper of no topic.
    """
    return pd.DataFrame(
        {
            "id": ["far", "near", "rep", "mid", "outlier-near", "b1", "b2", "none"],
            "display_name": ["Far", "Near", "Rep", HOSTILE, "Assigned", "B1", "B2", "None"],
            "dumps": ["d"] * 8,
            "topic": [0, 0, 0, 0, 0, 1, 1, -1],
            "outlier": [False, False, False, False, True, False, False, True],
            "x": [5.0, 1.5, 3.0, 2.4, 2.7, 9.0, 9.5, 4.0],
            "y": [5.0, 1.5, 3.0, 2.4, 2.7, 9.0, 9.5, 4.0],
        }
    )


def _details() -> list[dict]:
    return [
        {
            "topic": 0,
            "label": "zero",
            "size": 5,
            "share": 5 / 8,
            "keywords": [["w", 1.0]],
            "representative_ids": ["rep"],
            "wording": [
                {"period": "2021", "papers": 3, "keywords": ["parseval", "sybil"]},
                {"period": "2022", "papers": 12, "keywords": ["robust", "attack"]},
            ],
        },
        {"topic": 1, "label": "one", "size": 2, "share": 0.25, "keywords": [], "representative_ids": []},
        {
            "topic": -1,
            "label": "Outliers",
            "size": 1,
            "share": 0.125,
            "keywords": [],
            "representative_ids": [],
        },
    ]


def test_a_topics_papers_run_representatives_first_then_clustered_by_centrality_then_assigned():
    order = topic_paper_order(_papers(), _details())
    ids = _papers()["id"].tolist()
    assert [ids[row] for row in order[0]] == ["rep", "mid", "near", "far", "outlier-near"]
    assert [ids[row] for row in order[1]] == ["b1", "b2"] and [ids[row] for row in order[-1]] == ["none"]
    # Every paper is listed once, in its own topic.
    assert sorted(row for rows in order.values() for row in rows) == list(range(8))


def test_the_card_lists_its_papers_with_a_download_and_embeds_their_order():
    changes = {"periods": ["2021", "2022"], "series": [], "by": "year", "min_wording_papers": 10}
    page = topic_cards_section(_details(), _papers(), changes, {}, "year")
    card = page[page.index('id="topic-0"') : page.index('id="topic-1"')]
    assert "5 papers (4 clustered)" in card
    assert '<a class="topic-csv" href="#" download="topic-0-papers.csv">' in card
    assert "4 clustered, most central first, then the 1 outliers assigned to it" in card
    assert 'download="topic--1-papers.csv"' in page and "papers that no topic holds" in page
    block = re.search(rf'<script type="application/gzip\+base64" id="{ORDER_BLOCK}">[^<]*</script>', page)
    assert block.group(0) == gzip_block(
        ORDER_BLOCK,
        json.dumps(
            {str(k): v for k, v in topic_paper_order(_papers(), _details()).items()}, separators=(",", ":")
        ),
    )
    assert HOSTILE not in page


def test_a_periods_wording_from_too_few_papers_is_marked_and_a_larger_ones_is_not():
    changes = {"periods": ["2021", "2022"], "series": [], "by": "year", "min_wording_papers": 10}
    page = topic_cards_section(_details(), _papers(), changes, {}, "year")
    wording = dict(re.findall(r"<dt>(\d{4}) \(\d+ papers\)</dt><dd>(.*?)</dd>", page))
    assert "too few papers to read (fewer than 10)" in wording["2021"] and "parseval" in wording["2021"]
    assert wording["2022"] == html.escape("robust, attack")
    fewer = topic_cards_section(_details(), _papers(), {**changes, "min_wording_papers": 3}, {}, "year")
    assert "too few papers to read" not in fewer


def test_a_label_of_the_authors_keywords_is_marked_on_its_card_and_no_other_is():
    details = _details()
    details[0]["label_source"] = "author keywords"
    details[1]["label_source"] = "papers"
    page = topic_cards_section(details, _papers(), None, {}, "year")
    first, second = page[: page.index('id="topic-1"')], page[page.index('id="topic-1"') :]
    assert "(the authors' keywords)" in first
    assert "authors' keywords" not in second


def _with_further_topics(papers: pd.DataFrame) -> pd.DataFrame:
    """``_papers`` with further topics as the topics stage writes them (read back as text): Far
    and Near of topic 0 are also about topic 1, Near more so; B1 is also about topic 0.
    """
    return papers.assign(
        second_topic=[1, 1, -1, -1, -1, 0, -1, -1],
        second_weight=["0.93", "0.97", "", "", "", "0.91", "", ""],
        third_topic=[-1] * 8,
        third_weight=[""] * 8,
    )


def test_a_card_names_the_papers_of_other_topics_also_about_it_nearest_first():
    page = topic_cards_section(_details(), _with_further_topics(_papers()))
    one = page[page.index('id="topic-1"') : page.index('id="topic--1"')]
    assert "Also about this topic: 2 papers" in one and "the 2 nearest, all of them in papers.csv" in one
    assert one.index('data-id="near"') < one.index('data-id="far"')
    zero = page[page.index('id="topic-0"') : page.index('id="topic-1"')]
    assert "Also about this topic: 1 papers" in zero and 'data-id="b1"' in zero
    assert "Also about this topic" not in topic_cards_section(_details(), _papers())


def test_the_map_knows_each_papers_further_topics_by_its_position():
    from papertopics.periods.assign import Periods
    from papertopics.report.document_map import map_data, map_periods

    papers = _with_further_topics(_papers())
    periods = map_periods(Periods("dump", ["d"], np.arange(8), np.array(["d"] * 8), 0), 8, {})
    data = map_data(papers, _details(), [], 100, {}, periods, 0)
    # Positions in _details(): topic 0 first, topic 1 second.
    assert data["further"] == {"0": [1], "1": [1], "5": [0]}


def test_the_bridges_table_links_both_topics_and_escapes_their_labels():
    from papertopics.report.bridges_subsection import BRIDGES_SHOWN, bridges_subsection

    bridges = pd.DataFrame(
        {
            "topic_a": [0] + [2] * BRIDGES_SHOWN,
            "label_a": [HOSTILE] + ["two"] * BRIDGES_SHOWN,
            "topic_b": [1] + list(range(3, 3 + BRIDGES_SHOWN)),
            "label_b": ["one"] * (BRIDGES_SHOWN + 1),
            "papers": [9] + [1] * BRIDGES_SHOWN,
            "a_papers_about_b": [5] + [1] * BRIDGES_SHOWN,
            "b_papers_about_a": [4] + [0] * BRIDGES_SHOWN,
        }
    )
    part = bridges_subsection(bridges, 0.9)
    assert HOSTILE not in part and html.escape(HOSTILE) in part
    first = re.search(r"<tbody><tr>(.*?)</tr>", part).group(1)
    assert first.startswith('<td><a href="#topic-0">0: ') and '<a href="#topic-1">1: one</a>' in first
    assert "<td>9</td><td>5</td><td>4</td>" in first
    assert part.count("<tr>") == 1 + BRIDGES_SHOWN and f"of {BRIDGES_SHOWN + 1}" in part
    assert "No paper is also about" in bridges_subsection(bridges.head(0), 0.9)
