"""The Reception section's forest plots: one per measure present (acceptance, mean rating,
citations for their year), one row per tested topic sorted by its value, its interval and the
rest's value on its row, significant and suggestive marked; drawn by headless Chromium with no
console error, and the printed report (the brief) within its two pages.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import offline_chromium
from papertopics.figures.forest import forest_plot, forest_rows
from papertopics.reception.table import ReceptionSettings, TopicPapers, reception_table
from papertopics.reception.values import ReceptionValues
from papertopics.report.reception_section import forest_plots, reception_section

SETTINGS = ReceptionSettings(("accept", "oral", "poster", "spotlight", "notable"), 10, 0.95, 0.05, 0.25)


def _rows(codes: np.ndarray, labels: tuple[str, ...], seed: int = 7) -> list[dict]:
    """Every topic's reception: topic 0 accepted at 10% against 60% and rated lower; topic
    ``len(labels) - 1`` has 5 papers, too few to test.
    """
    rng = np.random.default_rng(seed)
    accepted = rng.random(len(codes)) < np.where(codes == 0, 0.1, 0.6)
    values = ReceptionValues(
        np.where(accepted, "Accept", "Reject").astype(object),
        rng.normal(np.where(codes == 0, 4.3, 5.0), 1, len(codes)),
        np.full(len(codes), 0.5),
        rng.poisson(5, len(codes)).astype(float),
        (),
    )
    years = np.where(rng.random(len(codes)) < 0.5, "2024", "2025").astype(object)
    papers = TopicPapers(codes, np.zeros(len(codes), int), years, tuple(range(len(labels))), labels)
    table = reception_table(papers, values, SETTINGS)
    return [
        {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
        for r in table.to_dict("records")
    ]


def _codes(sizes: list[int]) -> np.ndarray:
    return np.repeat(np.arange(len(sizes)), sizes)


LABELS = ("<b>attacks</b>", *(f"topic {t}" for t in range(1, 8)), "tiny")


def test_one_row_per_tested_topic_sorted_with_interval_rest_and_marks():
    rows = _rows(_codes([80] * 8 + [5]), LABELS)
    acceptance = forest_rows(rows, "acceptance")
    assert [row["topic"] for row in acceptance] == sorted(
        range(8),
        key=lambda t: -next(r["value"] for r in rows if r["topic"] == t and r["measure"] == "acceptance"),
    )
    assert 8 not in {row["topic"] for row in acceptance}  # five papers: shown in the table, not tested
    figure = forest_plot(rows, "acceptance")
    rest, topic = figure.data
    assert len(topic.y) == 8 and list(topic.y) == list(rest.y)
    assert list(topic.x) == sorted(topic.x)  # the highest value on top (plotly's last category)
    attacks = list(topic.y).index("● 0: &lt;b&gt;attacks&lt;/b&gt;")
    lowest = acceptance[-1]
    assert lowest["topic"] == 0 and lowest["evidence"] == "significant"
    assert topic.x[attacks] == pytest.approx(100 * lowest["value"]) and rest.x[attacks] == pytest.approx(
        100 * lowest["rest"]
    )
    assert topic.error_x.arrayminus[attacks] == pytest.approx(100 * (lowest["value"] - lowest["low"]))
    assert re.search(
        r"of 80 papers; elsewhere \d+%<br>q = [0-9.e-]+: significant, lower$", topic.hovertext[attacks]
    )
    assert topic.hovertext[attacks].startswith("0: &lt;b&gt;attacks&lt;/b&gt;<br>")
    assert [plot["id"] for plot in forest_plots(rows)] == [
        "reception-forest-acceptance",
        "reception-forest-rating",
        "reception-forest-citations",
    ]


def test_a_copy_to_share_draws_citations_only():
    rows = _rows(_codes([80] * 8 + [5]), LABELS)
    record = {
        "available": True,
        "papers": 645,
        "given": {"decision": 645, "ratings": 645, "citations": 645},
        "accepted": ["accept"],
        "notes": [],
        "in_report": False,
        "topics": rows,
    }
    page = str(reception_section(record))
    assert 'id="reception-forest-citations"' in page and "reception-forest-acceptance" not in page
    assert "reception-forest-rating" not in page


@pytest.mark.slow
@pytest.mark.browser
def test_the_forest_plots_draw_in_chromium_without_error_and_the_print_keeps_its_pages(tmp_path):
    from papertopics.report import build_report
    from synthetic_report import report_inputs, synthetic_stage_outputs

    inputs = report_inputs(synthetic_stage_outputs(400, 6, 2), with_figures=False)
    real = [t for t in inputs.topic_details if t["topic"] != -1]
    code_of = {t["topic"]: code for code, t in enumerate(real)}
    codes = np.array([code_of.get(topic, -1) for topic in inputs.papers["topic"]])
    rows = _rows(codes, tuple(t["label"] for t in real), seed=3)
    rows = [{**row, "topic": real[row["topic"]]["topic"]} for row in rows]
    inputs.reception = {
        "available": True,
        "papers": len(codes),
        "given": {"decision": len(codes), "ratings": len(codes), "citations": len(codes)},
        "accepted": ["accept"],
        "fields": {"decision": "decision", "ratings": "ratings", "citations": "citations"},
        "notes": [],
        "in_report": True,
        "topics": rows,
    }
    report = tmp_path / "index.html"
    report.write_text(build_report(inputs, title="auto", hover_chars=100), encoding="utf-8")
    errors = []
    with offline_chromium(viewport={"width": 1280, "height": 900}) as context:
        page = context.new_page()
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(report.as_uri())
        page.locator("#reception-forest-acceptance").scroll_into_view_if_needed()
        page.wait_for_function(
            "() => ['acceptance', 'rating', 'citations'].every((m) => "
            "document.querySelector(`#reception-forest-${m} .main-svg`))"
        )
        for measure in ("acceptance", "rating", "citations"):
            drawn = page.evaluate(
                f"() => {{ const d = document.getElementById('reception-forest-{measure}').data[1];"
                " return {y: d.y, x: d.x}; }"
            )
            tested = forest_rows(rows, measure)
            assert len(drawn["y"]) == len(tested) >= 5
            assert drawn["x"] == sorted(drawn["x"])
            assert page.locator(f"#reception-forest-{measure} g.ytick").count() == len(tested)
        page.emulate_media(media="print")
        pdf = page.pdf(format="A4")
    assert errors == []
    assert 1 <= len(re.findall(rb"/Type\s*/Page(?![a-z])", pdf)) <= 2
