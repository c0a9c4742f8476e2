"""The Venues section (``compare.by`` a paper field: venue, track): a topic × venue heatmap, what
each venue holds more and fewer of than the others, each venue's own trends (with years too,
``report.venue_trends_subsection``), each topic's wording per venue, and the
brief's lines naming what each venue stands for. Read from the venues stage's record
(``venues.json``) and table (``venues.csv``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from markupsafe import Markup

from papertopics.figures.venues import venue_heatmap
from papertopics.report.html_blocks import figure_block
from papertopics.report.render import render
from papertopics.report.stability_marks import fragile_note, held_mark
from papertopics.report.topic_table import sortable_table, table_cell
from papertopics.report.venue_trends_subsection import venue_trends_block
from papertopics.robustness.findings import FRAGILE

_NAMED = 3  # topics a venue's line in the brief names


@dataclass(frozen=True)
class VenueLine:
    """A venue and the topics it holds more of than the others (strongest evidence first)."""

    venue: str
    over: list[str]
    under: list[str]

    @property
    def sentence(self) -> str:
        """The line, as in: ICML: more “generalization, bounds” and “bandits”; fewer “vision transformers”.

        Labels hold commas themselves, so each is quoted.
        """

        def named(labels: list[str]) -> str:
            quoted = [f"“{label}”" for label in labels]
            return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"

        more = f"more {named(self.over)}" if self.over else "no topic more than the others"
        fewer = f"; fewer {named(self.under)}" if self.under else ""
        return f"{self.venue}: {more}{fewer}"


def venue_lines(record: dict | None) -> list[VenueLine]:
    """Per venue that holds more or fewer of some topic (significant or suggestive), those topics,
    strongest evidence first, for the brief: never a fragile one (``papertopics.robustness``).
    """
    if not record or not record.get("available"):
        return []

    def told(cells: list[dict]) -> list[str]:
        return [cell["label"] for cell in cells if cell.get("robustness") != FRAGILE][:_NAMED]

    lines = [
        VenueLine(group["venue"], told(group["over"]), told(group["under"])) for group in record["groups"]
    ]
    return [line for line in lines if line.over or line.under]


def venues_none_found(record: dict | None) -> str | None:
    """The brief's line where venues were compared and none differs beyond chance, else None."""
    if not record or not record.get("available") or _found(record):
        return None
    return f"No {record['by']} holds more or fewer of a topic's papers than chance explains."


def venues_fragile(record: dict | None) -> str | None:
    """The brief's count of the venues' fragile findings, which it leaves to the Venues section."""
    return fragile_note(_found(record or {}), "Venues")


def _found(record: dict) -> list[dict]:
    """Every topic a venue holds more or fewer of (significant or suggestive)."""
    if not record.get("available"):
        return []
    return [cell for group in record["groups"] for cell in group["over"] + group["under"]]


def _cell(cell: dict) -> dict:
    """A topic a venue holds more or fewer of, with its share there and the evidence."""
    return {
        "topic": int(cell["topic"]),
        "label": cell["label"],
        "share": f"{100 * cell['share']:.1f}",
        "papers": cell["papers"],
        "grade": cell["grade"],
        "q": f"{cell['q']:.2g}",
        "held": held_mark(cell),
    }


def _group(group: dict) -> dict:
    """A venue and the topics it holds more and fewer of than the other venues."""
    return {
        "venue": group["venue"],
        "papers": f"{group['papers']:,}",
        "over": [_cell(c) for c in group["over"]],
        "under": [_cell(c) for c in group["under"]],
    }


def _wording_table(record: dict, labels: dict[str, str]) -> Markup | None:
    wording = record.get("wording") or {}
    rows = []
    for topic, per_group in wording.items():
        if int(topic) < 0 or not per_group:
            continue
        words = {entry["period"]: ", ".join(entry["keywords"]) for entry in per_group}
        cells = [table_cell(f"{topic}: {labels.get(topic, '')}", int(topic))]
        rows.append((int(topic), cells + [table_cell(words.get(venue, "")) for venue in record["venues"]]))
    return sortable_table("venue-wording", ["Topic", *record["venues"]], {0}, rows) if rows else None


def venues_section(record: dict | None, cells: pd.DataFrame | None) -> Markup:
    """The Venues section, or nothing where no venues were compared."""
    if not record or not record.get("available") or cells is None or cells.empty:
        return Markup()
    labels = {str(t): str(label) for t, label in zip(cells["topic"], cells["label"], strict=True)}
    left_out = record.get("papers_without_venue") or 0
    return render(
        "sections/venues.html",
        by=record["by"],
        venues=len(record["venues"]),
        false_discovery_rate=f"{record['false_discovery_rate']:g}",
        suggestive_q=f"{record['suggestive_q']:g}",
        test=record["test"],
        tested_on=record["tested_on"],
        left_out=f"{left_out:,}" if left_out else None,
        heatmap=figure_block("venue-heatmap", venue_heatmap(cells)),
        groups=[_group(group) for group in record["groups"]],
        trends=venue_trends_block(record),
        wording=_wording_table(record, labels),
    )
