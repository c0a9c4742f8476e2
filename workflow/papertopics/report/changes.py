"""What changed: topic shares in the two compared dumps (or years), new and faded topics,
shares over time, and what changed since the previous run.
"""

from __future__ import annotations

import html

import plotly.graph_objects as go

from papertopics.figures.text import plotly_text
from papertopics.report.document_map import topic_colour
from papertopics.report.embedding import figure_block, notice
from papertopics.report.topic_table import sortable_table, table_cell

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
        shares = [100 * r[f"{side}_share"] for r in rows]
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
                    "array": [100 * r[f"{side}_share_high"] - s for r, s in zip(rows, shares, strict=True)],
                    "arrayminus": [
                        s - 100 * r[f"{side}_share_low"] for r, s in zip(rows, shares, strict=True)
                    ],
                    "color": colour,
                    "thickness": 1.2,
                    "width": 3,
                },
                customdata=[[r[f"{side}_papers"], r[f"{side}_period_papers"]] for r in rows],
                hovertemplate=f"{period}: %{{x:.1f}}%% (%{{customdata[0]}} of %{{customdata[1]}} papers)<extra></extra>",
            )
        )
    figure.update_layout(
        height=90 + _ROW_PX * len(rows),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        xaxis={"title": "% of the papers", "rangemode": "tozero", "gridcolor": "#eee"},
        yaxis={"automargin": True, "tickfont": {"size": 11}},
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"},
        plot_bgcolor="white",
        hovermode="y unified",
        scattermode="group",  # the two dumps' markers side by side on each topic's row, not on top of each other
        scattergap=0.4,
    )
    return figure


def share_series_chart(changes: dict, dump_labels: dict[str, str]) -> go.Figure:
    """Each topic's share over the periods with intervals; the topics that moved most are drawn,
    the others are listed in the legend to switch on.
    """
    periods = [plotly_text(_period_label(p, changes["by"], dump_labels)) for p in changes["periods"]]
    movement = {r["topic"]: abs(r["change_pp"]) for r in changes["comparison"]}
    shown = set(sorted(movement, key=lambda t: (-movement[t], t))[:_SERIES_SHOWN])
    figure = go.Figure()
    for topic in changes["series"]:
        shares = [100 * s for s in topic["share"]]
        figure.add_trace(
            go.Scatter(
                x=periods,
                y=shares,
                mode="lines+markers",
                name=plotly_text(f"{topic['topic']}: {topic['label']}"),
                visible=True if topic["topic"] in shown else "legendonly",
                line={"color": topic_colour(topic["topic"])},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [100 * h - s for h, s in zip(topic["share_high"], shares, strict=True)],
                    "arrayminus": [s - 100 * low for low, s in zip(topic["share_low"], shares, strict=True)],
                    "thickness": 1,
                    "width": 2,
                },
                hovertemplate="%{x}: %{y:.1f}%<extra>%{fullData.name}</extra>",
            )
        )
    figure.update_layout(
        height=480,
        margin={"l": 10, "r": 10, "t": 10, "b": 40},
        yaxis={"title": "% of the papers", "rangemode": "tozero", "gridcolor": "#eee"},
        xaxis={"type": "category"},
        legend={"font": {"size": 10}},
        plot_bgcolor="white",
    )
    return figure


def _share_cell_text(share: float, low: float, high: float) -> str:
    return f"{100 * share:.1f}% ({100 * low:.1f}–{100 * high:.1f})"


def _change_cell_text(change_pp: float, low_pp: float, high_pp: float) -> str:
    return f"{change_pp:+.1f} ({low_pp:+.1f} to {high_pp:+.1f})"


def _comparison_table(changes: dict, before: str, after: str) -> str:
    header = [
        "Topic",
        "Label",
        f"Share in {before}",
        f"Share in {after}",
        "Change (pp)",
        "q-value",
        "Significant",
    ]
    rows = [
        (
            r["topic"],
            [
                table_cell(r["topic"], r["topic"]),
                table_cell(r["label"]),
                table_cell(
                    _share_cell_text(r["baseline_share"], r["baseline_share_low"], r["baseline_share_high"]),
                    r["baseline_share"],
                ),
                table_cell(
                    _share_cell_text(r["target_share"], r["target_share_low"], r["target_share_high"]),
                    r["target_share"],
                ),
                table_cell(
                    _change_cell_text(r["change_pp"], r["change_low_pp"], r["change_high_pp"]), r["change_pp"]
                ),
                table_cell(f"{r['q_value']:.3g}", r["q_value"]),
                table_cell(_SIGNIFICANT if r["significant"] else ""),
            ],
        )
        for r in changes["comparison"]
    ]
    return sortable_table("change-table", header, {0, 2, 3, 4, 5}, rows)


def _sentence(text: str) -> str:
    """A plain paragraph for a normal state (no new topic, a first run): notices are for what is missing."""
    return f"<p>{html.escape(text)}</p>"


def _topic_list(list_id: str, topics: list[dict], period: str, empty: str) -> str:
    if not topics:
        return _sentence(empty)
    items = []
    for t in topics:
        examples = "".join(f"<li>{html.escape(e['name'])}</li>" for e in t["examples"])
        items.append(
            f"<li><strong>{html.escape(str(t['topic']))}: {html.escape(t['label'])}</strong> "
            f"({t['target_papers']} papers in {html.escape(period)}, {t['baseline_papers']} before)"
            f'<ul class="examples">{examples}</ul></li>'
        )
    return f'<ul class="topic-list" id="{html.escape(list_id)}">{"".join(items)}</ul>'


def _since_previous_run(lineage: dict) -> str:
    if lineage.get("first_run", True):
        return "<h3>Since the previous run</h3>" + _sentence(
            "This is the first run (or topic history was reset): topics are numbered by size. "
            "From the next run on, a topic that persists keeps its id and label."
        )

    def named(topic: dict) -> str:
        return f"{topic['id']}: {topic['label']}"

    def items(entries: list[str]) -> str:
        return "".join(f"<li>{html.escape(e)}</li>" for e in entries)

    summary = (
        f"Of the previous run's {lineage['previous_topics']} topics, {len(lineage['kept'])} kept their id; "
        f"{len(lineage['merged'])} merges, {len(lineage['split'])} splits, {len(lineage['gone'])} gone and "
        f"{len(lineage['new'])} new topics. Papers: {lineage['papers_in_both_runs']} in both runs, "
        f"{lineage['papers_new']} new, {lineage['papers_removed']} removed."
    )
    parts = [("New", [named(t) for t in lineage["new"]]), ("Gone", [named(t) for t in lineage["gone"]])]
    parts.append(
        (
            "Merged",
            [f"{', '.join(named(t) for t in m['from'])} → {named(m['into'])}" for m in lineage["merged"]],
        )
    )
    parts.append(
        (
            "Split",
            [f"{named(s['from'])} → {', '.join(named(t) for t in s['into'])}" for s in lineage["split"]],
        )
    )
    parts.append(("Relabelled", [f"{r['id']}: {r['from']} → {r['to']}" for r in lineage["relabelled"]]))
    lists = "".join(
        f"<h4>{html.escape(title)} ({len(entries)})</h4><ul>{items(entries)}</ul>"
        for title, entries in parts
        if entries
    )
    return f'<h3>Since the previous run</h3><p id="since-previous-run">{html.escape(summary)}</p>{lists}'


def changes_section(changes: dict | None, dump_labels: dict[str, str]) -> str:
    """The "What changed" section, or a sentence saying why there is nothing to compare."""
    if changes is None:
        return ""
    since = _since_previous_run(changes["since_previous_run"])
    if not changes["comparable"]:
        body = notice(
            f"Nothing to compare yet: {changes['reason']}. Add a dump to data/raw/ and rerun to see "
            "which topics grew, shrank, appeared or faded."
        )
        return f'<section id="changes"><h2>What changed</h2>{body}{since}</section>'
    by = changes["by"]
    before = _period_label(changes["baseline"], by, dump_labels)
    after = _period_label(changes["target"], by, dump_labels)
    rows = changes["comparison"]
    significant = sum(r["significant"] for r in rows)
    level = round(100 * changes["confidence"])
    intro = (
        f"Comparing {before} ({rows[0]['baseline_period_papers'] if rows else 0} papers) with {after} "
        f"({rows[0]['target_period_papers'] if rows else 0} papers): each topic's share of the papers, with "
        f"{level}% intervals, largest rise first. {_SIGNIFICANT} marks a significant change (Fisher's exact "
        f"test, Benjamini–Hochberg false discovery rate {changes['false_discovery_rate']:g} across the "
        f"{len(rows)} topics): {significant} of {len(rows)}."
    )
    if changes["papers_without_period"]:
        intro += f" {changes['papers_without_period']} papers without a {by} are left out."
    thresholds = changes["thresholds"]
    series = ""
    if len(changes["periods"]) >= 3:
        series = (
            f'<h3>Share over time</h3><p class="hint">The {_SERIES_SHOWN} topics whose share changed most '
            "between the compared periods; click a legend entry to show another.</p>"
            + figure_block("share-series", share_series_chart(changes, dump_labels))
        )
    return (
        '<section id="changes"><h2>What changed</h2>'
        f"<p>{html.escape(intro)}</p>"
        + figure_block("share-change", share_change_chart(changes, dump_labels))
        + _comparison_table(changes, before, after)
        + series
        + f'<h3>New topics</h3><p class="hint">At least {thresholds["new_topic_share"]:.0%} of the topic\'s papers '
        f"are from {html.escape(after)}, both weighted to the same size, and at least {thresholds['min_papers']} of them.</p>"
        + _topic_list("new-topics", changes["new_topics"], after, f"No topic is new in {after}.")
        + f'<h3>Faded topics</h3><p class="hint">At most {thresholds["faded_topic_share"]:.0%} of the topic\'s '
        f"papers are from {html.escape(after)}, weighted the same way, and at least {thresholds['min_papers']} "
        f"from {html.escape(before)}.</p>"
        + _topic_list("faded-topics", changes["faded_topics"], after, f"No topic faded in {after}.")
        + since
        + "</section>"
    )
