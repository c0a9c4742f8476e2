"""The sortable topic table: id, label, keywords, size, share of corpus and of each dump."""

from __future__ import annotations

import html

from papertopics.report.inputs import ReportInputs
from papertopics.report.quality import coherence_by_topic


def share_per_dump(inputs: ReportInputs) -> dict[str, dict[int, float]]:
    """For each dump, the share of its papers in each topic (a paper in two dumps counts in both)."""
    rows = inputs.papers.assign(dump_list=inputs.papers["dumps"].str.split(";")).explode("dump_list")
    counts = rows.groupby(["dump_list", "topic"]).size()
    totals = rows.groupby("dump_list").size()
    return {
        dump: {int(topic): counts[dump][topic] / totals[dump] for topic in counts[dump].index}
        for dump in totals.index
    }


def _cell(text, sort_value=None) -> str:
    value = f' data-sort="{html.escape(str(sort_value))}"' if sort_value is not None else ""
    return f"<td{value}>{html.escape(str(text))}</td>"


def _npmi_cell(npmi: float | None) -> str:
    """Coherence, or an empty cell (sorted last) for the outliers and topics it could not score."""
    return _cell(f"{npmi:.3f}", npmi) if npmi is not None else _cell("", -2)


def topic_table_section(inputs: ReportInputs) -> str:
    shares = share_per_dump(inputs)
    dumps = sorted(shares)
    dump_labels = inputs.dump_labels
    coherence = coherence_by_topic(inputs.metrics)
    header = ["Topic", "Label", "Top keywords", "Size", "% of corpus", "Coherence (NPMI)"] + [
        f"% of {dump_labels[d]}" for d in dumps
    ]
    numeric = {0, 3, 4, 5} | set(range(6, 6 + len(dumps)))
    head = "".join(
        f'<th data-type="{"number" if i in numeric else "text"}" tabindex="0">{html.escape(h)}</th>'
        for i, h in enumerate(header)
    )
    body = []
    for topic in inputs.topic_details:
        cells = [
            _cell(topic["topic"], topic["topic"]),
            _cell(topic["label"]),
            _cell(", ".join(word for word, _ in topic["keywords"][:8])),
            _cell(topic["size"], topic["size"]),
            _cell(f"{topic['share']:.1%}", topic["share"]),
            _npmi_cell(coherence.get(topic["topic"])),
        ]
        for dump in dumps:
            share = shares[dump].get(topic["topic"], 0.0)
            cells.append(_cell(f"{share:.1%}", share))
        body.append(f'<tr data-topic="{topic["topic"]}">{"".join(cells)}</tr>')
    return (
        '<section id="topics"><h2>Topics</h2>'
        '<p class="hint">Click a column heading to sort.</p>'
        f'<table class="sortable" id="topic-table"><thead><tr>{head}</tr></thead>'
        f'<tbody>{"".join(body)}</tbody></table></section>'
    )
