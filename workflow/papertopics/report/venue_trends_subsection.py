"""Each venue's own trends in words (``compare.by: [venue, year]``): "at ICML, “bandits” rose from
1.0% to 4.0% of papers (2020–2024); at ICLR no trend beyond chance (2.0% → 2.1%)", per topic
that moved in some venue, in the Venues section; and the strongest venue-specific one in the
brief. Read from the ``trends`` record of ``venues.json`` (``papertopics.changes.venue_trends``).
"""

from __future__ import annotations

import html

_LISTED = 15  # topics listed in the section; the rest are in venue_trends.csv
_OTHERS_NAMED = 2  # other venues the brief's line names


def _percent(share: float) -> str:
    return f"{100 * share:.1f}%"


def moved(row: dict) -> str:
    """A venue's move in words: "rose from 1.0% to 4.0% of papers (2020–2024)"."""
    span = f"{row['first_period']}–{row['last_period']}"
    shares = f"{_percent(row['first_share'])} to {_percent(row['last_share'])}"
    if row["direction"] == "rising":
        return f"rose from {shares} of papers ({span})"
    if row["direction"] == "falling":
        return f"fell from {shares} of papers ({span})"
    return f"no trend beyond chance ({_percent(row['first_share'])} → {_percent(row['last_share'])}, {span})"


def brief_line(record: dict | None) -> str | None:
    """The brief's line: the strongest trend in one venue of a topic whose slopes differ between
    venues, and what the topic did in (up to two) other venues; None where there is none.
    """
    trends = (record or {}).get("trends") or {}
    best = trends.get("strongest") if trends.get("available") else None
    if not best:
        return None
    others = sorted(best["others"], key=lambda r: (r["direction"] != "flat", r["venue"]))[:_OTHERS_NAMED]
    rest = "".join(f"; at {o['venue']}, {moved(o)}" for o in others)
    return f"At {best['venue']}, “{best['label']}” {moved(best)}{rest}."


def _evidence(row: dict) -> str:
    return (
        f"move {row['move_pp']:+.1f} points ({row['move_low_pp']:+.1f} to {row['move_high_pp']:+.1f}), "
        f"q = {row['q']:.2g}"
    )


def _topic_item(topic: dict) -> str:
    venues = "; ".join(
        f'at {html.escape(row["venue"])}, <span title="{html.escape(_evidence(row))}">'
        f"{html.escape(moved(row))}</span>"
        + (
            f' <span class="grade grade-{row["grade"]}">{row["grade"]}</span>'
            if row["direction"] != "flat"
            else ""
        )
        for row in topic["venues"]
    )
    if topic["slopes_differ_q"] is None:
        differ = ""
    elif topic["slopes_differ"]:
        differ = f" The venues' slopes differ (q = {topic['slopes_differ_q']:.2g})."
    else:
        differ = f" The venues' slopes do not differ beyond chance (q = {topic['slopes_differ_q']:.2g})."
    return (
        f'<li data-topic="{int(topic["topic"])}"><a href="#topic-{int(topic["topic"])}">'
        f"{html.escape(topic['label'])}</a>: {venues}.{html.escape(differ)}</li>"
    )


def venue_trends_block(record: dict) -> str:
    """The Venues section's part on each venue's trends, or why there are none."""
    trends = record.get("trends") or {}
    if not trends.get("available"):
        reason = trends.get("reason")
        return (
            f'<h3>Trends within each venue</h3><p class="hint">No trends within venues: {html.escape(reason)}.</p>'
            if reason
            else ""
        )
    skipped = trends["skipped"]
    left_out = (
        f" {', '.join(html.escape(s['venue']) for s in skipped)}: fewer than 3 {trends['by']}s of "
        f"{trends['min_period_papers']} papers or more, not tested."
        if skipped
        else ""
    )
    intro = (
        f"<p>Each topic's share of each venue's papers over the {html.escape(trends['by'])}s "
        f"({len(trends['venues'])} venues, {trends['tests']} tests). Test: {html.escape(trends['test'])}; "
        f"whether a topic moves differently in different venues: {html.escape(trends['slopes_test'])}; on "
        f"each topic's {html.escape(trends['tested_on'])} papers. Hover a move for its interval.{left_out}</p>"
    )
    topics = trends["topics"]
    if not topics:
        return (
            f'<h3>Trends within each venue</h3>{intro}<p id="venue-trends" class="hint">'
            "No topic's share moved beyond chance within any venue.</p>"
        )
    more = (
        f'<p class="hint">{len(topics) - _LISTED} more topics in venue_trends.csv.</p>'
        if len(topics) > _LISTED
        else ""
    )
    items = "".join(_topic_item(topic) for topic in topics[:_LISTED])
    return f'<h3>Trends within each venue</h3>{intro}<ul class="venue-trends" id="venue-trends">{items}</ul>{more}'
