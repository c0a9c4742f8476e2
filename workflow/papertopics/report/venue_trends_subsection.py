"""Each venue's own trends in words (``compare.by: [venue, year]``): "at ICML, “bandits” rose from
1.0% to 4.0% of papers (2020–2024); at ICLR no trend beyond chance (2.0% → 2.1%)", per topic
that moved in some venue, in the Venues section; and the strongest venue-specific one in the
brief. Read from the ``trends`` record of ``venues.json`` (``papertopics.changes.venue_trends``).
"""

from __future__ import annotations

from markupsafe import Markup

from papertopics.report.render import render
from papertopics.report.stability_marks import held_mark
from papertopics.robustness.findings import FRAGILE

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
    # A fragile one (it held in fewer than half of the resamples) is left to the Venues section.
    if not best or best.get("robustness") == FRAGILE:
        return None
    others = sorted(best["others"], key=lambda r: (r["direction"] != "flat", r["venue"]))[:_OTHERS_NAMED]
    rest = "".join(f"; at {o['venue']}, {moved(o)}" for o in others)
    return f"At {best['venue']}, “{best['label']}” {moved(best)}{rest}."


def _evidence(row: dict) -> str:
    return (
        f"move {row['move_pp']:+.1f} points ({row['move_low_pp']:+.1f} to {row['move_high_pp']:+.1f}), "
        f"q = {row['q']:.2g}"
    )


def _topic_item(topic: dict) -> dict:
    """A topic that moved in some venue: each venue's move, and whether the venues' slopes differ."""
    if topic["slopes_differ_q"] is None:
        differ = ""
    elif topic["slopes_differ"]:
        differ = f" The venues' slopes differ (q = {topic['slopes_differ_q']:.2g})."
    else:
        differ = f" The venues' slopes do not differ beyond chance (q = {topic['slopes_differ_q']:.2g})."
    venues = [
        {
            "venue": row["venue"],
            "evidence": _evidence(row),
            "moved": moved(row),
            "grade": row["grade"] if row["direction"] != "flat" else None,
            # How often a finding held in the resamples, red where fragile (none on the rest).
            "held": held_mark(row) if row.get("robustness") else Markup(""),
        }
        for row in topic["venues"]
    ]
    return {"topic": int(topic["topic"]), "label": topic["label"], "venues": venues, "differ": differ}


def venue_trends_block(record: dict) -> Markup:
    """The Venues section's part on each venue's trends, or why there are none."""
    trends = record.get("trends") or {}
    if not trends.get("available"):
        return render("sections/venue_trends.html", available=False, reason=trends.get("reason"))
    topics = trends["topics"]
    return render(
        "sections/venue_trends.html",
        available=True,
        by=trends["by"],
        venues=len(trends["venues"]),
        tests=trends["tests"],
        test=trends["test"],
        slopes_test=trends["slopes_test"],
        tested_on=trends["tested_on"],
        skipped=[s["venue"] for s in trends["skipped"]],
        min_period_papers=trends["min_period_papers"],
        topics=[_topic_item(topic) for topic in topics[:_LISTED]],
        more=len(topics) - _LISTED if len(topics) > _LISTED else None,
    )
