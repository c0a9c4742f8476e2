"""What changed: trends over every dump (or year), the terms that burst, shares over time, and
the newest period against the one before with its new and faded topics.

Shares and tests are of each topic's clustered papers (``changes["tested_on"]``); the outliers
assigned to a topic for display are counted beside them, in the hovers and tables.
"""

from __future__ import annotations

import plotly.graph_objects as go
from markupsafe import Markup

from papertopics.figures.text import plotly_text
from papertopics.report.bursts_subsection import bursts_block
from papertopics.report.colours import colour_of
from papertopics.report.html_blocks import figure_block
from papertopics.report.largest_moves import largest_step_moves, within_chance_note
from papertopics.report.render import render
from papertopics.report.sparkline import counts_phrase
from papertopics.report.stability_marks import held_mark, holds_note
from papertopics.report.themes_subsection import themes_block
from papertopics.report.topic_table import sortable_table, table_cell
from papertopics.report.trends_subsection import share_change_text, topics, trends_block

_ROW_PX = 22
_SERIES_SHOWN = 8  # topics drawn at first in the share-over-time chart; the others are a click away
_SIGNIFICANT = "●"


def _period_label(name: str, by: str, dump_labels: dict[str, str]) -> str:
    return dump_labels.get(name, name) if by == "dump" else name


def share_change_chart(changes: dict, dump_labels: dict[str, str]) -> go.Figure:
    """Each topic's share in the baseline and the target with intervals, largest rise on top;
    the labels of significant changes are marked.
    """
    rows = list(reversed(changes["comparison"]))  # plotly draws the first category at the bottom
    names = [
        plotly_text(f"{_SIGNIFICANT + ' ' if r['significant'] else ''}{r['topic']}: {r['label']}")
        for r in rows
    ]
    figure = go.Figure()
    for side, colour in (("baseline", "#9a9a9a"), ("target", "#1f5fa8")):
        shares = [100 * r[f"{side}_clustered_share"] for r in rows]
        period = plotly_text(_period_label(changes[side], changes["by"], dump_labels))
        figure.add_trace(
            go.Scatter(
                x=shares,
                y=names,
                mode="markers",
                name=period,
                marker={"color": colour, "size": 8},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [
                        100 * r[f"{side}_clustered_share_high"] - s for r, s in zip(rows, shares, strict=True)
                    ],
                    "arrayminus": [
                        s - 100 * r[f"{side}_clustered_share_low"] for r, s in zip(rows, shares, strict=True)
                    ],
                    "color": colour,
                    "thickness": 1.2,
                    "width": 3,
                },
                customdata=[
                    [r[f"{side}_clustered_papers"], r[f"{side}_period_papers"], r[f"{side}_assigned_papers"]]
                    for r in rows
                ],
                hovertemplate=f"{period}: %{{x:.1f}}%% (%{{customdata[0]}} clustered of %{{customdata[1]}} "
                "papers; %{customdata[2]} outliers assigned besides)<extra></extra>",
            )
        )
    figure.update_layout(
        height=90 + _ROW_PX * len(rows),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        xaxis={"title": "% of the papers (clustered)", "rangemode": "tozero", "gridcolor": "#eee"},
        yaxis={"automargin": True, "tickfont": {"size": 11}},
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"},
        plot_bgcolor="white",
        hovermode="y unified",
        scattermode="group",  # the two dumps' markers side by side on each topic's row, not on top of each other
        scattergap=0.4,
    )
    return figure


def share_series_chart(changes: dict, dump_labels: dict[str, str], colours: dict[int, str]) -> go.Figure:
    """Each topic's share over the periods with intervals and counts; the topics with the
    strongest trend evidence (else those that moved most between the compared two) are drawn,
    the others are listed in the legend to switch on.
    """
    periods = [plotly_text(_period_label(p, changes["by"], dump_labels)) for p in changes["periods"]]
    if changes["trends"]["available"]:
        ranked = [r["topic"] for r in changes["trends"]["topics"]]
    else:
        ranked = [
            r["topic"] for r in sorted(changes.get("comparison", []), key=lambda r: -abs(r["change_pp"]))
        ]
    shown = set(ranked[:_SERIES_SHOWN])
    figure = go.Figure()
    for topic in changes["series"]:
        shares = [100 * s for s in topic["clustered_share"]]
        figure.add_trace(
            go.Scatter(
                x=periods,
                y=shares,
                mode="lines+markers",
                name=plotly_text(f"{topic['topic']}: {topic['label']}"),
                visible=True if topic["topic"] in shown else "legendonly",
                line={"color": colour_of(colours, topic["topic"])},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [
                        100 * h - s for h, s in zip(topic["clustered_share_high"], shares, strict=True)
                    ],
                    "arrayminus": [
                        s - 100 * low for low, s in zip(topic["clustered_share_low"], shares, strict=True)
                    ],
                    "thickness": 1,
                    "width": 2,
                },
                customdata=list(
                    zip(topic["clustered_papers"], changes["period_papers"], topic["papers"], strict=True)
                ),
                hovertemplate="%{x}: %{y:.1f}% (%{customdata[0]} clustered of %{customdata[1]} papers; "
                "%{customdata[2]} with the outliers assigned to it)<extra>%{fullData.name}</extra>",
            )
        )
    figure.update_layout(
        height=480,
        margin={"l": 10, "r": 10, "t": 10, "b": 40},
        yaxis={"title": "% of the papers (clustered)", "rangemode": "tozero", "gridcolor": "#eee"},
        xaxis={"type": "category"},
        legend={"font": {"size": 10}},
        plot_bgcolor="white",
    )
    return figure


def _share_cell_text(row: dict, side: str) -> str:
    """A topic's clustered share in one period with its interval and counts:
    "2.5% (1.6–3.9), 15 of 600 (+4 assigned)".
    """
    share, low, high = (row[f"{side}_clustered_share{end}"] for end in ("", "_low", "_high"))
    text = f"{100 * share:.1f}% ({100 * low:.1f}–{100 * high:.1f}), {row[f'{side}_clustered_papers']} of "
    text += str(row[f"{side}_period_papers"])
    return text + (f" (+{row[f'{side}_assigned_papers']} assigned)" if row[f"{side}_assigned_papers"] else "")


def _change_cell_text(change_pp: float, low_pp: float, high_pp: float) -> str:
    return f"{change_pp:+.1f} ({low_pp:+.1f} to {high_pp:+.1f})"


def _comparison_table(changes: dict, before: str, after: str) -> Markup:
    header = [
        "Topic",
        "Label",
        f"Clustered share in {before}",
        f"Clustered share in {after}",
        "Change (pp)",
        "q-value",
        "Evidence",
    ]
    rows = [
        (
            r["topic"],
            [
                table_cell(r["topic"], r["topic"]),
                table_cell(r["label"]),
                table_cell(_share_cell_text(r, "baseline"), r["baseline_clustered_share"]),
                table_cell(_share_cell_text(r, "target"), r["target_clustered_share"]),
                table_cell(
                    _change_cell_text(r["change_pp"], r["change_low_pp"], r["change_high_pp"]), r["change_pp"]
                ),
                table_cell(f"{r['q_value']:.3g}", r["q_value"])
                if r["q_value"] is not None
                else table_cell("", 2),
                table_cell(_evidence_cell_text(r)),
            ],
        )
        for r in changes["comparison"]
    ]
    return sortable_table("change-table", header, {0, 2, 3, 4, 5}, rows)


def _evidence_cell_text(row: dict) -> str:
    """A topic's grade in the comparison table, and on a significant change how often it held."""
    if not row["significant"]:
        return row["grade"]
    text = f"{_SIGNIFICANT} significant"
    return f"{text} ({holds_note(row)})" if row.get("robustness") else text


def _listed_topic(t: dict) -> dict:
    """A new or faded topic as ``templates/sections/pairwise.html`` lists it, with its examples."""
    counts = counts_phrase(
        [t["baseline_clustered_papers"], t["target_clustered_papers"]],
        [t["baseline_papers"], t["target_papers"]],
    )
    return {
        "topic": t["topic"],
        "label": t["label"],
        "change": share_change_text(t["baseline_clustered_share"], t["target_clustered_share"]),
        "counts": counts,
        "examples": [e["name"] for e in t["examples"]],
    }


def _moved_text(moved: dict, label, previous_run: int) -> str:
    """One share that moved: "7: graph neural networks in 2017: 3.3% now (2.1–4.6, 21 of 640); 1.6% in run 2 (9 of 560)"."""
    now = (
        f"{100 * moved['share']:.1f}% now ({100 * moved['share_low']:.1f}–{100 * moved['share_high']:.1f}, "
        f"{moved['papers']} of {moved['period_papers']})"
    )
    then = f"{100 * moved['share_before']:.1f}% in run {previous_run} ({moved['papers_before']} of {moved['period_papers_before']})"
    return f"{moved['topic']}: {moved['label']} in {label(moved['period'])}: {now}; {then}"


def _recomputed_note(changes: dict, label) -> dict | None:
    """Why shares published by the previous run may differ, and where they moved beyond this
    run's interval (``moved``, none where the two runs were not compared).
    """
    recomputed = changes.get("recomputed") or {}
    if recomputed.get("previous_run") is None:
        return None
    text = (
        "Every share here is computed with this run's topics, refitted on all the papers: an earlier "
        f"{changes['by']}'s share can differ from what run {recomputed['previous_run']} reported."
    )
    moved = recomputed.get("moved", [])
    if not recomputed.get("compared", False):
        return {"text": text, "moved": []}
    if not moved:
        text += " No share of a topic that kept its id moved beyond its interval."
        return {"text": text, "moved": []}
    text += f" {len(moved)} shares of topics that kept their id moved beyond their interval."
    return {"text": text, "moved": [_moved_text(m, label, recomputed["previous_run"]) for m in moved]}


def _periods_sentence(changes: dict, label) -> str:
    listed = ", ".join(
        f"{label(name)} ({papers} papers)"
        for name, papers in zip(changes["periods"], changes["period_papers"], strict=True)
    )
    text = f"{len(changes['periods'])} {changes['by']}s: {listed}."
    if changes["small_periods"]:
        text += (
            f" {', '.join(label(p) for p in changes['small_periods'])} "
            f"{'has' if len(changes['small_periods']) == 1 else 'have'} fewer than "
            f"{changes['min_period_papers']} papers: drawn, but left out of the tests."
        )
    if changes["papers_without_period"]:
        text += f" {changes['papers_without_period']} papers without a {changes['by']} are left out."
    if changes.get("year_note"):
        text += f" {changes['year_note']}"
    return text


def _pairwise_item(row: dict) -> dict:
    """One topic whose share changed between the two periods, in plain words; its q-value and
    interval on hovering its grade.
    """
    counts = counts_phrase(
        [row["baseline_clustered_papers"], row["target_clustered_papers"]],
        [row["baseline_papers"], row["target_papers"]],
    )
    hover = (
        f"Change {_change_cell_text(row['change_pp'], row['change_low_pp'], row['change_high_pp'])} points, "
        f"q = {row['q_value']:.2g} (Fisher's exact test on clustered papers)"
    )
    return {
        "topic": int(row["topic"]),
        "label": row["label"],
        "change": share_change_text(row["baseline_clustered_share"], row["target_clustered_share"]),
        "counts": counts,
        "grade": row["grade"],
        "hover": hover,
        "mark": f"{_SIGNIFICANT} significant" if row["significant"] else row["grade"],
        # How often the change held in the resamples (the robustness stage's), red where fragile.
        "held": held_mark(row),
    }


def _pairwise(changes: dict, dump_labels: dict[str, str]) -> dict:
    """The newest period against the one before (or the chosen two): chart, table, new and faded."""
    by = changes["by"]
    if not changes["comparable"]:
        return {"comparable": False, "by": by, "reason": changes["reason"]}
    before = _period_label(changes["baseline"], by, dump_labels)
    after = _period_label(changes["target"], by, dump_labels)
    rows = changes["comparison"]
    significant = sum(r["significant"] for r in rows)
    suggestive = sum(r["grade"] == "suggestive" for r in rows)
    level = round(100 * changes["confidence"])
    intro = (
        f"{after} ({rows[0]['target_period_papers'] if rows else 0} papers) against {before} "
        f"({rows[0]['baseline_period_papers'] if rows else 0} papers), counting each topic's clustered papers. "
    )
    if changes["tested"]:
        intro += (
            f"{topics(significant)} of {len(rows)} changed share beyond chance ({_SIGNIFICANT}), "
            f"{suggestive} more in a way worth a look that may be noise (suggestive)."
        )
        footnote = (
            "* How this is tested: each topic's clustered papers in the two "
            f"{by}s with Fisher's exact test, the Benjamini–Hochberg correction across the {len(rows)} "
            f"topics at false discovery rate {changes['false_discovery_rate']:g} (q below "
            f"{changes['suggestive_q']:g}: suggestive); the chart's bars are {level}% intervals. One step "
            "tests less than the whole span: a steady trend can be significant above while no single step is."
        )
    else:
        intro += (
            f"Not tested: a {by} needs {changes['min_period_papers']} papers or more to take part in the "
            "tests, so these shares are shown with their intervals only."
        )
        footnote = ""
    thresholds = changes["thresholds"]
    # Where no change is significant, the largest moves, said as within chance.
    largest = largest_step_moves(changes)
    return {
        "comparable": True,
        "by": by,
        "before": before,
        "after": after,
        "intro": intro,
        "moved": [_pairwise_item(r) for r in rows if r["grade"] in ("significant", "suggestive")],
        "largest": largest,
        "largest_note": within_chance_note(largest) if largest else None,
        "figure": figure_block("share-change", share_change_chart(changes, dump_labels)),
        "footnote": footnote,
        "table": _comparison_table(changes, before, after),
        "new_topic_share": f"{thresholds['new_topic_share']:.0%}",
        "faded_topic_share": f"{thresholds['faded_topic_share']:.0%}",
        "min_papers": thresholds["min_papers"],
        "new_topics": [_listed_topic(t) for t in changes["new_topics"]],
        "faded_topics": [_listed_topic(t) for t in changes["faded_topics"]],
        "none_new": f"No topic is new in {after}.",
        "none_faded": f"No topic faded in {after}.",
    }


def changes_section(changes: dict | None, dump_labels: dict[str, str], colours: dict[int, str]) -> Markup:
    """The "What changed" section: trends over every period, bursting terms, shares over time, and
    the newest period against the one before; or why there is nothing to compare yet.
    """
    if changes is None:
        return Markup()

    def label(period: str) -> str:
        return _period_label(period, changes["by"], dump_labels)

    if changes.get("ordered") is False:
        return render("sections/what_changed.html", nothing_to_compare=f"No trends: {changes['reason']}")
    if len(changes["periods"]) < 2:
        return render(
            "sections/what_changed.html",
            nothing_to_compare=f"Nothing to compare yet: {changes['reason']}. Add a dump to data/raw/ and "
            "rerun to see which topics rose, fell, appeared or faded.",
        )
    series = (
        figure_block("share-series", share_series_chart(changes, dump_labels, colours))
        if len(changes["periods"]) >= 3
        else None
    )
    return render(
        "sections/what_changed.html",
        nothing_to_compare=None,
        periods=_periods_sentence(changes, label),
        recomputed=_recomputed_note(changes, label),
        trends=trends_block(changes, label, colours),
        themes=themes_block(changes, label, colours),
        series=series,
        bursts=bursts_block(changes, label),
        pairwise=_pairwise(changes, dump_labels),
    )
