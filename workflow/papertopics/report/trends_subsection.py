"""Trends across every period, written for a reader who is not a statistician: each rising or
falling topic as "Adversarial examples: 0.5% → 4.1% of papers (2 → 31)", its counts of
clustered papers first and with the outliers assigned to it beside them; the test, q-value and
interval in a hover and a footnote; then the largest other movements, and the full trend table.
"""

from __future__ import annotations

from markupsafe import Markup

from papertopics.report.colours import colour_of
from papertopics.report.render import render
from papertopics.report.sparkline import counts_phrase, counts_text, share_sparkline
from papertopics.report.stability_marks import holds_note, shape_held
from papertopics.report.topic_table import sortable_table, table_cell
from papertopics.report.trajectories import STEADY, ranked_findings, recent_phrase, shape_phrase
from papertopics.robustness.findings import FRAGILE

_LARGEST_SHOWN = 5
TREND_FOOTNOTE_ID = "trend-test"


def per_unit(unit: str) -> str:
    """How a slope is read: points a year, or per dump."""
    return "a year" if unit == "year" else f"per {unit}"


def slope_text(row: dict, unit: str) -> str:
    """The slope with its interval, as in: +2.2 points a year (+1.2 to +3.2)."""
    return (
        f"{row['slope_pp']:+.2f} points {per_unit(unit)} "
        f"({row['slope_low_pp']:+.2f} to {row['slope_high_pp']:+.2f})"
    )


def share_change_text(first: float, last: float) -> str:
    """A move in share as a chair reads it: "0.7% → 5.0% of papers"."""
    return f"{100 * first:.1f}% → {100 * last:.1f}% of papers"


def points_text(change_pp: float, low_pp: float, high_pp: float) -> str:
    """A move's size with its interval: "+2.9 points (+0.6 to +4.9)"."""
    return f"{change_pp:+.1f} points ({low_pp:+.1f} to {high_pp:+.1f})"


def move_text(first: float, last: float, change_pp: float, low_pp: float, high_pp: float) -> str:
    """A move with its size and interval: "2.9% → 5.8% of papers, +2.9 points (+0.6 to +4.9)"."""
    return f"{share_change_text(first, last)}, {points_text(change_pp, low_pp, high_pp)}"


def _evidence_hover(row: dict, unit: str) -> str:
    """The test's figures for one topic, shown on hovering its grade."""
    return f"Trend {slope_text(row, unit)}, q = {row['q_value']:.2g} (Cochran–Armitage on clustered papers)"


def _sparkline(row: dict, trends: dict, period_label, colours: dict[int, str]) -> Markup:
    """The topic's clustered share per period as a small line, in its colour on the map."""
    return share_sparkline(
        row["clustered_share"],
        [period_label(p) for p in trends["periods"]],
        counts_text(row["clustered_papers"], trends["period_papers"]),
        colour_of(colours, int(row["topic"])),
    )


def _item(row: dict, trends: dict, period_label, colours: dict[int, str]) -> dict:
    """A rising, falling or moving topic as ``templates/sections/trends.html`` lists it."""
    return {
        "topic": int(row["topic"]),
        "label": row["label"],
        "sparkline": _sparkline(row, trends, period_label, colours),
        "change": share_change_text(row["clustered_share"][0], row["clustered_share"][-1]),
        "counts": counts_phrase(row["clustered_papers"], row["papers"]),
        "grade": row["grade"],
        "grade_class": row["grade"].replace(" ", "-"),
        "hover": _evidence_hover(row, trends["unit"]),
        "move": None,  # the move with its interval, where the list is all there is to judge
        "held": holds_note(row),
        "fragile": row.get("robustness") == FRAGILE,
    }


def _trajectory_item(row: dict, trends: dict, period_label, colours: dict[int, str], unit: str) -> dict:
    """A topic whose trajectory is a finding, as ``templates/sections/trends.html`` lists it."""
    return {
        "topic": int(row["topic"]),
        "label": row["label"],
        "shape": row["shape"],
        "sparkline": _sparkline(row, trends, period_label, colours),
        "text": shape_phrase(row, trends, period_label) + recent_phrase(row, trends, period_label, unit),
        "hover": f"Trajectory test q = {row['shape_q']:.2g}; whole-span trend {slope_text(row, trends['unit'])}",
        # How often its shape held in the resamples (not its straight-line trend).
        "held": holds_note(shape_held(row)),
        "fragile": shape_held(row).get("robustness") == FRAGILE,
    }


def assigned_outliers(trends: dict) -> int:
    """How many of the tested periods' papers are outliers shown in a topic (its nearest)."""
    return sum(sum(r["papers"]) - sum(r["clustered_papers"]) for r in trends["topics"])


def topics(count: int) -> str:
    """A count of topics in words: 1 topic, 3 topics."""
    return f"{count} topic{'' if count == 1 else 's'}"


def _summary(trends: dict, changes: dict, period_label) -> str:
    rows = trends["topics"]

    def count(direction: str, grade: str) -> int:
        return sum(r["direction"] == direction and r["grade"] == grade for r in rows)

    first, last = period_label(trends["periods"][0]), period_label(trends["periods"][-1])
    total = sum(trends["period_papers"])
    text = (
        f"From {first} to {last} ({len(trends['periods'])} {changes['by']}s, {total} papers): "
        f"{topics(count('rising', 'significant'))} rose and {count('falling', 'significant')} fell beyond "
        f"chance; {count('rising', 'suggestive')} more rose and {count('falling', 'suggestive')} fell "
        "in a way worth a look that may be noise (suggestive)."
    )
    if "shape" in (rows[0] if rows else {}):
        shapes = {s: sum(r["shape"] == s for r in rows) for s in ("peaked", "returned", "rising", "falling")}
        told = ", ".join(f"{n} {s}" for s, n in shapes.items() if n) or "none"
        small = sum(r["grade"] == "significant" and not r.get("finding", True) for r in rows)
        text += (
            f" Trajectories, largest move first: {told}; a move under {trends.get('min_effect_points', 0):g} points "
            "is not told as a finding"
            + (
                f" ({small} significant trend{'s' if small != 1 else ''} smaller than that)."
                if small
                else "."
            )
        )
    outliers = assigned_outliers(trends)
    if outliers:
        text += (
            f" Counts are of the papers each topic clustered. {outliers} of the {total} papers "
            f"({outliers / total:.0%}) fit no cluster and are shown in their nearest topic on the map; "
            "they are counted beside, not tested."
        )
    if not any(r["grade"] == "significant" for r in rows):
        text += (
            " No trend is significant, which says the tests cannot tell these movements from chance "
            "with this many papers, not that nothing moved: the largest movements are listed below."
        )
    return text


def _footnote(trends: dict, changes: dict) -> str:
    """How the trends are tested, for the reader who asks."""
    level = round(100 * changes["confidence"])
    text = (
        "* How this is tested: each topic's share of the papers, counting only the papers HDBSCAN "
        "clustered into it (not the outliers assigned to it for display), is tested for a steady rise or "
        f"fall over the {changes['by']}s with the Cochran–Armitage trend test; the Benjamini–Hochberg "
        f"correction across the {len(trends['topics'])} topics keeps the expected share of false calls "
        f"among the significant ones below {changes['false_discovery_rate']:g} (q below it: significant; "
        f"q below {changes['suggestive_q']:g}: suggestive, about one in four such leads may be noise). "
        f"Hover a grade for its slope in points {per_unit(trends['unit'])} with its {level}% interval and "
        "its q-value; the table below lists them all."
    )
    return text


def _shape_cell(row: dict, period_label) -> str:
    shape = row.get("shape", STEADY)
    if row.get("turn"):
        return f"{shape} {period_label(row['turn'][0])}–{period_label(row['turn'][1])}"
    return shape


def _trend_table(trends: dict, period_label, recomputed: dict) -> Markup:
    """Every topic's trend, with its clustered papers (and all its papers) and clustered share per
    period; where the previous run published a share this run's interval leaves out, that share
    beside it.
    """
    periods = [period_label(p) for p in trends["periods"]]
    earlier = {(m["topic"], m["period"]): m["share_before"] for m in recomputed.get("moved", [])}
    header = [
        "Topic",
        "Label",
        "Trend",
        f"Slope (points {per_unit(trends['unit'])})",
        "q-value",
        "Trajectory",
    ]
    header += [f"Clustered papers in {p} (with assigned outliers)" for p in periods]
    rows = []
    for r in trends["topics"]:
        counts = counts_text(r["clustered_papers"], trends["period_papers"])
        cells = [
            table_cell(r["topic"], r["topic"]),
            table_cell(r["label"]),
            table_cell(f"{r['direction']}, {r['grade']}" if r["direction"] != "flat" else r["grade"]),
            table_cell(
                f"{r['slope_pp']:+.2f} ({r['slope_low_pp']:+.2f} to {r['slope_high_pp']:+.2f})", r["slope_pp"]
            ),
            table_cell(f"{r['q_value']:.3g}", r["q_value"]),
            table_cell(_shape_cell(r, period_label)),
        ]
        for period, text, share, papers in zip(
            trends["periods"], counts, r["clustered_share"], r["papers"], strict=True
        ):
            before = earlier.get((r["topic"], period))
            was = f"; run {recomputed['previous_run']}: {100 * before:.1f}%" if before is not None else ""
            cells.append(table_cell(f"{text} ({100 * share:.1f}%; {papers}{was})", share))
        rows.append((r["topic"], cells))
    numeric = {0, 3, 4} | {6 + i for i in range(len(periods))}
    return sortable_table("trend-table", header, numeric, rows)


def trends_block(changes: dict, period_label, colours: dict[int, str]) -> Markup:
    """The trends part of "What changed": the summary, rising and falling topics with their shares
    and counts, the largest other movements, the footnote on the test and the table; or why
    trends cannot be tested.
    """
    trends = changes["trends"]
    shown = {"by": changes["by"], "available": trends["available"], "footnote_id": TREND_FOOTNOTE_ID}
    if not trends["available"]:
        return render("sections/trends.html", **shown, reason=trends["reason"])
    rows = trends["topics"]
    minimum = trends.get("min_effect_points", 0.0)
    moving = sorted(
        (r for r in rows if r["grade"] != "no evidence" and abs(r.get("move_pp", minimum)) >= minimum),
        key=lambda r: (-abs(r.get("move_pp", 0.0)), r["topic"]),
    )
    # The largest movements are those not already listed as rising or falling.
    others = [r for r in rows if r["grade"] == "no evidence"]
    largest = sorted(others, key=lambda r: (-abs(r["slope_pp"]), r["topic"]))[:_LARGEST_SHOWN]

    def items(listed: list[dict]) -> list[dict]:
        return [_item(r, trends, period_label, colours) for r in listed]

    def with_interval(item: dict, row: dict) -> dict:
        # Where no trend is significant these moves are all there is to judge: each with its interval.
        if "move_pp" not in row or any(r["grade"] == "significant" for r in rows):
            return item
        return {**item, "move": points_text(row["move_pp"], row["move_low_pp"], row["move_high_pp"])}

    trajectories = (
        [_trajectory_item(r, trends, period_label, colours, changes["by"]) for r in ranked_findings(rows)]
        if rows and "shape" in rows[0]
        else None
    )
    return render(
        "sections/trends.html",
        **shown,
        summary=_summary(trends, changes, period_label),
        trajectories=trajectories,
        rising=items([r for r in moving if r["direction"] == "rising"]),
        falling=items([r for r in moving if r["direction"] == "falling"]),
        largest=[with_interval(item, row) for item, row in zip(items(largest), largest, strict=True)],
        footnote=_footnote(trends, changes),
        table=_trend_table(trends, period_label, changes.get("recomputed") or {}),
    )
