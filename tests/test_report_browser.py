"""The report in headless Chromium, opened from file:// with the network blocked.

Whole-workflow runs (slow) on the shipped dumps, on dumps with hostile abstracts, and on
corpora with one topic and with none.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest
import synthetic_report
from conftest import SEEDS, make_workdir, offline_chromium, run_workflow

pytestmark = [pytest.mark.slow, pytest.mark.browser]

REPORT = Path("results/report/index.html")
# Marks that plotly draws for the kinds of chart the report holds (the map is WebGL: its points
# are counted as those of the trace drawn on its canvas).
RENDERED_MARKS = (
    ".scatterlayer .point, .scatterlayer path.js-line, .barlayer path, .heatmaplayer image, .hm image"
)
COUNT_MARKS = f"""d => d.querySelector('canvas.gl-canvas-context') && d._fullData
    ? d._fullData.reduce((n, trace) => n + (trace.visible === true ? trace._length : 0), 0)
    : d.querySelectorAll({RENDERED_MARKS!r}).length"""


class OpenedReport:
    """A report page, with what it logged and every request that was not for a local file."""

    def __init__(self, context, path: Path, init_script: str | None = None, type_first: str | None = None):
        """Open ``path``; with ``init_script`` run in the page before its own; ``type_first`` is typed
        into the search box as soon as the box is there, while the page is still loading.
        """
        self.console_errors: list[str] = []
        self.remote_requests: list[str] = []
        self.page = context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        self.page.on("pageerror", lambda error: self.console_errors.append(f"uncaught: {error}"))
        self.page.route(re.compile(r"^(?!file:|data:|blob:)"), self._block)
        if init_script:
            self.page.add_init_script(init_script)
        self.page.goto(path.resolve().as_uri(), wait_until="commit" if type_first else "load")
        if type_first:
            self.page.fill("#search-box", type_first)
            self.typed_before_search_ready = self.page.evaluate(
                "document.body.dataset.searchReady !== 'true'"
            )
        self.page.wait_for_function(
            "document.getElementById('document-map').classList.contains('js-plotly-plot')"
        )
        # The other charts are drawn as they come near the screen: scroll to each, a frame or two apiece.
        self.page.evaluate("""async () => {
            const frame = () => new Promise(resolve => requestAnimationFrame(resolve));
            for (const chart of document.querySelectorAll('div.figure')) { chart.scrollIntoView(); await frame(); await frame(); }
        }""")
        self.page.wait_for_function(
            "document.querySelectorAll('div.figure:not(.js-plotly-plot)').length === 0"
        )
        self.page.wait_for_function("document.body.dataset.drawn === 'true'")

    def _block(self, route):
        self.remote_requests.append(route.request.url)
        route.abort()

    def rendered_marks(self) -> dict[str, int]:
        """For every chart on the page: how many data marks plotly drew in it."""
        return self.page.eval_on_selector_all(
            "div.figure",
            f"divs => Object.fromEntries(divs.map(d => [d.id, ({COUNT_MARKS})(d)]))",
        )

    def hover_point(self, point: int, click: bool = False) -> str:
        """Move the mouse onto one map point (and click it); return the hover label's text.

        The map is zoomed in onto the point first, so that no other point is under the mouse.
        """
        self.page.locator("#document-map").scroll_into_view_if_needed()
        centre = self.page.evaluate(
            """i => {
                const map = document.getElementById('document-map');
                const x = map.data[0].x[i], y = map.data[0].y[i], e = 1e-4;
                return Plotly.relayout(map, {'xaxis.range': [x - e, x + e], 'yaxis.range': [y - e, y + e]}).then(() => {
                    const area = map.querySelector('.nsewdrag').getBoundingClientRect();
                    return [area.x + area.width / 2, area.y + area.height / 2];
                });
            }""",
            point,
        )
        label = self.page.locator("#document-map .hoverlayer .hovertext")
        self.page.mouse.move(0, 0)  # off the map first, so that no earlier label is read
        label.wait_for(state="detached")
        self.page.mouse.move(centre[0] + 3, centre[1] + 3)
        self.page.mouse.move(*centre, steps=2)
        label.wait_for()
        text = label.text_content()
        if click:  # plotly takes a click as one on a point only once it has hovered it
            self.page.mouse.click(*centre)
        return text

    def hover_label_of(self, paper_id: str) -> str:
        """The hover label plotly draws for one paper's point."""
        return self.hover_point(
            self.page.evaluate(
                "id => document.getElementById('document-map').data[0].customdata.indexOf(id)", paper_id
            )
        )

    def point_id(self, point: int) -> str:
        """The paper id behind one map point."""
        return self.page.evaluate(f"document.getElementById('document-map').data[0].customdata[{point}]")

    def search(self, words: str) -> list[str]:
        self.page.fill("#search-box", words)
        # The page searches once typing pauses; it marks the query it has searched for.
        self.page.wait_for_function(
            "query => document.getElementById('search-box').dataset.searched === query", arg=words
        )
        return self.page.locator("#search-results li").all_text_contents()

    def highlighted_points(self) -> list[str]:
        """The papers the search highlights on the map: drawn, each in full colour at its point's
        place, on the layer over the map's points (read from that layer's pixels).
        """
        return self.page.evaluate(
            """() => {
                const map = document.getElementById('document-map');
                const layer = map.querySelector('canvas.map-highlight');
                if (!layer || !layer.highlighted) { return []; }
                const full = map._fullLayout, xa = full.xaxis, ya = full.yaxis, ratio = layer.width / full.width;
                const pixels = layer.getContext('2d').getImageData(0, 0, layer.width, layer.height);
                const alpha = i => {
                    const px = xa._offset + xa.l2p(map.data[0].x[i]), py = ya._offset + ya.l2p(map.data[0].y[i]);
                    return pixels.data[4 * (Math.floor(py * ratio) * layer.width + Math.floor(px * ratio)) + 3];
                };
                return Array.from(layer.highlighted).filter(i => alpha(i) === 255).map(i => map.data[0].customdata[i]);
            }"""
        )

    def map_dimmed(self) -> bool:
        """Whether the map's points are dimmed: the highlight layer whitens the plotting area's corner."""
        return self.page.evaluate(
            """() => {
                const map = document.getElementById('document-map');
                const layer = map.querySelector('canvas.map-highlight');
                if (!layer) { return false; }
                const full = map._fullLayout, ratio = layer.width / full.width;
                const corner = layer.getContext('2d').getImageData(
                    Math.ceil((full.xaxis._offset + 1) * ratio), Math.ceil((full.yaxis._offset + 1) * ratio), 1, 1).data;
                return corner[3] > 200 && corner[0] === 255 && corner[1] === 255 && corner[2] === 255;
            }"""
        )

    def visible_label_boxes(self) -> list[dict]:
        """The map's labels as drawn: text and box on the page."""
        return self.page.eval_on_selector_all(
            "#document-map .annotation",
            "labels => labels.map(l => { const b = l.querySelector('.bg').getBoundingClientRect();"
            " return {text: l.textContent, left: b.left, right: b.right, top: b.top, bottom: b.bottom}; })",
        )


WORD = re.compile(r"[^\W_]+")


def matching_papers(papers: pd.DataFrame, topic_details: list[dict], query: str) -> pd.DataFrame:
    """The papers the report's search finds for ``query``: for every query word, a word starting
    with it in the paper's name or abstract, or in its topic's label or first ten keywords.
    """
    topic_words = {
        t["topic"]: WORD.findall(" ".join([t["label"]] + [w for w, _ in t["keywords"][:10]]).lower())
        for t in topic_details
        if t["topic"] != -1
    }
    texts = (papers["display_name"] + " " + papers["abstract"]).str.lower().map(WORD.findall)
    keep = pd.Series(True, index=papers.index)
    for word in dict.fromkeys(WORD.findall(query.lower())):
        in_text = texts.map(lambda words, word=word: any(w.startswith(word) for w in words))
        in_topic = papers["topic"].map(
            lambda t, word=word: any(w.startswith(word) for w in topic_words.get(t, []))
        )
        keep &= in_text | in_topic
    return papers[keep]


@pytest.fixture(scope="module")
def browser_context():
    with offline_chromium(viewport={"width": 1400, "height": 1000}) as context:
        yield context


def open_report(context, workdir: Path) -> OpenedReport:
    return OpenedReport(context, workdir / REPORT)


def paragraphs_of(dump: Path) -> tuple[str, list[str]]:
    from papertopics.ingest.readers import read_dump

    raw = read_dump(dump)
    return raw.title, [record.fields["abstract"] for record in raw.records]


def test_report_file_is_self_contained_with_plotly_inlined_once(seed_run):
    page = (seed_run / REPORT).read_text(encoding="utf-8")
    assert len(re.findall(r"plotly\.js v\d+\.\d+\.\d+", page)) == 1
    assert not re.search(r"<(?:script|img|link|iframe)\b[^>]*\b(?:src|href)=", page)
    # plotly.js names map-tile and font servers in its code; the browser tests check that nothing is fetched.
    assert [p.name for p in (seed_run / REPORT).parent.iterdir()] == ["index.html"], (
        "nothing beside it is needed"
    )


def test_seed_report_renders_searches_and_hovers_offline(seed_run, browser_context):
    papers = pd.read_csv(seed_run / "results/topics/papers.csv", keep_default_na=False)
    report = open_report(browser_context, seed_run)
    page = report.page

    marks = report.rendered_marks()
    assert set(marks) >= {
        "document-map",
        "keyword-chart",
        "intertopic-map",
        "topic-hierarchy",
        "topic-heatmap",
        "dump-share",
    }
    assert all(count > 0 for count in marks.values()), marks
    assert page.locator(".notice").count() == 0
    assert marks["document-map"] == len(papers)
    # The keyword charts' titles (each a topic's label) do not run into each other.
    titles = page.eval_on_selector_all(
        "#keyword-chart .annotation-text",
        "titles => titles.map(t => { const b = t.getBoundingClientRect();"
        " return {text: t.textContent, left: b.left, right: b.right, top: b.top, bottom: b.bottom}; })",
    )
    assert len(titles) >= 2 and _overlapping(titles) == []
    assert page.locator("#topic-table tbody tr").count() == papers["topic"].nunique()

    # Search narrows the list and highlights exactly the matches on the map: papers holding a
    # word that starts with the query (letters and digits make words), or in a topic whose label
    # or keywords do.
    word = "diffusion"
    details = json.loads((seed_run / "results/topics/topic_details.json").read_text())["topics"]
    expected = matching_papers(papers, details, word)
    assert 0 < len(expected) < len(papers)
    listed = report.search(word.upper())
    assert len(listed) == len(expected)
    starts_a_word = rf"(?<![^\W_]){word}"
    named = expected["display_name"].str.lower().str.contains(starts_a_word).sum()
    assert page.locator("#search-results li .name:has(mark)").count() == named > 0
    assert page.text_content("#search-count") == f"{len(expected)} of {len(papers)} papers"
    assert sorted(report.highlighted_points()) == sorted(expected["id"])
    assert report.map_dimmed()
    assert (
        len(report.search("diffusion tree"))
        == len(matching_papers(papers, details, "diffusion tree"))
        < len(expected)
    ), "every word must match"
    report.search("")
    assert page.locator("#search-results li").count() == 0
    assert report.highlighted_points() == [] and not report.map_dimmed()

    # Hovering a point shows its display name; clicking it shows the paper, abstract in full.
    paper = papers.set_index("id").loc[report.point_id(0)]
    assert paper["display_name"] in report.hover_point(0, click=True)
    assert page.text_content("#paper-panel h3") == paper["display_name"]
    assert page.text_content("#paper-panel p.abstract") == paper["abstract"]

    # A representative paper's abstract is there when its topic's card and the paper are opened.
    page.locator("details.topic-card > summary").first.click()
    card_paper = page.locator("details.paper").first
    card_paper.locator("summary").click()
    shown = papers.set_index("id").loc[card_paper.get_attribute("data-id"), "abstract"]
    page.wait_for_function("p => p.textContent.length > 0", arg=card_paper.locator("p").element_handle())
    assert card_paper.locator("p").text_content() == shown

    # Sorting the topic table by size puts the largest topic first on the second click.
    page.click("#topic-table th:nth-child(4)")
    page.click("#topic-table th:nth-child(4)")
    sizes = [int(s) for s in page.locator("#topic-table tbody td:nth-child(4)").all_text_contents()]
    assert sizes == sorted(sizes, reverse=True)

    # The downloads are embedded: papers.csv comes out of the page as the stage wrote it.
    with page.expect_download() as download:
        page.click("button[data-filename='papers.csv']")
    assert Path(download.value.path()).read_text(encoding="utf-8") == (
        seed_run / "results/topics/papers.csv"
    ).read_text(encoding="utf-8")

    assert report.console_errors == []
    assert report.remote_requests == []


HOSTILE_TITLE = '<script>document.title="pwned"</script><b>Evil</b> dump'
HOSTILE_ABSTRACTS = [
    "<script>window.pwned = 'script';</script> We propose a method for graph learning that tries to run code in reports.",
    "This abstract closes the tag early </script><script>window.pwned = 'close';</script> and goes on about graphs.",
    "Images can run code: <img src=x onerror=\"window.pwned='img'\"> in this abstract about neural networks.",
    "Follow [this link](javascript:window.pwned='md') or <a href=\"javascript:window.pwned='a'\">this one</a> for graphs.",
    "An abstract with <svg onload=\"window.pwned='svg'\"></svg> markup, &lt;entities&gt; and a <!-- comment --> too.",
]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory) -> Path:
    """The first shipped dump plus a dump of hostile abstracts, through the whole workflow."""
    _, seed_abstracts = paragraphs_of(SEEDS[0])
    hostile = HOSTILE_TITLE + "\n\n" + "\n\n".join(HOSTILE_ABSTRACTS + seed_abstracts[:6]) + "\n"
    workdir = make_workdir(
        tmp_path_factory.mktemp("hostile"), {"evil.txt": hostile, SEEDS[0].name: SEEDS[0].read_bytes()}
    )
    run_workflow(workdir)
    return workdir


def test_hostile_abstracts_run_no_code_and_show_literally(hostile_run, browser_context):
    report = open_report(browser_context, hostile_run)
    page = report.page
    assert HOSTILE_TITLE in page.title() and HOSTILE_TITLE in page.text_content("h1")
    assert HOSTILE_TITLE in page.text_content("#method table.dumps")

    found = report.search("pwned")
    papers = pd.read_csv(hostile_run / "results/topics/papers.csv", keep_default_na=False)
    details = json.loads((hostile_run / "results/topics/topic_details.json").read_text())["topics"]
    hostile = papers[papers["abstract"].isin(HOSTILE_ABSTRACTS)]
    assert len(hostile) == len(HOSTILE_ABSTRACTS)
    assert len(found) == len(matching_papers(papers, details, "pwned")) >= len(HOSTILE_ABSTRACTS)
    for item in range(len(found)):
        page.locator("#search-results li").nth(item).click()
        page.wait_for_function(
            "id => document.getElementById('paper-panel').dataset.paper === id",
            arg=page.locator("#search-results li").nth(item).get_attribute("data-id"),
        )
        assert page.text_content("#paper-panel p.abstract") in HOSTILE_ABSTRACTS
    shown = {page.locator("#search-results li").nth(i).text_content() for i in range(len(found))}
    assert any("<script>window.pwned = 'script';</script>" in name for name in shown)

    # The hostile papers' hover labels show their markup as text. Labels break lines at
    # spaces, and their text joins the lines without one.
    page.wait_for_function("document.getElementById('document-map').dataset.hoverSnippets === 'true'")
    for paper in hostile.itertuples():
        label = "".join(report.hover_label_of(paper.id).split())
        assert "".join(paper.abstract.split())[:60] in label
        assert HOSTILE_TITLE.replace(" ", "") in label
    page.evaluate("document.querySelectorAll('details.topic-card').forEach(card => { card.open = true; })")
    for details in page.locator("details.paper").all():
        details.locator("summary").click()

    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.title().startswith("Topics of ")
    assert page.locator("body img, body [onerror], body [onload], a[href^='javascript']").count() == 0
    assert report.console_errors == []
    assert report.remote_requests == []


@pytest.mark.parametrize(
    "case, n_abstracts, hdbscan, expected_topics",
    [
        # Three abstracts are too few to split: the cluster stage makes them one topic.
        ("single-topic", 3, {}, [0]),
        # Topics of at least 6 of 12 papers, each core needing 6 neighbours: HDBSCAN finds none.
        ("zero-topics", 12, {"min_cluster_size": 6, "min_samples": 6}, [-1]),
    ],
)
def test_reports_of_one_topic_and_of_none_render(
    tmp_path, browser_context, case, n_abstracts, hdbscan, expected_topics
):
    title, abstracts = paragraphs_of(SEEDS[0])
    dump = title + "\n\n" + "\n\n".join(abstracts[:n_abstracts]) + "\n"
    workdir = make_workdir(tmp_path / case, {"small.txt": dump}, hdbscan=hdbscan)
    run_workflow(workdir)
    topics = pd.read_csv(workdir / "results/topics/topics.csv")
    assert topics["id"].tolist() == expected_topics

    report = open_report(browser_context, workdir)
    marks = report.rendered_marks()
    assert marks["document-map"] == n_abstracts
    assert all(count > 0 for count in marks.values()), marks
    notices = report.page.locator(".notice").all_text_contents()
    assert any("needs at least 2 topics" in text for text in notices)
    if expected_topics == [-1]:
        assert any("every paper is an outlier" in text.lower() for text in notices)
        assert set(marks) == {"document-map"}
    papers = pd.read_csv(workdir / "results/topics/papers.csv", keep_default_na=False).set_index("id")
    assert papers.loc[report.point_id(0), "display_name"] in report.hover_point(0)
    assert report.console_errors == []
    assert report.remote_requests == []


@pytest.fixture(scope="module")
def synthetic_10000(tmp_path_factory) -> Path:
    """A report of 10,000 synthetic papers in 150 topics and 15 groups, without BERTopic's figures."""
    path = tmp_path_factory.mktemp("synthetic") / "report.html"
    return synthetic_report.build_synthetic_report(path, 10_000, 150, 15, with_figures=False)


def _overlapping(boxes: list[dict]) -> list[tuple[str, str]]:
    return [
        (a["text"], b["text"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    ]


@pytest.fixture(scope="module")
def synthetic_outputs() -> dict:
    """The stage outputs the 10,000-paper report is built from."""
    return synthetic_report.synthetic_stage_outputs(10_000, 150, 15)


def _ranked_ids(page) -> list[str]:
    """Every paper the search found, best first (the layer over the map holds them in rank order)."""
    return page.evaluate(
        """() => { const map = document.getElementById('document-map');
                   const found = map.querySelector('canvas.map-highlight').highlighted;
                   return Array.from(found, i => map.data[0].customdata[i]); }"""
    )


def _map_papers_in_view(page, papers: pd.DataFrame) -> pd.DataFrame:
    (x0, x1), (y0, y1) = page.evaluate(
        "() => { const l = document.getElementById('document-map').layout; return [l.xaxis.range, l.yaxis.range]; }"
    )
    return papers[papers["x"].between(x0, x1) & papers["y"].between(y0, y1)]


def _searchable_report(context, path: Path) -> tuple[OpenedReport, object]:
    """A report opened until everything in it is searchable, and its page."""
    report = OpenedReport(context, path)
    report.page.wait_for_function("document.body.dataset.searchReady === 'true'")
    return report, report.page


def _hex(css_colour: str) -> str:
    return "#" + "".join(f"{int(c):02x}" for c in re.findall(r"\d+", css_colour)[:3])


@pytest.mark.slow(reason="builds a report of 10,000 synthetic papers")
def test_map_labels_at_three_zooms_are_whole_apart_and_name_every_large_cluster(
    synthetic_10000, synthetic_outputs, browser_context
):
    """Zoomed out, twice and four times: 8 to 20 labels, none cut or over another, groups out and
    topics in, and every topic with 2% of the points in view named by its label or its group's.
    """
    papers, details, groups = (synthetic_outputs[k] for k in ("papers", "details", "groups"))
    whole = {re.sub(r"\s", "", f"{t['topic']}: {t['label']}"): {t["topic"]} for t in details}
    whole.update({re.sub(r"\s", "", g["label"]): set(g["topics"]) for g in groups})
    report = OpenedReport(browser_context, synthetic_10000)
    page = report.page
    page.locator("#document-map").scroll_into_view_if_needed()
    kinds = []
    for zoom in (1, 2, 4):
        if zoom > 1:  # the mode bar's zoom-in button: the map's range halves
            page.locator("#document-map .modebar-btn[data-title='Zoom in']").click()
        page.wait_for_function(
            "() => { const map = document.getElementById('document-map');"
            " return map.dataset.labelled === String(map.layout.xaxis.range); }"
        )
        labels = report.visible_label_boxes()
        assert 8 <= len(labels) <= 20, (zoom, len(labels))
        assert _overlapping(labels) == [], zoom
        named = [whole.get(re.sub(r"\s", "", label["text"])) for label in labels]
        assert None not in named, "every label is a topic's or a group's whole label, never cut"
        in_view = _map_papers_in_view(page, papers)
        counts = in_view.loc[in_view["topic"] != -1, "topic"].value_counts()
        large = set(counts[counts >= 0.02 * len(in_view)].index)
        assert large and large <= set().union(*named), (zoom, large - set().union(*named))
        kinds.append({"topic" if len(topics) == 1 else "group" for topics in named})
    assert kinds[0] == {"group"} and "topic" in kinds[-1], "groups zoomed out, topics zoomed in"
    assert report.console_errors == []


def _counted_words(texts: pd.Series, word: str) -> pd.Series:
    return texts.str.lower().map(lambda text: sum(w.startswith(word) for w in WORD.findall(text)))


@pytest.mark.slow(reason="builds a report of 10,000 synthetic papers")
def test_search_ranks_papers_with_the_word_in_the_title_above_those_with_it_only_in_the_abstract(
    synthetic_10000, synthetic_outputs, browser_context
):
    papers, details = synthetic_outputs["papers"], synthetic_outputs["details"]
    # A common English word of the synthetic titles and abstracts (topic words are made-up ones).
    for word in ("model", "learning", "graph", "data", "method", "network", "results"):
        in_title, in_abstract = (
            _counted_words(papers["display_name"], word),
            _counted_words(papers["abstract"], word),
        )
        title_only = papers[(in_title == 1) & (in_abstract == 0)]
        abstract_only = papers[(in_title == 0) & (in_abstract == 1)]
        if len(title_only) >= 5 and len(abstract_only) >= 5:
            break
    assert len(matching_papers(papers, details, word)) == ((in_title + in_abstract) > 0).sum(), (
        "no topic holds it"
    )
    report, page = _searchable_report(browser_context, synthetic_10000)
    listed = report.search(word)
    rank = {paper: i for i, paper in enumerate(_ranked_ids(page))}
    assert max(rank[p] for p in title_only["id"]) < min(rank[p] for p in abstract_only["id"]), word
    # A row: the title and a snippet of the abstract, the word marked, then the year and the topic.
    first = page.locator("#search-results li").first
    assert first.locator(".name mark").count() >= 1
    paper = papers.set_index("id").loc[first.get_attribute("data-id")]
    topic = next(t for t in details if t["topic"] == paper["topic"])
    assert f"{paper['year']} · {topic['topic']}: {topic['label']}" in listed[0]
    assert report.console_errors == []


@pytest.mark.slow(reason="builds a report of 10,000 synthetic papers")
def test_filters_by_year_and_topic_narrow_the_search_dim_the_map_and_recount_the_topic_table(
    synthetic_10000, synthetic_outputs, browser_context
):
    papers, details = synthetic_outputs["papers"], synthetic_outputs["details"]
    report, page = _searchable_report(browser_context, synthetic_10000)
    colours_before = page.evaluate("document.getElementById('document-map').data[0].marker.color")
    page.click("#period-filter button[data-periods='none']")
    page.check("#period-filter label:has-text('2020') input")
    in_2020 = papers["year"] == 2020

    expected = matching_papers(papers[in_2020], details, "kalo")
    report.search("kalo")
    assert 0 < len(expected) < 100
    assert page.text_content("#search-count") == f"{len(expected)} of 10000 papers in the filter"
    assert sorted(_ranked_ids(page)) == sorted(expected["id"])
    assert sorted(report.highlighted_points()) == sorted(expected["id"])
    # The other years' points are pale: none keeps its colour.
    colours = page.evaluate("document.getElementById('document-map').data[0].marker.color")
    kept = in_2020.to_numpy()
    assert all(colours[i] == colours_before[i] for i in range(len(kept)) if kept[i])
    assert not any(colours[i] == colours_before[i] for i in range(len(kept)) if not kept[i])
    # The topic table counts the year's papers.
    sizes = dict(
        page.eval_on_selector_all(
            "#topic-table tbody tr",
            "rows => rows.map(r => [+r.dataset.topic, +r.querySelector('td.size').textContent])",
        )
    )
    assert sizes == papers[in_2020]["topic"].value_counts().reindex(sizes, fill_value=0).to_dict()

    # A topic as well: the topic's papers of 2020.
    topic = details[26]
    page.select_option("#topic-filter", str(details.index(topic)))
    expected = matching_papers(papers[in_2020 & (papers["topic"] == topic["topic"])], details, "kalo")
    report.search("kalo miqua")
    report.search("kalo")
    assert sorted(_ranked_ids(page)) == sorted(expected["id"]) and len(expected) > 0
    assert report.console_errors == []


@pytest.mark.slow(reason="builds a report of 10,000 synthetic papers")
def test_colour_by_year_colours_each_point_as_the_legend_shows_its_year(
    synthetic_10000, synthetic_outputs, browser_context
):
    papers = synthetic_outputs["papers"]
    report = OpenedReport(browser_context, synthetic_10000)
    page = report.page
    assert (
        page.locator("#topic-legend").is_visible()
        and not page.locator("#period-filter .swatch").first.is_visible()
    )
    page.select_option("#colour-by", "period")
    assert not page.locator("#topic-legend").is_visible()
    legend = dict(
        page.eval_on_selector_all(
            "#period-filter label",
            "labels => labels.map(l => [l.textContent.trim(), getComputedStyle(l.querySelector('.swatch')).backgroundColor])",
        )
    )
    assert sorted(legend) == [str(year) for year in range(2019, 2025)]
    assert len(set(legend.values())) == 6 and page.locator("#period-filter .swatch").first.is_visible()
    page.wait_for_function(
        "colour => document.getElementById('document-map').data[0].marker.color[0] === colour",
        arg=_hex(legend[str(papers["year"].iloc[0])]),
    )
    colours = page.evaluate("document.getElementById('document-map').data[0].marker.color")
    assert colours == [_hex(legend[str(year)]) for year in papers["year"]]
    assert report.console_errors == []


def _inside(path: str, x: pd.Series, y: pd.Series) -> pd.Series:
    """Whether each point is inside the closed SVG path of straight lines (a plotly lasso)."""
    corners = [tuple(map(float, pair.split(","))) for pair in re.findall(r"[-\d.e]+,[-\d.e]+", path)]
    inside = pd.Series(False, index=x.index)
    for (x1, y1), (x2, y2) in zip(corners, corners[1:] + corners[:1], strict=True):
        crosses = (y1 > y) != (y2 > y)
        inside ^= crosses & (x < (x2 - x1) * (y - y1) / ((y2 - y1) or 1e-300) + x1)
    return inside


@pytest.mark.slow(reason="builds a report of 10,000 synthetic papers")
def test_a_lasso_lists_the_selected_papers_their_words_and_exports_them_as_csv(
    synthetic_10000, synthetic_outputs, browser_context
):
    papers, details = synthetic_outputs["papers"], synthetic_outputs["details"]
    report, page = _searchable_report(browser_context, synthetic_10000)
    page.locator("#document-map").scroll_into_view_if_needed()
    page.locator("#document-map .modebar-btn[data-title='Lasso Select']").click()
    area = page.locator("#document-map .nsewdrag").bounding_box()
    start = (area["x"] + 0.3 * area["width"], area["y"] + 0.4 * area["height"])
    page.mouse.move(*start)
    page.mouse.down()
    for dx, dy in ((130, 20), (110, 140), (-10, 120), (0, 0)):
        page.mouse.move(start[0] + dx, start[1] + dy, steps=6)
    page.mouse.up()
    page.wait_for_function("document.getElementById('selection').dataset.words === 'complete'")

    path = page.evaluate("document.getElementById('document-map').layout.selections[0].path")
    selected = papers[_inside(path, papers["x"], papers["y"])]
    assert 10 < len(selected) < 2000
    assert page.text_content("#selection h3") == f"Selection: {len(selected)} papers"
    listed = page.eval_on_selector_all("#selection ol.selected li", "items => items.map(i => i.dataset.id)")
    assert len(listed) == min(len(selected), 100) and set(listed) <= set(selected["id"])
    centre = selected["x"].median(), selected["y"].median()
    distance = ((selected["x"] - centre[0]) ** 2 + (selected["y"] - centre[1]) ** 2).set_axis(selected["id"])
    assert listed[0] == distance.idxmin(), "the most central paper first"
    # Its distinctive words include the label words of the topic most of it is in.
    words = page.locator("#selection .distinctive li").all_text_contents()
    main_topic = selected["topic"].value_counts().index[0]
    label_words = next(t["label"] for t in details if t["topic"] == main_topic).split(", ")
    assert set(words) & set(label_words), (words, label_words)
    assert not set(words) & {"the", "and", "of"}

    with page.expect_download() as download:
        page.click("#selection button[data-export='selection']")
    rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8"))))
    assert [row["id"] for row in rows[:100]] == listed and {row["id"] for row in rows} == set(selected["id"])
    by_id = papers.set_index("id")
    assert all(row["abstract"] == by_id.loc[row["id"], "abstract"] for row in rows)
    assert all(row["year"] == str(by_id.loc[row["id"], "year"]) for row in rows)
    assert report.console_errors == []


@pytest.mark.slow(reason="builds a report of 10,000 synthetic papers")
def test_a_shown_paper_lists_its_ten_most_similar_papers_each_of_which_can_be_shown(
    synthetic_10000, synthetic_outputs, browser_context
):
    papers = synthetic_outputs["papers"]
    similar = synthetic_report.synthetic_similar_papers(synthetic_outputs)
    report = OpenedReport(browser_context, synthetic_10000)
    page = report.page
    report.search("kalo")
    first = page.locator("#search-results li").first
    shown = first.get_attribute("data-id")
    first.click()
    page.wait_for_function("id => document.getElementById('paper-panel').dataset.paper === id", arg=shown)
    listed = page.eval_on_selector_all("#paper-panel ol.similar li", "items => items.map(i => i.dataset.id)")
    row = papers.index[papers["id"] == shown][0]
    assert listed == papers["id"].to_numpy()[similar["indices"][row]].tolist() and len(listed) == 10
    # The paper shown scrolls within its share of the column beside the map, not over what follows.
    panel, side = (page.locator(s).bounding_box() for s in ("#paper-panel", ".map-side"))
    column = page.eval_on_selector(".map-side", "side => parseFloat(getComputedStyle(side).maxHeight)")
    assert panel["height"] <= 0.55 * column + 1
    assert panel["y"] + panel["height"] <= side["y"] + side["height"] + 1
    page.locator("#paper-panel ol.similar li").nth(2).click()
    page.wait_for_function("id => document.getElementById('paper-panel').dataset.paper === id", arg=listed[2])
    assert page.text_content("#paper-panel h3") == papers.set_index("id").loc[listed[2], "display_name"]
    assert report.console_errors == []


@pytest.mark.slow(reason="builds a report of 10,000 synthetic papers")
def test_every_topics_keywords_are_on_a_page_of_the_keyword_chart_none_over_another_panel(
    synthetic_10000, synthetic_outputs, browser_context
):
    details = [t for t in synthetic_outputs["details"] if t["topic"] != -1]
    report = OpenedReport(browser_context, synthetic_10000)
    page = report.page
    chart = page.locator("#keyword-chart")
    chart.scroll_into_view_if_needed()

    def titles() -> list[str]:
        return [re.sub(r"\s", "", t) for t in chart.locator(".annotation-text").all_text_contents()]

    assert titles() == [re.sub(r"\s", "", f"{t['topic']}: {t['label']}") for t in details[:12]]
    chart.locator(".updatemenu-header-group").click()
    pages = chart.locator(".updatemenu-dropdown-button")
    assert pages.count() == 13
    pages.nth(12).click()
    page.wait_for_function("() => document.querySelectorAll('#keyword-chart .annotation-text').length === 6")
    assert titles() == [re.sub(r"\s", "", f"{t['topic']}: {t['label']}") for t in details[144:]]
    # Each panel's keywords sit between the panel to its left and its own bars.
    panels = page.eval_on_selector_all(
        "#keyword-chart .cartesianlayer .subplot",
        """subplots => subplots.map(s => ({
            bars: document.querySelector(`#keyword-chart .draglayer .${s.classList[1]} .nsewdrag`).getBoundingClientRect().toJSON(),
            words: [...s.querySelectorAll('.yaxislayer-above text')].map(t => t.getBoundingClientRect().toJSON()) }))""",
    )
    drawn = [p for p in panels if p["bars"] and p["words"]]
    assert len(drawn) >= 6
    for panel in drawn:
        left_neighbours = [
            o["bars"]["right"]
            for o in drawn
            if o["bars"]["right"] <= panel["bars"]["left"]
            and abs(o["bars"]["top"] - panel["bars"]["top"]) < 1
        ]
        for word in panel["words"]:
            assert word["right"] <= panel["bars"]["left"] + 1
            assert word["left"] >= max(left_neighbours, default=0)
    assert report.console_errors == []


# Every text the search's count line shows, in order.
_RECORD_COUNT_LINES = """
window.__countLines = [];
document.addEventListener('DOMContentLoaded', () => {
    const count = document.getElementById('search-count');
    new MutationObserver(() => window.__countLines.push(count.textContent))
        .observe(count, {childList: true, characterData: true, subtree: true});
});
"""


@pytest.mark.slow(reason="builds a report of 10,000 synthetic papers")
@pytest.mark.parametrize("engine", ["worker", "page"])
def test_search_typed_before_the_index_is_built_answers_in_full_and_highlights_the_map(
    synthetic_10000, synthetic_outputs, browser_context, engine
):
    """A query typed while the page loads is answered from the names at first, then in full once the
    abstracts are indexed; with the search engine in its worker, and on the page where the browser
    gives no worker.
    """
    papers, details = synthetic_outputs["papers"], synthetic_outputs["details"]
    word = "kalo"  # a syllable pair of the synthetic topic words, in names and in abstracts
    expected = matching_papers(papers, details, word)
    in_names = matching_papers(papers.assign(abstract=""), details, word)
    assert 0 < len(in_names) < len(expected) < len(papers), (
        "the abstracts must add papers to the names' matches"
    )

    no_worker = "" if engine == "worker" else "delete window.Worker;"
    report = OpenedReport(
        browser_context, synthetic_10000, init_script=_RECORD_COUNT_LINES + no_worker, type_first=word
    )
    page = report.page
    assert report.typed_before_search_ready
    page.wait_for_function("q => document.getElementById('search-box').dataset.searched === q", arg=word)
    assert page.evaluate("document.body.dataset.searchReady") == "true"

    assert (
        page.text_content("#search-count")
        == f"{len(expected)} of {len(papers)} papers (the first 100 listed)"
    )
    listed = page.eval_on_selector_all("#search-results li", "items => items.map(item => item.dataset.id)")
    assert listed == _ranked_ids(page)[:100] and set(listed) <= set(expected["id"])
    # Answers given before the abstracts were indexed said so, and held no paper the full answer lacks.
    early = [line for line in page.evaluate("window.__countLines") if "so far" in line]
    assert all(int(line.split()[0]) <= len(expected) for line in early)
    page.locator("#document-map").scroll_into_view_if_needed()
    assert sorted(report.highlighted_points()) == sorted(expected["id"])
    assert report.map_dimmed()
    assert report.console_errors == []
    assert report.remote_requests == []


# The text the page receives from the search engine's worker: the longest message's, in characters.
_RECORD_WORKER_MESSAGES = """
window.__longestFromWorker = 0;
const PageWorker = window.Worker;
window.Worker = function (url) {
    const worker = new PageWorker(url);
    const characters = value => typeof value === 'string' ? value.length
        : Array.isArray(value) ? value.reduce((n, item) => n + characters(item), 0)
        : value && typeof value === 'object' ? Object.values(value).reduce((n, item) => n + characters(item), 0) : 0;
    worker.addEventListener('message', event => {
        window.__longestFromWorker = Math.max(window.__longestFromWorker, characters(event.data));
    });
    return worker;
};
"""


@pytest.mark.slow(reason="builds a report of 10,000 synthetic papers")
@pytest.mark.parametrize("engine", ["worker", "page"])
def test_shown_paper_gets_its_whole_abstract_from_the_search_engine(
    synthetic_10000, synthetic_outputs, browser_context, engine
):
    """The search engine keeps the abstracts: the page receives their first words for the hover
    labels, and a paper's whole abstract when it is shown (on the map or in a topic card); with the
    engine in its worker, and on the page where the browser gives no worker.
    """
    papers = synthetic_outputs["papers"].set_index("id")
    init_script = _RECORD_WORKER_MESSAGES if engine == "worker" else "delete window.Worker;"
    report = OpenedReport(browser_context, synthetic_10000, init_script=init_script)
    page = report.page
    page.wait_for_function("document.body.dataset.searchReady === 'true'")

    # A paper clicked in the search's list, then another on the map: each shows its abstract in full.
    report.search("kalo")
    page.locator("#search-results li").nth(3).click()
    listed = page.locator("#search-results li").nth(3).get_attribute("data-id")
    page.wait_for_function("id => document.getElementById('paper-panel').dataset.paper === id", arg=listed)
    assert page.text_content("#paper-panel h3") == papers.loc[listed, "display_name"]
    assert page.text_content("#paper-panel p.abstract") == papers.loc[listed, "abstract"]
    page.wait_for_function("document.getElementById('document-map').dataset.hoverSnippets === 'true'")
    point = 1234
    label = "".join(report.hover_point(point, click=True).split())
    shown = papers.loc[report.point_id(point)]
    page.wait_for_function(
        "name => document.querySelector('#paper-panel h3')?.textContent === name", arg=shown["display_name"]
    )
    assert page.text_content("#paper-panel p.abstract") == shown["abstract"]
    assert len(shown["abstract"]) > 200 and "".join(shown["abstract"].split())[:150] in label
    assert "".join(shown["abstract"].split()) not in label, "the hover label holds the abstract's first words"

    # A representative paper of a topic card, opened.
    page.locator("details.topic-card > summary").first.click()
    card_paper = page.locator("details.paper").first
    card_paper.locator("summary").click()
    page.wait_for_function("p => p.textContent.length > 0", arg=card_paper.locator("p").element_handle())
    assert (
        card_paper.locator("p").text_content() == papers.loc[card_paper.get_attribute("data-id"), "abstract"]
    )

    if engine == "worker":  # the abstracts stayed in the worker: no message held them all
        longest = page.evaluate("window.__longestFromWorker")
        assert 0 < longest < papers["abstract"].str.len().sum() / 3
    assert report.console_errors == []
    assert report.remote_requests == []
