"""How a topic's stability (``topics.csv``) and how often a finding held (the robustness stage's)
are said in the report.
"""

from __future__ import annotations

import math

from markupsafe import Markup

from papertopics.report.render import macro
from papertopics.robustness.findings import FRAGILE, ROBUST, holds_phrase
from papertopics.robustness.stability import trusted


def topic_stability(topics) -> dict[int, dict]:
    """Each topic's stability from the ``topics.csv`` table: ``value``, ``grade``, ``replicates``,
    ``trusted``; none where no replicate was drawn (or the table has no stability).
    """
    if "stability" not in topics.columns:
        return {}
    found = {}
    for row in topics.to_dict("records"):
        value = row["stability"]
        if value == "" or value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        found[int(row["id"])] = {
            "value": float(value),
            "grade": row["stability_grade"],
            "replicates": int(row["replicates"]),
            "trusted": trusted(float(value)),
        }
    return found


def stability_phrase(stability: dict) -> str:
    """``stability 0.82, stable (10 resamples)``; a topic below 0.6 says it is not to be trusted."""
    phrase = f"stability {stability['value']:.2f}, {stability['grade']} ({stability['replicates']} resamples)"
    return (
        phrase
        if stability["trusted"] or stability["grade"] == "not to be trusted"
        else f"{phrase}: not to be trusted"
    )


def stability_mark(stability: dict | None) -> Markup:
    """The phrase as a span classed by whether the topic can be trusted (empty without one)."""
    if not stability:
        return Markup("")
    return macro("sections/stability.html", "mark")(stability_phrase(stability), stability["trusted"])


def holds_note(row: dict) -> str:
    """How often a finding held in the replicates, ``robust: holds in 9 of 10 resamples``; empty
    where none were drawn (its ``holds``, ``replicates`` and ``robustness`` from the robustness stage).
    """
    if not row.get("replicates"):
        return ""
    held = holds_phrase(int(row["holds"]), int(row["replicates"]))
    return f"{row['robustness']}: {held}" if row.get("robustness") else held


def held_mark(row: dict) -> Markup:
    """``holds_note`` as the page shows it beside a finding, red where the finding is fragile
    (empty where no replicate was drawn).
    """
    note = holds_note(row)
    if not note:
        return Markup("")
    return macro("sections/stability.html", "held")(note, row.get("robustness") == FRAGILE)


def shape_held(row: dict) -> dict:
    """A trend row's trajectory as a finding the marks read: its ``shape_holds``,
    ``shape_replicates`` and ``shape_robustness`` as ``holds``, ``replicates``, ``robustness``
    (the row as it is where its shape was not re-tested).
    """
    if "shape_replicates" not in row:
        return row
    return {
        **row,
        "holds": row["shape_holds"],
        "replicates": row["shape_replicates"],
        "robustness": row["shape_robustness"],
    }


def robustness_rank(row: dict) -> int:
    """A finding's place by its grade: robust first, then supported (or ungraded), fragile last."""
    return {ROBUST: 0, FRAGILE: 2}.get(row.get("robustness", ""), 1)


def with_holds(sentence: str, row: dict) -> str:
    """A finding's sentence followed by how often it held: "... (Robust: holds in 9 of 10 resamples.)"."""
    held = holds_note(row)
    return f"{sentence} ({held[0].upper()}{held[1:]}.)" if held else sentence


def fragile_note(rows: list[dict], section: str) -> str | None:
    """How many of ``rows`` are fragile, which the brief leaves to ``section``; None where none is."""
    fragile = sum(row.get("robustness") == FRAGILE for row in rows)
    if not fragile:
        return None
    return (
        f"{fragile} fragile {'one' if fragile == 1 else 'ones'} (holding in fewer than half of the "
        f"resamples, or in a topic not to be trusted) under {section}."
    )
