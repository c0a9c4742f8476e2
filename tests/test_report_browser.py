"""The report in headless Chromium, opened from file:// with the network blocked.

Whole-workflow runs (slow) on the shipped dumps, on dumps with hostile abstracts, and on
corpora with one topic and with none.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
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


@pytest.fixture(scope="module")
def browser_context():
    with offline_chromium(viewport={"width": 1400, "height": 1000}) as context:
        yield context


def open_report(context, workdir: Path) -> OpenedReport:
    return OpenedReport(context, workdir / REPORT)


def paragraphs_of(dump: Path) -> tuple[str, list[str]]:
    from papertopics.formats import read_dump

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
    # word that starts with the query (letters and digits make words).
    word = "diffusion"
    starts_a_word = rf"(?<![^\W_]){word}"
    expected = papers[
        (papers["display_name"] + " " + papers["abstract"]).str.lower().str.contains(starts_a_word)
    ]
    assert 0 < len(expected) < len(papers)
    listed = report.search(word.upper())
    assert len(listed) == len(expected)
    named = expected["display_name"].str.lower().str.contains(starts_a_word).sum()
    assert page.locator("#search-results li:has(mark)").count() == named > 0
    assert page.text_content("#search-count") == f"{len(expected)} of {len(papers)} papers"
    assert sorted(report.highlighted_points()) == sorted(expected["id"])
    assert report.map_dimmed()
    assert len(report.search("diffusion model")) < len(expected), "every word must match"
    report.search("")
    assert page.locator("#search-results li").count() == 0
    assert report.highlighted_points() == [] and not report.map_dimmed()

    # Hovering a point shows its display name; clicking it shows the paper, abstract in full.
    paper = papers.set_index("id").loc[report.point_id(0)]
    assert paper["display_name"] in report.hover_point(0, click=True)
    assert page.text_content("#paper-panel h3") == paper["display_name"]
    assert page.text_content("#paper-panel p:last-child") == paper["abstract"]

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
    assert HOSTILE_TITLE in page.text_content("#overview table.dumps")

    found = report.search("pwned")
    assert len(found) == len(HOSTILE_ABSTRACTS)
    for item in range(len(found)):
        page.locator("#search-results li").nth(item).click()
        assert page.text_content("#paper-panel p:last-child") in HOSTILE_ABSTRACTS
    shown = {page.locator("#search-results li").nth(i).text_content() for i in range(len(found))}
    assert any("<script>window.pwned = 'script';</script>" in name for name in shown)

    # The hostile papers' hover labels show their markup as text. Labels break lines at
    # spaces, and their text joins the lines without one.
    papers = pd.read_csv(hostile_run / "results/topics/papers.csv", keep_default_na=False)
    hostile = papers[papers["abstract"].isin(HOSTILE_ABSTRACTS)]
    assert len(hostile) == len(HOSTILE_ABSTRACTS)
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


def _report_bench():
    """bench/report_bench.py, which makes up synthetic stage outputs and builds reports of them."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "report_bench", Path(__file__).parents[1] / "bench" / "report_bench.py"
    )
    report_bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report_bench)
    return report_bench


@pytest.fixture(scope="module")
def synthetic_10000(tmp_path_factory) -> Path:
    """A report of 10,000 synthetic papers in 150 topics and 15 groups, without BERTopic's figures."""
    path = tmp_path_factory.mktemp("synthetic") / "report.html"
    return _report_bench().build_synthetic_report(path, 10_000, 150, 15, with_figures=False)


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


@pytest.mark.slow(reason="builds a report of 10,000 synthetic papers")
def test_map_of_10000_papers_labels_groups_then_topics_without_overlap(synthetic_10000, browser_context):
    report = OpenedReport(browser_context, synthetic_10000)
    page = report.page
    page.locator("#document-map").scroll_into_view_if_needed()

    zoomed_out = report.visible_label_boxes()
    assert len(zoomed_out) >= 5, zoomed_out
    assert not any(re.match(r"\d+: ", label["text"]) for label in zoomed_out), "zoomed out: the topic groups"
    assert _overlapping(zoomed_out) == []
    for _ in range(2):  # the mode bar's zoom-in button: the map's range halves each time
        page.locator("#document-map .modebar-btn[data-title='Zoom in']").click()
        page.wait_for_timeout(400)
    zoomed_in = report.visible_label_boxes()
    assert len(zoomed_in) >= 5 and all(re.match(r"\d+: ", label["text"]) for label in zoomed_in), zoomed_in
    assert _overlapping(zoomed_in) == []
    assert {label["text"] for label in zoomed_in} != {label["text"] for label in zoomed_out}

    # Search narrows the list and highlights its papers on the map.
    page.wait_for_function("document.body.dataset.searchReady === 'true'")
    listed = report.search("kalo")  # synthetic topic words are made of syllables such as "ka" and "lo"
    count = int(page.text_content("#search-count").split()[0])
    assert 0 < count < 10_000 and len(listed) == min(count, 100)
    # Zoomed back out (the highlight follows the map), every found paper is drawn over the dimmed map.
    page.locator("#document-map .modebar-btn[data-title='Reset axes']").click()
    page.wait_for_timeout(400)
    assert len(report.highlighted_points()) == count
    assert report.console_errors == []
    assert report.remote_requests == []


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
    synthetic_10000, browser_context, engine
):
    """A query typed while the page loads is answered from the names at first, then in full once the
    abstracts are indexed; with the search engine in its worker, and on the page where the browser
    gives no worker.
    """
    papers = _report_bench().synthetic_stage_outputs(10_000, 150, 15)["papers"]
    word = "kalo"  # a syllable pair of the synthetic topic words, in names and in abstracts
    starts_a_word = rf"(?<![^\W_]){word}"
    expected = papers[
        (papers["display_name"] + " " + papers["abstract"]).str.lower().str.contains(starts_a_word)
    ]
    in_names = papers["display_name"].str.lower().str.contains(starts_a_word).sum()
    assert 0 < in_names < len(expected) < len(papers), "the abstracts must add papers to the names' matches"

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
    assert listed == expected["id"].tolist()[:100]
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
def test_shown_paper_gets_its_whole_abstract_from_the_search_engine(synthetic_10000, browser_context, engine):
    """The search engine keeps the abstracts: the page receives their first words for the hover
    labels, and a paper's whole abstract when it is shown (on the map or in a topic card); with the
    engine in its worker, and on the page where the browser gives no worker.
    """
    papers = _report_bench().synthetic_stage_outputs(10_000, 150, 15)["papers"].set_index("id")
    init_script = _RECORD_WORKER_MESSAGES if engine == "worker" else "delete window.Worker;"
    report = OpenedReport(browser_context, synthetic_10000, init_script=init_script)
    page = report.page
    page.wait_for_function("document.body.dataset.searchReady === 'true'")

    # A paper clicked in the search's list, then another on the map: each shows its abstract in full.
    report.search("kalo")
    page.locator("#search-results li").nth(3).click()
    listed = page.locator("#search-results li").nth(3).get_attribute("data-id")
    assert page.text_content("#paper-panel h3") == papers.loc[listed, "display_name"]
    assert page.text_content("#paper-panel p:last-child") == papers.loc[listed, "abstract"]
    page.wait_for_function("document.getElementById('document-map').dataset.hoverSnippets === 'true'")
    point = 1234
    label = "".join(report.hover_point(point, click=True).split())
    shown = papers.loc[report.point_id(point)]
    page.wait_for_function(
        "name => document.querySelector('#paper-panel h3')?.textContent === name", arg=shown["display_name"]
    )
    assert page.text_content("#paper-panel p:last-child") == shown["abstract"]
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
