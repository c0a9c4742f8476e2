"""Trends across every period: the topics rising and falling over the whole span, graded in
words, the largest movements with their intervals, and the full trend table.
"""

from __future__ import annotations

import html

from papertopics.report.colours import colour_of
from papertopics.report.sparkline import counts_text, share_sparkline
from papertopics.report.topic_table import sortable_table, table_cell

_LARGEST_SHOWN = 5


def per_unit(unit: str) -> str:
    """How a slope is read: points a year, or per dump."""
    return "a year" if unit == "year" else f"per {unit}"


def slope_text(row: dict, unit: str) -> str:
    """The slope with its interval, as in: +2.2 points a year (+1.2 to +3.2)."""
    return (
        f"{row['slope_pp']:+.2f} points {per_unit(unit)} "
        f"({row['slope_low_pp']:+.2f} to {row['slope_high_pp']:+.2f})"
    )


def _topic_link(row: dict) -> str:
    return f'<a href="#topic-{int(row["topic"])}">{int(row["topic"])}: {html.escape(row["label"])}</a>'


def _item(row: dict, trends: dict, period_label, colours: dict[int, str]) -> str:
    periods = [period_label(p) for p in trends["periods"]]
    counts = counts_text(row["papers"], trends["period_papers"])
    line = " → ".join(counts)
    return (
        f'<li data-topic="{int(row["topic"])}">'
        f"{share_sparkline(row['share'], periods, counts, colour_of(colours, int(row['topic'])))} "
        f'{_topic_link(row)} <span class="grade grade-{row["grade"].replace(" ", "-")}">{html.escape(row["grade"])}</span> '
        f'<span class="slope">{html.escape(slope_text(row, trends["unit"]))}, q = {row["q_value"]:.2g}</span>'
        f'<br><span class="counts">{html.escape(line)} papers</span></li>'
    )


def _listed(list_id: str, rows: list[dict], trends: dict, period_label, colours, empty: str) -> str:
    if not rows:
        return f'<p id="{list_id}" class="hint">{html.escape(empty)}</p>'
    return f'<ol class="trend-list" id="{list_id}">{"".join(_item(r, trends, period_label, colours) for r in rows)}</ol>'


def _summary(trends: dict, changes: dict, period_label) -> str:
    rows = trends["topics"]

    def count(direction: str, grade: str) -> int:
        return sum(r["direction"] == direction and r["grade"] == grade for r in rows)

    first, last = period_label(trends["periods"][0]), period_label(trends["periods"][-1])
    text = (
        f"Across {first} to {last} ({len(trends['periods'])} {changes['by']}s, "
        f"{sum(trends['period_papers'])} papers), each topic's share is tested for a steady rise or fall "
        f"(Cochran–Armitage trend test, Benjamini–Hochberg false discovery rate "
        f"{changes['false_discovery_rate']:g} across the {len(rows)} topics): "
        f"{count('rising', 'significant')} rising and {count('falling', 'significant')} falling significantly; "
        f"{count('rising', 'suggestive')} more rising and {count('falling', 'suggestive')} falling suggestively "
        f"(q below {changes['suggestive_q']:g}: leads worth a look, about one in four may be noise)."
    )
    if not any(r["grade"] == "significant" for r in rows):
        text += (
            " No trend is significant, which says the tests cannot tell these movements from chance "
            "with this many papers, not that nothing moved: the largest movements are listed below "
            "with their intervals."
        )
    return f'<p id="trend-summary">{html.escape(text)}</p>'


def _trend_table(trends: dict, period_label, recomputed: dict) -> str:
    """Every topic's trend, with its papers and share per period; where the previous run
    published a share this run's interval leaves out, that share beside it.
    """
    periods = [period_label(p) for p in trends["periods"]]
    earlier = {(m["topic"], m["period"]): m["share_before"] for m in recomputed.get("moved", [])}
    header = ["Topic", "Label", "Trend", f"Slope (points {per_unit(trends['unit'])})", "q-value"]
    header += [f"Papers in {p}" for p in periods]
    rows = []
    for r in trends["topics"]:
        counts = counts_text(r["papers"], trends["period_papers"])
        cells = [
            table_cell(r["topic"], r["topic"]),
            table_cell(r["label"]),
            table_cell(f"{r['direction']}, {r['grade']}" if r["direction"] != "flat" else r["grade"]),
            table_cell(
                f"{r['slope_pp']:+.2f} ({r['slope_low_pp']:+.2f} to {r['slope_high_pp']:+.2f})", r["slope_pp"]
            ),
            table_cell(f"{r['q_value']:.3g}", r["q_value"]),
        ]
        for period, text, share in zip(trends["periods"], counts, r["share"], strict=True):
            before = earlier.get((r["topic"], period))
            was = f"; run {recomputed['previous_run']}: {100 * before:.1f}%" if before is not None else ""
            cells.append(table_cell(f"{text} ({100 * share:.1f}%{was})", share))
        rows.append((r["topic"], cells))
    numeric = {0, 3, 4} | {5 + i for i in range(len(periods))}
    return sortable_table("trend-table", header, numeric, rows)


def trends_block(changes: dict, period_label, colours: dict[int, str]) -> str:
    """The trends part of "What changed": the summary, rising and falling topics with their counts
    and share lines, the largest movements, and the table; or why trends cannot be tested.
    """
    trends = changes["trends"]
    by = changes["by"]
    heading = f"<h3>Trends across every {html.escape(by)}</h3>"
    if not trends["available"]:
        return heading + f'<p id="trend-summary">No trend test: {html.escape(trends["reason"])}.</p>'
    rows = trends["topics"]
    moving = [r for r in rows if r["grade"] != "no evidence"]
    largest = sorted(rows, key=lambda r: (-abs(r["slope_pp"]), r["topic"]))[:_LARGEST_SHOWN]
    return (
        heading
        + _summary(trends, changes, period_label)
        + "<h4>Rising</h4>"
        + _listed(
            "rising-topics",
            [r for r in moving if r["direction"] == "rising"],
            trends,
            period_label,
            colours,
            "No topic rises beyond chance.",
        )
        + "<h4>Falling</h4>"
        + _listed(
            "falling-topics",
            [r for r in moving if r["direction"] == "falling"],
            trends,
            period_label,
            colours,
            "No topic falls beyond chance.",
        )
        + "<h4>Largest movements, whatever the evidence</h4>"
        + _listed("largest-trends", largest, trends, period_label, colours, "")
        + "<details><summary>Every topic's trend</summary>"
        + _trend_table(trends, period_label, changes.get("recomputed") or {})
        + "</details>"
    )
