"""The report in headless Chromium, opened from file:// with the network blocked.

Whole-workflow runs (slow) on the shipped dumps, on dumps with hostile abstracts, and on
corpora with one topic and with none.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from conftest import SEEDS, make_workdir, run_workflow

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
REPORT = Path("results/report/index.html")
# Marks that plotly draws for the kinds of chart the report holds.
RENDERED_MARKS = ".scatterlayer .point, .scatterlayer path.js-line, .barlayer path, .heatmaplayer image, .hm image"


class OpenedReport:
    """A report page, with what it logged and every request that was not for a local file."""

    def __init__(self, context, path: Path):
        self.console_errors: list[str] = []
        self.remote_requests: list[str] = []
        self.page = context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        self.page.on("pageerror", lambda error: self.console_errors.append(f"uncaught: {error}"))
        self.page.route(re.compile(r"^(?!file:|data:|blob:)"), self._block)
        self.page.goto(path.resolve().as_uri(), wait_until="load")
        self.page.wait_for_function("document.querySelectorAll('div.figure:not(.js-plotly-plot)').length === 0")

    def _block(self, route):
        self.remote_requests.append(route.request.url)
        route.abort()

    def rendered_marks(self) -> dict[str, int]:
        """For every chart on the page: how many data marks plotly drew in it."""
        return self.page.eval_on_selector_all(
            "div.figure",
            f"divs => Object.fromEntries(divs.map(d => [d.id, d.querySelectorAll({RENDERED_MARKS!r}).length]))",
        )

    def hover_point(self, trace: int, point: int, click: bool = False) -> str:
        """Move the mouse onto one map point (and click it); return the hover label's text."""
        marker = self.page.locator("#document-map .scatterlayer .trace").nth(trace).locator(".point").nth(point)
        marker.scroll_into_view_if_needed()
        box = marker.bounding_box()
        centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        label = self.page.locator("#document-map .hoverlayer .hovertext")
        self.page.mouse.move(0, 0)  # off the map first, so that no earlier label is read
        label.wait_for(state="detached")
        self.page.mouse.move(*centre, steps=2)
        label.wait_for()
        text = label.text_content()
        if click:  # plotly takes a click as one on a point only once it has hovered it
            self.page.mouse.click(*centre)
        return text

    def hover_label_of(self, paper_id: str) -> str:
        """The hover label plotly draws for one paper's point (raised directly: points may overlap)."""
        label = self.page.locator("#document-map .hoverlayer .hovertext")
        self.page.evaluate("Plotly.Fx.unhover(document.getElementById('document-map'))")
        label.wait_for(state="detached")  # plotly throttles hovers: wait for the last one to go
        self.page.evaluate(
            """id => {
                const map = document.getElementById('document-map');
                map.data.forEach((trace, curveNumber) => trace.customdata.forEach((row, pointNumber) => {
                    if (row[0] === id) { Plotly.Fx.hover(map, [{curveNumber, pointNumber}]); }
                }));
            }""",
            paper_id,
        )
        label.wait_for()
        return label.text_content()

    def point_id(self, trace: int, point: int) -> str:
        """The paper id behind one map point."""
        return self.page.evaluate(f"document.getElementById('document-map').data[{trace}].customdata[{point}][0]")

    def search(self, words: str) -> list[str]:
        self.page.fill("#search-box", words)
        # The page searches once typing pauses; it marks the query it has searched for.
        self.page.wait_for_function("query => document.getElementById('search-box').dataset.searched === query", arg=words)
        return self.page.locator("#search-results li").all_text_contents()

    def highlighted_points(self) -> int:
        """Map points drawn at full opacity while the others are dimmed."""
        return self.page.eval_on_selector_all(
            "#document-map .scatterlayer .point", "points => points.filter(p => p.style.opacity === '1').length"
        )


@pytest.fixture(scope="module")
def browser_context():
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent; `make browser` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(offline=True, viewport={"width": 1400, "height": 1000})
        yield context
        context.close()
        browser.close()


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
    assert [p.name for p in (seed_run / REPORT).parent.iterdir()] == ["index.html"], "nothing beside it is needed"


def test_seed_report_renders_searches_and_hovers_offline(seed_run, browser_context):
    papers = pd.read_csv(seed_run / "results/topics/papers.csv", keep_default_na=False)
    report = open_report(browser_context, seed_run)
    page = report.page

    marks = report.rendered_marks()
    assert set(marks) >= {"document-map", "keyword-chart", "intertopic-map", "topic-hierarchy", "topic-heatmap",
                          "dump-share"}
    assert all(count > 0 for count in marks.values()), marks
    assert page.locator(".notice").count() == 0
    assert page.locator("#document-map .scatterlayer .point").count() == len(papers)
    assert page.locator("#topic-table tbody tr").count() == papers["topic"].nunique()

    # Search narrows the list and highlights exactly the matches on the map.
    word = "diffusion"
    expected = papers[(papers["display_name"] + " " + papers["abstract"]).str.lower().str.contains(word)]
    assert 0 < len(expected) < len(papers)
    listed = report.search(word.upper())
    assert len(listed) == len(expected)
    named = expected["display_name"].str.lower().str.contains(word).sum()
    assert page.locator("#search-results li:has(mark)").count() == named > 0
    assert page.text_content("#search-count") == f"{len(expected)} of {len(papers)} papers"
    assert report.highlighted_points() == len(expected)
    report.search("")
    assert page.locator("#search-results li").count() == 0

    # Hovering a point shows its display name; clicking it shows the paper.
    paper = papers.set_index("id").loc[report.point_id(0, 0)]
    assert paper["display_name"] in report.hover_point(0, 0, click=True)
    assert page.text_content("#paper-panel h3") == paper["display_name"]
    assert page.text_content("#paper-panel p:last-child") == paper["abstract"]

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
    workdir = make_workdir(tmp_path_factory.mktemp("hostile"), {"evil.txt": hostile, SEEDS[0].name: SEEDS[0].read_bytes()})
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
    for paper in hostile.itertuples():
        label = "".join(report.hover_label_of(paper.id).split())
        assert "".join(paper.abstract.split())[:60] in label
        assert HOSTILE_TITLE.replace(" ", "") in label
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
def test_reports_of_one_topic_and_of_none_render(tmp_path, browser_context, case, n_abstracts, hdbscan, expected_topics):
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
    assert papers.loc[report.point_id(0, 0), "display_name"] in report.hover_point(0, 0)
    assert report.console_errors == []
    assert report.remote_requests == []
