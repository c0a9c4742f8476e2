"""The sortable topic table: id, label, keywords, size, share of corpus and of each dump."""

from __future__ import annotations

import html
from dataclasses import dataclass

from papertopics.report.inputs import ReportInputs
from papertopics.report.quality import coherence_by_topic
from papertopics.topics import OUTLIER


@dataclass(frozen=True)
class DumpCounts:
    """Papers per dump and topic (a paper in two dumps counts in both), and each dump's total."""

    counts: dict[str, dict[int, int]]
    totals: dict[str, int]

    @property
    def dumps(self) -> list[str]:
        """The dumps in order of their names."""
        return sorted(self.totals)

    def count(self, dump: str, topic: int) -> int:
        """Papers of ``dump`` in ``topic`` (0 where none)."""
        return self.counts[dump].get(topic, 0)

    def share(self, dump: str, topic: int) -> float:
        """The share of ``dump``'s papers in ``topic``."""
        return self.count(dump, topic) / self.totals[dump]


def papers_per_dump(inputs: ReportInputs) -> DumpCounts:
    """How many of each dump's papers fall in each topic."""
    rows = inputs.papers.assign(dump_list=inputs.papers["dumps"].str.split(";")).explode("dump_list")
    counts = rows.groupby(["dump_list", "topic"]).size()
    totals = rows.groupby("dump_list").size()
    return DumpCounts(
        counts={
            dump: {int(topic): int(counts[dump][topic]) for topic in counts[dump].index}
            for dump in totals.index
        },
        totals={dump: int(total) for dump, total in totals.items()},
    )


def table_cell(text, sort_value=None, css_class: str | None = None) -> str:
    """A cell of a sortable table: its text escaped, sorted by ``sort_value`` when given."""
    value = f' data-sort="{html.escape(str(sort_value))}"' if sort_value is not None else ""
    kind = f' class="{html.escape(css_class)}"' if css_class else ""
    return f"<td{kind}{value}>{html.escape(str(text))}</td>"


def sortable_table(
    table_id: str, header: list[str], numeric: set[int], rows: list[tuple[int, list[str]]]
) -> str:
    """A table the page's script sorts by a click on a heading; ``rows`` are (topic, cells)."""
    head = "".join(
        f'<th data-type="{"number" if i in numeric else "text"}" tabindex="0">{html.escape(h)}</th>'
        for i, h in enumerate(header)
    )
    body = "".join(f'<tr data-topic="{int(topic)}">{"".join(cells)}</tr>' for topic, cells in rows)
    return (
        f'<table class="sortable" id="{html.escape(table_id)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def _npmi_cell(npmi: float | None) -> str:
    """Coherence, or an empty cell (sorted last) for the outliers and topics it could not score."""
    return table_cell(f"{npmi:.3f}", npmi) if npmi is not None else table_cell("", -2)


def topic_table_section(inputs: ReportInputs) -> str:
    """The sortable topic table: label, keywords, size, share, coherence and share per dump."""
    per_dump = papers_per_dump(inputs)
    dumps = per_dump.dumps
    dump_labels = inputs.dump_labels
    coherence = coherence_by_topic(inputs.metrics)
    header = ["Topic", "Label", "Top keywords", "Size", "% of corpus", "Coherence (NPMI)"] + [
        f"% of {dump_labels[d]} (papers)" for d in dumps
    ]
    numeric = {0, 3, 4, 5} | set(range(6, 6 + len(dumps)))
    # With topics.guide, a topic is either one of the given categories or found in the papers.
    guided = any(topic.get("named") for topic in inputs.topic_details)
    if guided:
        header.append("Source")
    rows = []
    for topic in inputs.topic_details:
        cells = [
            table_cell(topic["topic"], topic["topic"]),
            table_cell(topic["label"]),
            table_cell(", ".join(word for word, _ in topic["keywords"][:8])),
            # The map's period filter counts these two again (assets/filters.js).
            table_cell(topic["size"], topic["size"], "size"),
            table_cell(f"{topic['share']:.1%}", topic["share"], "share"),
            _npmi_cell(coherence.get(topic["topic"])),
        ]
        for dump in dumps:
            share = per_dump.share(dump, topic["topic"])
            cells.append(table_cell(f"{share:.1%} ({per_dump.count(dump, topic['topic'])})", share))
        if guided:
            cells.append(
                table_cell("named" if topic.get("named") else "" if topic["topic"] == OUTLIER else "found")
            )
        rows.append((topic["topic"], cells))
    hint = "Click a column heading to sort. Size and % of corpus count the periods chosen on the map."
    if guided:
        hint += " Source: a category given in topics.guide (named), or a topic found in the papers (found)."
    return (
        f'<section id="topics"><h2>Topics</h2><p class="hint">{hint}</p>'
        f"{sortable_table('topic-table', header, numeric, rows)}</section>"
    )
