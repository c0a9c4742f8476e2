"""The sortable topic table, to read at a glance: id, label, its first keywords (the rest a click
away), size, share of the corpus and of each dump.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from papertopics.mapping.cluster import OUTLIER
from papertopics.report.inputs import ReportInputs
from papertopics.report.render import macro, render
from papertopics.report.stability_marks import topic_stability


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


def table_cell(text, sort_value=None, css_class: str | None = None) -> Markup:
    """A cell of a sortable table: its text, sorted by ``sort_value`` when given."""
    return macro("table.html", "cell")(text, sort_value, css_class)


def sortable_table(
    table_id: str,
    header: list[str],
    numeric: set[int],
    rows: list[tuple[int, list[Markup]]],
    unprinted: frozenset[int] | set[int] = frozenset(),
) -> Markup:
    """A table the page's script sorts by a click on a heading; ``rows`` are (topic, cells), and
    the rows of the ``unprinted`` topics are left out of print.
    """
    return macro("table.html", "sortable_table")(table_id, header, numeric, rows, unprinted)


_KEYWORDS_SHOWN = 4
PRINTED_ROWS = 40  # the largest topics printed, so that the brief and the table fit two pages


def keywords_cell(keywords: list[str]) -> Markup:
    """The first keywords, the others a click away (a ``<details>``), so that rows stay one or two lines."""
    shown, rest = ", ".join(keywords[:_KEYWORDS_SHOWN]), ", ".join(keywords[_KEYWORDS_SHOWN:])
    return macro("table.html", "keywords_cell")(shown, rest)


def _stability_cell(stability: dict | None) -> Markup:
    """A topic's stability and grade, sorted by its value (empty for the outliers' row)."""
    if stability is None:
        return table_cell("", -1.0, "num")
    css = "num stability" if stability["trusted"] else "num stability untrusted"
    return table_cell(f"{stability['value']:.2f} {stability['grade']}", stability["value"], css)


def topic_table_section(inputs: ReportInputs) -> Markup:
    """The sortable topic table: label, keywords, size, share, share per dump and stability."""
    per_dump = papers_per_dump(inputs)
    dumps = per_dump.dumps
    dump_labels = inputs.dump_labels
    header = ["Topic", "Label", "Top keywords", "Papers", "Share"] + [dump_labels[d] for d in dumps]
    numeric = {0, 3, 4} | set(range(5, 5 + len(dumps)))
    # The robustness stage's: how often each topic came back on subsamples (none without replicates).
    stability = topic_stability(inputs.topics)
    if stability:
        numeric.add(len(header))
        header.append("Stability")
    # With topics.guide, a topic is either one of the given categories or found in the papers.
    guided = any(topic.get("named") for topic in inputs.topic_details)
    if guided:
        header.append("Source")
    rows = []
    for topic in inputs.topic_details:
        cells = [
            table_cell(topic["topic"], topic["topic"], "num"),
            table_cell(topic["label"], css_class="label"),
            keywords_cell([word for word, _ in topic["keywords"][:8]]),
            # The map's period filter counts these two again (assets/filters.js).
            table_cell(topic["size"], topic["size"], "size num"),
            table_cell(f"{topic['share']:.1%}", topic["share"], "share num"),
        ]
        for dump in dumps:
            share = per_dump.share(dump, topic["topic"])
            cells.append(table_cell(f"{share:.1%} ({per_dump.count(dump, topic['topic'])})", share, "num"))
        if stability:
            cells.append(_stability_cell(stability.get(topic["topic"])))
        if guided:
            cells.append(
                table_cell("named" if topic.get("named") else "" if topic["topic"] == OUTLIER else "found")
            )
        rows.append((topic["topic"], cells))
    by_size = sorted(inputs.topic_details, key=lambda t: (-t["size"], t["topic"]))
    unprinted = {t["topic"] for t in by_size[PRINTED_ROWS:]}
    return render(
        "sections/topics.html",
        guided=guided,
        table=sortable_table("topic-table", header, numeric, rows, unprinted),
        printed_rows=PRINTED_ROWS if unprinted else None,
        topics=len(rows),
    )
