"""Report sections on small hand-made data: escaping, safe embedding, and pages without topics."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from papertopics.figures import model_figures
from papertopics.figures.hierarchy import GroupedTopics, topic_hierarchy
from papertopics.periods.assign import paper_periods
from papertopics.report import ReportInputs, build_report
from papertopics.report.colours import (
    OUTLIER_COLOUR,
    ciede2000,
    lab,
    lighter,
    period_colours,
    topic_colours,
    touching_topics,
)
from papertopics.report.document_map import label_lines, map_data, map_periods, similar_rows
from papertopics.report.html_blocks import gzip_block
from papertopics.report.overview import method_section
from papertopics.report.topic_table import topic_table_section

HOSTILE = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2"> <!-- \u2028 &amp;'


def _inputs(
    labels: list[int], titles=("Dump A", "Dump B"), abstract: str = "An abstract about graphs."
) -> ReportInputs:
    dumps = [f"d{i}" for i in range(len(titles))]
    n = len(labels)
    papers = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(n)],
            "dump": [dumps[i % len(dumps)] for i in range(n)],
            "dumps": [dumps[i % len(dumps)] for i in range(n)],
            "display_name": [f"Paper {i}" for i in range(n)],
            "abstract": [abstract] * n,
            "topic": labels,
            "topic_label": ["Outliers" if t == -1 else f"label {t}" for t in labels],
            "outlier": [str(t == -1) for t in labels],
            "x": [float(i) for i in range(n)],
            "y": [float(i % 3) for i in range(n)],
        }
    )
    details = []
    for topic in sorted(set(labels), key=lambda t: (t == -1, t)):
        members = papers[papers["topic"] == topic]
        details.append(
            {
                "topic": topic,
                "label": "Outliers" if topic == -1 else f"label {topic}",
                "keywords": [["graph", 0.5], ["node", 0.25]],
                "size": len(members),
                "share": len(members) / n,
                "representative_ids": members["id"].tolist()[:2],
            }
        )
    summary = {
        "dumps": [
            {
                "dump": d,
                "title": t,
                "records_read": 3,
                "kept": 3,
                "duplicates": 0,
                "also_in_earlier_dumps": 0,
                "rejected": 0,
                "sha256": "0" * 64,
            }
            for d, t in zip(dumps, titles, strict=True)
        ],
        "duplicates_across_dumps": 0,
    }
    return ReportInputs(
        corpus_summary=summary,
        umap_settings={
            "n_neighbors": 2,
            "n_neighbors_setting": "auto",
            "n_components": 5,
            "min_dist": 0.0,
            "metric": "cosine",
            "random_state": 42,
        },
        hdbscan_settings={
            "min_cluster_size": 2,
            "min_cluster_size_setting": "auto",
            "min_samples": 1,
            "cluster_selection_method": "eom",
            "note": None,
        },
        topic_settings={
            "embedding_model": "m",
            "ngram_range": [1, 2],
            "stop_words": "english",
            "top_n_words": 10,
            "reduce_outliers": False,
        },
        topic_details=details,
        topics=pd.DataFrame({"id": [d["topic"] for d in details], "label": [d["label"] for d in details]}),
        papers=papers,
        # as the topics stage stores them; without a fitted model the heatmap says why it is missing
        figures=model_figures(None, _grouped(details)),
        periods=paper_periods(papers, "auto", dumps),
    )


def _grouped(details: list[dict]) -> GroupedTopics:
    """The hand-made topics, in no groups, each its own direction."""
    shown = [d for d in details if d["topic"] != -1]
    return GroupedTopics(
        labels={d["topic"]: d["label"] for d in shown},
        sizes={d["topic"]: d["size"] for d in shown},
        centroids={d["topic"]: row for d, row in zip(shown, np.eye(len(shown)), strict=True)},
        groups=[],
    )


def test_gzip_block_holds_the_text_compressed_with_nothing_that_could_end_the_tag():
    import base64
    import gzip

    text = "id,abstract\n" + f'p1,"{HOSTILE}"\n' * 200
    block = gzip_block("papers-csv", text)
    packed = re.fullmatch(
        r'<script type="application/gzip\+base64" id="papers-csv">([A-Za-z0-9+/=]+)</script>', block
    )
    assert gzip.decompress(base64.b64decode(packed.group(1))).decode("utf-8") == text
    assert len(block) < len(text) / 3
    assert block == gzip_block("papers-csv", text)  # no timestamp inside: the same input gives the same page


def _map_data(
    inputs: ReportInputs, papers: pd.DataFrame, groups: list[dict], colours: dict[int, str]
) -> dict:
    periods = map_periods(paper_periods(inputs.papers, "auto", ["d0", "d1"]), len(papers), inputs.dump_labels)
    return map_data(papers, inputs.topic_details, groups, 0, colours, periods, similar_count=0)


def test_map_colours_assigned_outliers_lighter_in_their_topic_and_only_topicless_papers_grey():
    inputs = _inputs([0, 0, 1, 1, -1])
    papers = inputs.papers.assign(outlier=[False, True, False, True, True], dumps="d")
    colours = {0: "#1f77b4", 1: "#d62728"}
    data = _map_data(inputs, papers, [], colours)
    colour_of = [
        data["topics"][t]["assigned_colour" if outlier else "colour"]
        for t, outlier in zip(data["topic"], data["outlier"], strict=True)
    ]
    assert colour_of == ["#1f77b4", lighter("#1f77b4"), "#d62728", lighter("#d62728"), OUTLIER_COLOUR]
    assert lighter("#000000", 0.5) == "#808080" and lighter("#2a6fdb", 0) == "#2a6fdb"
    # One label per topic (none for the topic-less); the page places it over the topic's papers.
    assert [(label["lines"], label["topic"]) for label in data["labels"]["topics"]] == [
        (["0: label 0"], 0),
        (["1: label 1"], 1),
    ]
    assert data["labels"]["groups"] == []


def test_map_labels_keep_their_whole_text_in_short_lines():
    label = "graph neural networks, message passing, node classification, oversmoothing"
    lines = label_lines(label)
    assert " ".join(lines) == label and all(len(line) <= 24 for line in lines)
    assert label_lines("a" * 60) == ["a" * 24, "a" * 24, "a" * 12]
    inputs = _inputs([0, 0, 1])
    groups = [{"group": 0, "label": HOSTILE, "topics": [0, 1], "size": 3}]
    group_label = _map_data(inputs, inputs.papers.assign(dumps="d"), groups, {0: "#000000", 1: "#000000"})
    # Plain text: the page's script escapes it for plotly (and the data block is compressed).
    shown = "".join(group_label["labels"]["groups"][0]["lines"])
    assert re.sub(r"\s", "", shown) == re.sub(r"\s", "", HOSTILE)
    assert group_label["labels"]["groups"][0]["topics"] == [0, 1]


def test_ciede2000_gives_the_published_differences():
    import numpy as np

    # Pairs of Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference formula", table 1.
    pairs = [
        ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
        ((50, 0, 0), (50, -1, 2), 2.3669),
        ((50, 2.5, 0), (73, 25, -18), 27.1492),
        ((50, 2.5, 0), (61, -5, 29), 22.8977),
        ((50, 2.5, 0), (56, -27, -3), 31.9030),
        ((50, 2.5, 0), (58, 24, 15), 19.4535),
        ((50, 2.5, 0), (50, 3.1736, 0.5854), 1.0),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ]
    first, second = (np.array([pair[i] for pair in pairs], dtype=float) for i in (0, 1))
    assert ciede2000(first, second) == pytest.approx([pair[2] for pair in pairs], abs=1e-4)
    assert ciede2000(second, first) == pytest.approx(ciede2000(first, second))


def _blobs(centres, per_topic: int, spread: float, seed: int = 3) -> pd.DataFrame:
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = [
        (topic, x, y)
        for topic, centre in enumerate(centres)
        for x, y in np.asarray(centre) + rng.normal(0, spread, size=(per_topic, 2))
    ]
    return pd.DataFrame(rows, columns=["topic", "x", "y"])


def test_topics_touch_where_their_papers_are_each_others_nearest_not_where_their_middles_are_near():
    # Topic 0 a long strip along topic 1's whole edge; topic 2 far off; topic 3 between 0 and 2 but apart.
    strip = pd.DataFrame({"topic": 0, "x": [i * 0.1 for i in range(100)], "y": 0.0})
    edge = pd.DataFrame({"topic": 1, "x": [i * 0.1 for i in range(100)], "y": 0.12})
    far = pd.DataFrame({"topic": 2, "x": [100.0 + i * 0.1 for i in range(30)], "y": 0.0})
    apart = pd.DataFrame({"topic": 3, "x": [50.0 + i * 0.1 for i in range(30)], "y": 0.0})
    outliers = pd.DataFrame({"topic": -1, "x": [5.0], "y": [0.06]})
    touching = touching_topics(pd.concat([strip, edge, far, apart, outliers], ignore_index=True))
    assert touching == {0: {1}, 1: {0}, 2: set(), 3: set()}


def test_topics_that_touch_on_the_map_get_colours_at_least_ten_ciede2000_apart():
    import numpy as np

    # 60 topics packed in a few clusters, as on a real map: many touch many.
    rng = np.random.default_rng(3)
    centres = [c + rng.normal(0, 1.2, size=2) for c in rng.normal(0, 5, size=(6, 2)) for _ in range(10)]
    papers = _blobs(centres, 40, 0.5)
    touching = touching_topics(papers)
    sizes = {t: 100 - t for t in range(60)}
    colours = topic_colours(touching, sizes)
    assert colours == topic_colours(touching, sizes), "deterministic"
    assert sum(len(near) for near in touching.values()) / 60 >= 4, "a map where topics have many neighbours"
    values = dict(zip(colours, lab(list(colours.values())), strict=True))
    closest = min(ciede2000(values[a], values[b]) for a, near in touching.items() for b in near)
    assert closest >= 10, f"touching topics differ by {closest:.1f} (CIEDE2000)"
    assert len(set(colours.values())) >= 30, "the palette is spread over the topics"
    assert OUTLIER_COLOUR not in colours.values()


def test_a_placed_update_keeps_the_colours_its_fit_gave_the_fitted_topics():
    import numpy as np

    def colours(papers):
        inputs = _inputs([0])
        inputs.papers = papers.assign(outlier=False)
        sizes = papers["topic"].value_counts()
        inputs.topic_details = [{"topic": int(t), "size": int(n)} for t, n in sizes.items()]
        return inputs.topic_colours

    rng = np.random.default_rng(3)
    centres = [c + rng.normal(0, 1.2, size=2) for c in rng.normal(0, 5, size=(3, 2)) for _ in range(6)]
    fit = _blobs(centres, 30, 0.5).assign(placed=False)
    # The update: the three last topics grow past the others, and a topic new in the dump beside topic 0.
    grown = _blobs(centres[15:], 60, 0.5, seed=4).assign(topic=lambda t: t["topic"] + 15)
    new = _blobs([centres[0] + 0.8], 20, 0.3, seed=5).assign(topic=18)
    update = pd.concat([fit, grown.assign(placed=True), new.assign(placed=True)], ignore_index=True)
    before, after = colours(fit), colours(update)
    assert {t: after[t] for t in before} == before
    assert set(after) == set(before) | {18}
    # Chosen afresh from all papers, as after a refit, the grown topics would take colours first.
    assert colours(update.assign(placed=False)) != after


def test_every_topic_but_the_outliers_group_has_a_colour():
    inputs = _inputs([0, 0, 1, 1, 2, 2, -1])
    assert set(inputs.topic_colours) == {0, 1, 2}


def test_periods_are_years_where_every_paper_has_one_else_dumps_with_their_titles():
    inputs = _inputs([0, 0, 1, 1])
    papers = inputs.papers.assign(dumps=["d0", "d1;d0", "d1", "d0"])
    by_dump = map_periods(paper_periods(papers, "auto", ["d0", "d1"]), len(papers), inputs.dump_labels)
    assert (by_dump.by, by_dump.names, by_dump.of_paper, by_dump.more) == (
        "dump",
        ["Dump A", "Dump B"],
        [0, 0, 1, 0],
        {1: [1]},
    )
    by_year = map_periods(
        paper_periods(papers.assign(year=[2021, 2019, 2021, 2020]), "auto", ["d0", "d1"]),
        len(papers),
        inputs.dump_labels,
    )
    assert (by_year.by, by_year.names, by_year.of_paper) == ("year", ["2019", "2020", "2021"], [2, 0, 2, 1])
    # Few periods: one category each; many (more than 8): a sequential scale, dark to light.
    assert len(set(period_colours(3))) == 3
    colours = period_colours(23)
    assert len(set(colours)) == 23 and lab(colours)[:, 0].tolist() == sorted(lab(colours)[:, 0]), (
        "dark to light"
    )


def test_similar_papers_are_given_as_rows_of_the_paper_table():
    import numpy as np

    similar = {"ids": np.array(["b", "a", "gone"]), "indices": np.array([[1, 2], [0, -1], [0, 1]])}
    rows, count = similar_rows(["a", "b", "c"], similar)
    # a's similar papers: b; b's: a, then a paper no longer in the table; c has none.
    assert count == 2 and rows.reshape(3, 2).tolist() == [[1, -1], [0, -1], [-1, -1]]
    assert similar_rows(["a"], None)[1] == 0


def test_dumps_are_labelled_by_title_with_the_name_where_titles_repeat():
    assert _inputs([0, 0, 1, 1]).dump_labels == {"d0": "Dump A", "d1": "Dump B"}
    assert _inputs([0, 0, 1, 1], titles=("Same", "Same")).dump_labels == {
        "d0": "Same (d0)",
        "d1": "Same (d1)",
    }


def test_topic_table_marks_named_and_found_topics_when_guided():
    inputs = _inputs([0, 1, 0, 1, 0, -1])
    assert "Source" not in topic_table_section(inputs)
    inputs.topic_details[0]["named"] = True
    table = topic_table_section(inputs)
    sources = re.findall(r'<tr data-topic="(-?\d+)">.*?<td>(named|found|)</td></tr>', table)
    assert sources == [("0", "named"), ("1", "found"), ("-1", "")]


def test_overview_states_the_largest_topic_allowed_or_that_there_is_no_limit():
    inputs = _inputs([0, 1, 0, 1, 0, -1])
    assert "<dd>0 (largest topic allowed: no limit)</dd>" in method_section(inputs)
    inputs.hdbscan_settings.update(max_cluster_share=0.1, max_cluster_size=40)
    assert "<dd>0.1 (largest topic allowed: 40 papers)</dd>" in method_section(inputs)


def test_overview_lists_the_guide_and_warns_of_names_no_paper_fits():
    inputs = _inputs([0, 1, 0, 1, 0, -1])
    assert "topics.guide" not in method_section(inputs)
    inputs.topic_settings.update(
        guide=["Graphs", HOSTILE], guide_min_similarity=0.4, named_topics=1, guide_unmatched=[HOSTILE]
    )
    overview = method_section(inputs)
    assert "<dt>topics.guide_min_similarity</dt><dd>0.4 (1 of 2 names made a topic)</dd>" in overview
    notices = re.findall(r'<p class="notice">(.*?)</p>', overview)
    assert len(notices) == 1 and notices[0].startswith("topics.guide: no paper fits ")
    assert "<img" not in overview and "<script>window" not in overview
    inputs.topic_settings["guide_unmatched"] = []
    assert '<p class="notice">' not in method_section(inputs)


def test_overview_says_once_which_identifier_named_more_than_one_paper():
    inputs = _inputs([0, 1, 0, 1, 0, -1])
    inputs.corpus_summary["dumps"][0]["merged_within_dump"] = 1
    inputs.corpus_summary.update(
        merged_within_dumps=1,
        identifier_conflicts={
            "identifiers": 2,
            "first": {
                "identifier": {"kind": "doi", "value": "10.1000/x"},
                "papers": 2,
                "records": [
                    {"dump": "d0", "location": "record 1 (line 3)", "title": HOSTILE},
                    {"dump": "d1", "location": "line 2", "title": "Another paper"},
                ],
            },
        },
    )
    overview = method_section(inputs)
    notices = re.findall(r'<p class="notice">(.*?)</p>', overview, re.DOTALL)
    assert len(notices) == 1 and notices[0].startswith("2 identifiers named more than one paper")
    assert "DOI 10.1000/x on d0 record 1 (line 3) “&lt;/script&gt;" in notices[0]
    assert "<img" not in overview and "<script>window" not in overview
    assert "<td>0 + 1 by identifier</td>" in overview  # d0's duplicates: parsing's and the merge's
    assert "<dt>Duplicates removed</dt><dd>1</dd>" in overview


def test_topic_table_has_a_sortable_share_and_count_column_per_dump_and_escapes_titles():
    # Papers alternate between the dumps: d0 holds topic 0 only, d1 topic 1 and the outlier.
    table = topic_table_section(_inputs([0, 1, 0, 1, 0, -1], titles=("<script>x</script>", "B")))
    headers = re.findall(r"<th data-type=\"(\w+)\"[^>]*>(.*?)</th>", table)
    assert headers[-2:] == [("number", "&lt;script&gt;x&lt;/script&gt;"), ("number", "B")]
    assert re.findall(r'<tr data-topic="(-?\d+)">', table) == ["0", "1", "-1"]
    topic_0 = re.search(r'<tr data-topic="0">(.*?)</tr>', table).group(1)
    assert topic_0.endswith(
        '<td class="share num" data-sort="0.5">50.0%</td><td class="num" data-sort="1.0">100.0% (3)</td>'
        '<td class="num" data-sort="0.0">0.0% (0)</td>'
    ), "share of corpus, then the share and count of each dump"


@pytest.mark.parametrize("hostile_title", [False, True])
def test_a_corpus_without_topics_gives_a_page_with_notices_instead_of_charts(hostile_title):
    title = HOSTILE if hostile_title else "Only outliers"
    page = build_report(_inputs([-1] * 6, titles=(title,), abstract=HOSTILE), title="auto", hover_chars=200)
    assert "No topics were found" in page
    assert page.count("This chart needs at least") == 3
    figures = re.findall(r'<div class="figure" id="([\w-]+)"', page)
    assert figures == ["document-map"]
    # The hostile text is nowhere live: not as a tag, not as a script end.
    assert "<img" not in page and "window.pwned=1</script>" not in page
    assert page.count("<script>window.pwned") == 0


def test_only_plain_web_addresses_become_links():
    from papertopics.report.html_blocks import web_link

    assert web_link("https://openreview.net/forum?id=abc") == "https://openreview.net/forum?id=abc"
    assert web_link(" http://arxiv.org/abs/2501.00001 ") == "http://arxiv.org/abs/2501.00001"
    for hostile in (
        "javascript:alert(1)",
        "JaVaScRiPt:x",
        "data:text/html,<script>",
        'https://x" onmouseover="y',
        "",
        None,
    ):
        assert web_link(hostile) is None


def test_topic_cards_link_a_paper_to_its_url_only_when_safe():
    import pandas as pd
    from papertopics.report.topic_cards import topic_cards_section

    papers = pd.DataFrame(
        {
            "id": ["p1", "p2"],
            "display_name": ["Safe", "Hostile"],
            "dumps": ["d", "d"],
            "abstract": ["a", "b"],
            "url": ["https://example.org/p1", "javascript:alert(1)"],
            "topic": [0, 0],
            "outlier": [False, False],
            "x": [0.0, 1.0],
            "y": [0.0, 1.0],
        }
    )
    topic = {
        "topic": 0,
        "label": "t",
        "size": 2,
        "share": 1.0,
        "keywords": [["w", 1.0]],
        "representative_ids": ["p1", "p2"],
    }
    html_text = topic_cards_section([topic], papers)
    assert 'href="https://example.org/p1"' in html_text
    assert "javascript:" not in html_text


def test_the_hierarchy_nests_each_topic_under_its_group_as_the_map_groups_them(seed_embeddings):
    from papertopics.mapping.cluster import topic_centroids
    from papertopics.topics.topic_groups import topic_groups
    from sklearn.cluster import KMeans

    # The shipped papers in eight topics, and the topics stage's groups of them.
    topics = KMeans(8, n_init=10, random_state=0).fit(seed_embeddings).labels_
    group_of, groups = topic_groups(seed_embeddings, topics, 3)
    assert len(groups) == 3
    for group in groups:
        group["label"] = f"group <{group['group']}>"
    real = sorted(group_of)
    sizes = {t: int((topics == t).sum()) for t in real}
    centroids = dict(zip(real, topic_centroids(seed_embeddings, topics, real), strict=True))
    figure = topic_hierarchy(GroupedTopics({t: f"topic {t}" for t in real}, sizes, centroids, groups))

    # Top to bottom: each group's name (bold), then its topics; each link within one group's rows.
    rows_of: dict[str, list[float]] = {}
    shown_group = {}
    for row, text in zip(figure.layout.yaxis.tickvals, figure.layout.yaxis.ticktext, strict=True):
        if "<b>" in text:
            header = re.search(r"<b>(.*)</b>", text).group(1)
            rows_of[header] = [row]
        else:
            shown_group[int(text.split()[-1])] = header
            rows_of[header].append(row)
    assert list(rows_of) == [f"group &lt;{g['group']}&gt;" for g in groups]  # largest first, escaped
    assert shown_group == {t: f"group &lt;{group_of[t]}&gt;" for t in real}
    for trace in figure.data:
        if trace.mode == "lines":
            ys = [y for y in trace.y if y is not None]
            assert any(min(rows) <= min(ys) and max(ys) <= max(rows) for rows in rows_of.values())


def test_dump_share_is_one_stacked_trace_with_a_bar_per_topic_and_dump_in_its_colour_and_count():
    from papertopics.report.dump_share import dump_share_chart
    from papertopics.report.topic_table import DumpCounts

    per_dump = DumpCounts(counts={"d0": {0: 3, 1: 1}, "d1": {0: 1, -1: 1}}, totals={"d0": 4, "d1": 2})
    colours = {0: "#1f77b4", 1: "#d62728"}
    figure = dump_share_chart(
        per_dump, {0: "zero", 1: "one <b>", -1: "Outliers"}, {"d0": "Dump A", "d1": "Dump B"}, colours
    )
    assert len(figure.data) == 1 and figure.layout.barmode == "stack"
    bars = figure.data[0]
    segments = zip(bars.customdata, bars.y, bars.x, bars.marker.color, strict=True)
    assert [(tuple(data), *rest) for data, *rest in segments] == [
        (("0: zero", "3 of 4"), "Dump A", 75.0, "#1f77b4"),
        (("0: zero", "1 of 2"), "Dump B", 50.0, "#1f77b4"),
        (("1: one &lt;b&gt;", "1 of 4"), "Dump A", 25.0, "#d62728"),
        (("1: one &lt;b&gt;", "0 of 2"), "Dump B", 0.0, "#d62728"),
        (("-1: Outliers", "0 of 4"), "Dump A", 0.0, OUTLIER_COLOUR),
        (("-1: Outliers", "1 of 2"), "Dump B", 50.0, OUTLIER_COLOUR),
    ]
    assert "customdata[1]" in bars.hovertemplate


def test_many_years_get_a_colour_bar_and_few_are_categories():
    from papertopics.report.document_map import MapPeriods, map_section

    def controls(count: int) -> str:
        periods = MapPeriods("year", [str(1995 + i) for i in range(count)], [0], {})
        return map_section({}, [{"topic": 0, "label": "a topic"}], {0: "#123456"}, periods)

    many = controls(23)
    assert 'id="period-colour-bar"' in many and "linear-gradient(to right, " in many
    assert ">1995<" in many and ">2017<" in many and many.count("<span>") == 3  # first, middle, last
    assert 'id="period-colour-bar"' not in controls(3)
