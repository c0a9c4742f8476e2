"""The map and the figures of a report of five real conference years (the shared IJCAI corpus,
one JSON Lines dump per year: title, abstract and year only; conftest's ``ijcai_years_run``), in headless Chromium, offline:
labels on their own papers at three zooms, a whole legend, touching topics in clearly different
colours, search results and the selection beside the map, every figure downloadable for slides,
and nothing that could send the report anywhere.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import offline_chromium

pytestmark = [pytest.mark.slow, pytest.mark.browser]

REPORT = Path("results/report/index.html")
VIEWPORT = {"width": 1280, "height": 900}
# The furthest a label's box may be from the nearest of its own papers, in pixels.
LABEL_REACH = 20
# The least CIEDE2000 difference between the colours of two topics that touch on the map.
MIN_CONTRAST = 10
CLOUD = re.compile(r"chart studio|cloud|plot\.ly|plotly\.com", re.IGNORECASE)


@pytest.fixture(scope="module")
def browser_context():
    with offline_chromium(viewport=VIEWPORT, accept_downloads=True) as context:
        yield context


def map_data(report: Path) -> dict:
    """The map's data block of a report, unpacked as the page's script unpacks it."""
    text = report.read_text(encoding="utf-8")
    packed = re.search(r'<script type="application/gzip\+base64" id="map-data">([^<]*)</script>', text)
    return json.loads(gzip.decompress(base64.b64decode(packed.group(1))))


def open_map(context, report: Path):
    """The report's page, its map drawn and labelled, with the requests that got an answer and the
    content security policy's refusals (``window.refused``).
    """
    page = context.new_page()
    page.answered = []
    page.on("requestfinished", lambda request: page.answered.append(request.url))
    page.add_init_script(
        "window.refused = []; document.addEventListener('securitypolicyviolation',"
        " e => window.refused.push([e.effectiveDirective, e.blockedURI]));"
    )
    page.goto(report.resolve().as_uri())
    page.wait_for_function("document.getElementById('document-map').dataset.labelled !== undefined")
    page.locator("#document-map").scroll_into_view_if_needed()
    return page


def wait_labelled(page) -> None:
    page.wait_for_function(
        "() => { const map = document.getElementById('document-map');"
        " return map.dataset.labelled === String(map.layout.xaxis.range); }"
    )


def zoom_in(page) -> None:
    """The mode bar's zoom-in button: the map's ranges halve about their middle."""
    page.locator("#document-map").hover()
    page.locator("#document-map .modebar-btn[data-title='Zoom in']").click()
    wait_labelled(page)


def label_distances(page, data: dict) -> list[dict]:
    """Each label drawn on the map: its text, its topics (positions in ``data["topics"]``) and the
    pixels from its box (as drawn) to the nearest of its own papers (0 when one is inside it).
    """
    units = {
        re.sub(r"\s", "", "".join(label["lines"])): [label["topic"]] for label in data["labels"]["topics"]
    }
    units.update({re.sub(r"\s", "", "".join(g["lines"])): g["topics"] for g in data["labels"]["groups"]})
    drawn = page.evaluate(
        """() => {
            const map = document.getElementById('document-map'), full = map._fullLayout;
            const area = map.getBoundingClientRect();
            const points = map.data[0].x.map((x, i) => [area.left + full.xaxis._offset + full.xaxis.l2p(x),
                area.top + full.yaxis._offset + full.yaxis.l2p(map.data[0].y[i])]);
            const labels = Array.from(map.querySelectorAll('.annotation')).map(l => {
                const b = l.querySelector('.bg').getBoundingClientRect();
                return {text: l.textContent, left: b.left, right: b.right, top: b.top, bottom: b.bottom};
            });
            return {points, labels};
        }"""
    )
    points = np.array(drawn["points"])
    topic_of = np.array(data["topic"])
    measured = []
    for label in drawn["labels"]:
        topics = units[re.sub(r"\s", "", label["text"])]
        own = points[np.isin(topic_of, topics)]
        dx = np.maximum.reduce([label["left"] - own[:, 0], np.zeros(len(own)), own[:, 0] - label["right"]])
        dy = np.maximum.reduce([label["top"] - own[:, 1], np.zeros(len(own)), own[:, 1] - label["bottom"]])
        measured.append({"text": label["text"], "topics": topics, "distance": float(np.hypot(dx, dy).min())})
    return measured


def touching_contrast(data: dict) -> float:
    """The least CIEDE2000 difference between the colours of two topics that touch on the map."""
    from papertopics.report.colours import ciede2000, lab, touching_topics

    papers = pd.DataFrame(
        {"x": data["x"], "y": data["y"], "topic": [data["topics"][t]["topic"] for t in data["topic"]]}
    )
    colours = {t["topic"]: t["colour"] for t in data["topics"]}
    pairs = [(a, b) for a, near in touching_topics(papers).items() for b in near if a < b]
    assert pairs, "topics touch on a real map"
    first = lab([colours[a] for a, _ in pairs])
    second = lab([colours[b] for _, b in pairs])
    return float(ciede2000(first, second).min())


def png_size(content: bytes) -> tuple[int, int]:
    assert content[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", content[16:24])


def download(page, figure: str, export_format: str) -> bytes:
    """The file the figure's download button gives."""
    button = page.locator(f"#{figure} + .figure-export button[data-export-format='{export_format}']")
    with page.expect_download() as started:
        button.click()
    return Path(started.value.path()).read_bytes()


def test_map_labels_lie_on_their_own_papers_at_three_zooms(ijcai_years_run, browser_context):
    report = ijcai_years_run / REPORT
    data = map_data(report)
    page = open_map(browser_context, report)
    for zoom in (1, 2, 4):
        if zoom > 1:
            zoom_in(page)
        labels = label_distances(page, data)
        assert len(labels) >= 8, (zoom, len(labels))
        far = [
            (label["text"], round(label["distance"])) for label in labels if label["distance"] > LABEL_REACH
        ]
        assert far == [], f"at zoom {zoom}, labels away from their own papers"
    page.close()


def test_legend_shows_every_topic_and_touching_topics_differ_in_colour(ijcai_years_run, browser_context):
    report = ijcai_years_run / REPORT
    data = map_data(report)
    assert touching_contrast(data) >= MIN_CONTRAST
    page = open_map(browser_context, report)
    legend = page.evaluate(
        """() => {
            const legend = document.getElementById('topic-legend'), box = legend.getBoundingClientRect();
            const items = Array.from(legend.querySelectorAll('li')).map(li => li.getBoundingClientRect());
            return {scrolls: legend.scrollHeight > legend.clientHeight + 1, count: items.length,
                    inside: items.filter(b => b.height > 0 && b.top >= box.top - 1 && b.bottom <= box.bottom + 1).length};
        }"""
    )
    assert legend == {"scrolls": False, "count": len(data["topics"]), "inside": len(data["topics"])}
    page.close()


def test_search_results_and_the_selection_show_beside_the_map(ijcai_years_run, browser_context):
    page = open_map(browser_context, ijcai_years_run / REPORT)
    page.wait_for_function("document.body.dataset.searchReady === 'true'")
    page.locator("#search-box").scroll_into_view_if_needed()
    page.fill("#search-box", "planning")
    page.wait_for_function("document.getElementById('search-box').dataset.searched === 'planning'")

    def in_view(selector: str) -> bool:
        return page.evaluate(
            "s => { const b = document.querySelector(s).getBoundingClientRect();"
            " return b.height > 0 && b.top >= 0 && b.top < innerHeight - 40; }",
            selector,
        )

    assert in_view("#search-box") and in_view("#search-results li"), "results in view while typing"
    page.fill("#search-box", "")
    area = page.locator("#document-map .nsewdrag").bounding_box()
    page.locator("#document-map").hover()
    page.locator("#document-map .modebar-btn[data-title='Box Select']").click()
    page.mouse.move(area["x"] + area["width"] * 0.3, area["y"] + area["height"] * 0.3)
    page.mouse.down()
    page.mouse.move(area["x"] + area["width"] * 0.6, area["y"] + area["height"] * 0.6, steps=5)
    page.mouse.up()
    page.wait_for_selector("#selection:not([hidden]) ol.selected li")
    assert in_view("#selection h3") and in_view("#document-map"), "the selection beside the map"
    page.close()


def test_map_trend_and_share_charts_download_as_svg_and_png_with_title_legend_and_labels(
    ijcai_years_run, browser_context
):
    report = ijcai_years_run / REPORT
    data = map_data(report)
    page = open_map(browser_context, report)
    labels = [re.sub(r"\s", "", label["text"]) for label in label_distances(page, data)]
    for figure in ("document-map", "share-series", "share-change"):
        page.locator(f"#{figure}").scroll_into_view_if_needed()
        page.wait_for_selector(f"#{figure} + .figure-export")
        width = page.evaluate(f"document.getElementById('{figure}')._fullLayout.width")
        png = download(page, figure, "png")
        assert png_size(png)[0] == 2 * width, figure
        svg = download(page, figure, "svg").decode("utf-8")
        texts = re.sub(r"\s", "", " ".join(re.findall(r">([^<>]+)<", svg)))
        heading = page.evaluate(
            f"""() => {{ const div = document.getElementById('{figure}');
                return Array.from(div.closest('section').querySelectorAll('h2, h3'))
                    .filter(h => h.compareDocumentPosition(div) & Node.DOCUMENT_POSITION_FOLLOWING).pop().textContent; }}"""
        )
        assert 'class="gtitle"' in svg and re.sub(r"\s", "", heading) in texts, figure
        assert "legendtext" in svg or figure == "share-change", figure
        if figure == "document-map":
            legend = re.findall(r'class="legendtext"[^>]*>([^<]*)<', svg)
            assert len(legend) == len(data["topics"])
            assert all(label in texts for label in labels), "the map's labels are in its SVG"
    page.close()


def test_no_control_links_to_a_cloud_and_the_page_cannot_send_requests(ijcai_years_run, browser_context):
    page = open_map(browser_context, ijcai_years_run / REPORT)
    page.evaluate("""async () => {
        for (const chart of document.querySelectorAll('div.figure')) {
            chart.scrollIntoView();
            await new Promise(resolve => setTimeout(resolve, 50));
        }
    }""")
    page.wait_for_function("document.body.dataset.drawn === 'true'")
    controls = page.evaluate(
        """() => Array.from(document.querySelectorAll('a, button, [data-title], [title], [href]')).map(e =>
            [e.getAttribute('href'), e.getAttribute('title'), e.getAttribute('data-title'), e.getAttribute('aria-label'),
             e.tagName === 'BUTTON' ? e.textContent : null].filter(Boolean).join(' | '))"""
    )
    assert [c for c in controls if CLOUD.search(c)] == []
    tools = page.eval_on_selector_all(".modebar-btn", "buttons => buttons.map(b => b.dataset.title)")
    assert "Zoom in" in tools, "the tool bars are there to check"
    assert [tool for tool in tools if re.search(r"share|send|upload|studio", tool, re.IGNORECASE)] == []
    policy = page.get_attribute("meta[http-equiv='Content-Security-Policy']", "content")
    assert "connect-src 'none'" in policy and "default-src 'none'" in policy
    page.evaluate("""() => {
        fetch('https://example.org/fetch').catch(() => {});
        const xhr = new XMLHttpRequest();
        try { xhr.open('GET', 'https://example.org/xhr'); xhr.send(); } catch (error) {}
        new Image().src = 'https://example.org/image.png';
        navigator.sendBeacon('https://example.org/beacon', 'x');
    }""")
    page.wait_for_function("window.refused.length >= 4")
    # Each refused by the policy itself (the browser context is offline too: that alone would not tell).
    assert sorted(page.evaluate("window.refused")) == [
        ["connect-src", "https://example.org/beacon"],
        ["connect-src", "https://example.org/fetch"],
        ["connect-src", "https://example.org/xhr"],
        ["img-src", "https://example.org/image.png"],
    ]
    assert [url for url in page.answered if not url.startswith(("file:", "data:", "blob:"))] == []
    page.close()
