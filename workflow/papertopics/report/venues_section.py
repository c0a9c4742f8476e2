"""The Venues section (``compare.by`` a paper field: venue, track): a topic × venue heatmap, what
each venue holds more and fewer of than the others, each venue's own trends (with years too,
``report.venue_trends_subsection``), each topic's wording per venue, and the
brief's lines naming what each venue stands for. Read from the venues stage's record
(``venues.json``) and table (``venues.csv``).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import pandas as pd

from papertopics.figures.venues import venue_heatmap
from papertopics.report.html_blocks import figure_block
from papertopics.report.topic_table import sortable_table, table_cell
from papertopics.report.venue_trends_subsection import venue_trends_block

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
    strongest evidence first, for the brief.
    """
    if not record or not record.get("available"):
        return []
    return [
        VenueLine(
            group["venue"],
            [cell["label"] for cell in group["over"][:_NAMED]],
            [cell["label"] for cell in group["under"][:_NAMED]],
        )
        for group in record["groups"]
        if group["over"] or group["under"]
    ]


def venues_none_found(record: dict | None) -> str | None:
    """The brief's line where venues were compared and none differs beyond chance, else None."""
    if not record or not record.get("available") or venue_lines(record):
        return None
    return f"No {record['by']} holds more or fewer of a topic's papers than chance explains."


def _cell_text(cell: dict) -> str:
    return (
        f'<a href="#topic-{int(cell["topic"])}">{html.escape(cell["label"])}</a> '
        f'<span class="hint">{100 * cell["share"]:.1f}% ({cell["papers"]} papers; {html.escape(cell["grade"])}, '
        f"q = {cell['q']:.2g})</span>"
    )


def _group_block(group: dict) -> str:
    heading = (
        f'<div class="venue"><h4>{html.escape(group["venue"])} '
        f'<span class="hint">({group["papers"]:,} papers)</span></h4>'
    )
    if not group["over"] and not group["under"]:
        return heading + "<p>No topic more or fewer of its papers than in the other venues.</p></div>"

    def listed(cells: list[dict], what: str) -> str:
        if not cells:
            return f"<p>No topic {what} than in the other venues.</p>"
        return (
            f"<p>{what.capitalize()}:</p><ul>" + "".join(f"<li>{_cell_text(c)}</li>" for c in cells) + "</ul>"
        )

    return (
        heading
        + listed(group["over"], "more of its papers")
        + listed(group["under"], "fewer of its papers")
        + "</div>"
    )


def _wording_table(record: dict, labels: dict[str, str]) -> str:
    wording = record.get("wording") or {}
    rows = []
    for topic, per_group in wording.items():
        if int(topic) < 0 or not per_group:
            continue
        words = {entry["period"]: ", ".join(entry["keywords"]) for entry in per_group}
        cells = [table_cell(f"{topic}: {labels.get(topic, '')}", int(topic))]
        rows.append((int(topic), cells + [table_cell(words.get(venue, "")) for venue in record["venues"]]))
    if not rows:
        return ""
    return "<h3>Each topic's wording per venue</h3>" + sortable_table(
        "venue-wording", ["Topic", *record["venues"]], {0}, rows
    )


def venues_section(record: dict | None, cells: pd.DataFrame | None) -> str:
    """The Venues section, or nothing where no venues were compared."""
    if not record or not record.get("available") or cells is None or cells.empty:
        return ""
    labels = {str(t): str(label) for t, label in zip(cells["topic"], cells["label"], strict=True)}
    intro = (
        f"<p>Papers grouped by their <code>{html.escape(record['by'])}</code> "
        f"({len(record['venues'])} groups, no order between them). Each cell is the topic's share of the "
        "venue's papers; red where the venue holds more of the topic than the other venues together, blue "
        f"where fewer; ● significant (q &lt; {record['false_discovery_rate']:g}), ○ suggestive "
        f"(q &lt; {record['suggestive_q']:g}). Test: {html.escape(record['test'])}, on each topic's "
        f"{html.escape(record['tested_on'])} papers.</p>"
    )
    left_out = record.get("papers_without_venue") or 0
    note = (
        f'<p class="hint">{left_out:,} papers without a {html.escape(record["by"])} are left out.</p>'
        if left_out
        else ""
    )
    return (
        '<section id="venues"><h2>Venues</h2>'
        + intro
        + note
        + figure_block("venue-heatmap", venue_heatmap(cells))
        + "<h3>What each venue holds more and fewer of</h3>"
        + "".join(_group_block(group) for group in record["groups"])
        + venue_trends_block(record)
        + _wording_table(record, labels)
        + "</section>"
    )
