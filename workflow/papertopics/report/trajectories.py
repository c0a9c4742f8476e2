"""A topic's trajectory in words, for the brief and the What changed section: "peaked 2002–2014
at 7.8% of papers (1.9% in 1995, 2.4% by 2025)", "fell from 15.4% in 1995 to 2.3% in
2007–2021, then returned from 2021: 7.6% by 2025", with its moves in points and their intervals; and which moves are told as
findings, largest first (significance is the gate, size the order).
"""

from __future__ import annotations

from papertopics.report.sparkline import counts_phrase

PEAKED, RETURNED, RISING, FALLING, STEADY = "peaked", "returned", "rising", "falling", "steady"


def _percent(share: float) -> str:
    return f"{100 * share:.1f}%"


def _points(change: float) -> str:
    return f"{change:+.1f}"


def leg_text(leg: dict) -> str:
    """A leg's move with its interval: "+6.2 points (+4.1 to +8.3)"."""
    return f"{_points(leg['change_pp'])} points ({_points(leg['low_pp'])} to {_points(leg['high_pp'])})"


def size(row: dict) -> float:
    """How large a topic's move is, in points: its largest leg where it has a shape, else its
    move over the span (the trend's slope times the span).
    """
    if row.get("shape", STEADY) != STEADY:
        return abs(row.get("shape_move_pp") or 0.0)
    return abs(row.get("move_pp") or 0.0)


def is_finding(row: dict) -> bool:
    """A shape that passed its test and the smallest move (``compare.min_effect_points``)."""
    return row.get("shape", STEADY) != STEADY


def ranked_findings(rows: list[dict]) -> list[dict]:
    """The topics told as findings, largest move first."""
    return sorted((r for r in rows if is_finding(r)), key=lambda r: (-size(r), r["topic"]))


def _fitted(row: dict) -> list[float]:
    return row.get("fitted_share") or row["clustered_share"]


def _counts(row: dict, places: list[int]) -> str:
    return counts_phrase([row["clustered_papers"][i] for i in places], [row["papers"][i] for i in places])


def shape_phrase(row: dict, trends: dict, period_label) -> str:
    """The rest of a sentence after the topic's name, for a topic with a shape; "" for steady.
    Over many periods the shares are the fitted curve's, with the periods named; over a few
    (the shape is then the trend's), the first and last periods' own shares.
    """
    shape = row.get("shape", STEADY)
    periods = trends["periods"]
    fit = _fitted(row)
    first, last = period_label(periods[0]), period_label(periods[-1])
    legs = row.get("shape_legs") or []
    if shape in (PEAKED, RETURNED) and row.get("turn"):
        start, end = (periods.index(p) for p in row["turn"])
        inside = fit[start : end + 1]
        turn = start + (inside.index(max(inside)) if shape == PEAKED else inside.index(min(inside)))
        span = f"{period_label(row['turn'][0])}–{period_label(row['turn'][1])}"
        counts = _counts(row, [0, turn, len(periods) - 1])
        moves = f"; {', then '.join(leg_text(leg) for leg in legs)}" if legs else ""
        if shape == PEAKED:
            return (
                f" peaked {span} at {_percent(max(inside))} of papers, from {_percent(fit[0])} in {first} to "
                f"{_percent(fit[-1])} by {last} ({counts}{moves})"
            )
        return (
            f" fell from {_percent(fit[0])} in {first} to {_percent(min(inside))} of papers in {span}, then "
            f"returned from {period_label(row['turn'][1])}: {_percent(fit[-1])} by {last} ({counts}{moves})"
        )
    if shape in (RISING, FALLING):
        verb = "rose" if shape == RISING else "fell"
        counts = _counts(row, [0, len(periods) - 1])
        moves = f", {leg_text(legs[0])}" if legs else ""
        if trends.get("shape_test", "").startswith("too few"):
            shares = f"{_percent(fit[0])} to {_percent(fit[-1])} of papers"
        else:
            shares = f"{_percent(fit[0])} in {first} to {_percent(fit[-1])} of papers by {last}"
        return f" {verb} from {shares} ({counts}){moves}"
    return ""


def recent_phrase(row: dict, trends: dict, period_label, unit: str) -> str:
    """The recent window's direction, as in: '; falling in the last 5 years (2021–2025, −2.3
    points)', where its trend is significant, large enough, and says what the shape does not.
    """
    recent_periods = trends.get("recent_periods")
    min_effect = trends.get("min_effect_points", 0.0)
    if not recent_periods or row.get("recent_grade") != "significant":
        return ""
    direction = row.get("recent_direction")
    if direction not in (RISING, FALLING) or abs(row.get("recent_move_pp") or 0) < min_effect:
        return ""
    if row.get("shape") == direction:
        return ""
    span = f"{period_label(recent_periods[0])}–{period_label(recent_periods[-1])}"
    count = len(recent_periods)
    return f"; {direction} in the last {count} {unit}s ({span}, {_points(row['recent_move_pp'])} points)"
