"""The Reception section: per topic its decisions (acceptance rate or each outcome's share), its
ratings (mean, median, how much its reviewers disagree) and its citations for their year, each
against the rest with its interval and graded; the brief's lines (at most two, significant only);
and the notice a report built from decisions or ratings carries. Read from the reception stage's
record (``reception.json``).

With ``reception.in_report: false`` the decisions and ratings are left out of the page, its
downloads and its papers table (citations stay): a copy meant to be shared beyond a committee.
"""

from __future__ import annotations

from markupsafe import Markup

from papertopics.figures.forest import MARKS, forest_plot, forest_rows
from papertopics.reception.stages import finding_sentence
from papertopics.report.html_blocks import figure_block
from papertopics.report.reception_record import CONFIDENTIAL, shown_rows
from papertopics.report.render import render
from papertopics.report.stability_marks import robustness_rank, with_holds
from papertopics.report.topic_table import sortable_table, table_cell
from papertopics.robustness.findings import FRAGILE

BRIEF_LINES = 2
_FORMAT = {"acceptance": "{:.0%}", "outcome": "{:.0%}", "rating": "{:.2f}", "citations": "{:.2f}×"}
_HEADINGS = {"acceptance": "Accepted", "rating": "Mean rating", "citations": "Citations for their year"}


def confidential(record: dict | None) -> bool:
    """Whether the page shows decisions or ratings (and so must say so on screen and on print)."""
    return any(row["measure"] in CONFIDENTIAL for row in shown_rows(record))


def findings(record: dict | None, fragile: bool = True) -> list[str]:
    """The significant findings the page may show, robust first (``papertopics.robustness``), then
    strongest first, in plain sentences with how often each held; ``fragile``: the fragile ones too.
    """
    found = [row for row in shown_rows(record) if row["evidence"] == "significant"]
    ordered = sorted(found, key=lambda row: (robustness_rank(row), row["q_value"], row["topic"]))
    return [
        with_holds(finding_sentence(row), row)
        for row in ordered
        if fragile or row.get("robustness") != FRAGILE
    ]


def brief_lines(record: dict | None) -> list[str]:
    """The brief's reception lines: at most two significant findings, robust first, none fragile."""
    return findings(record, fragile=False)[:BRIEF_LINES]


def _measure_name(row: dict) -> str:
    return f"Share {row['outcome']}" if row["measure"] == "outcome" else _HEADINGS[row["measure"]]


def _value_cells(row: dict | None) -> list[str]:
    if row is None or row["value"] is None:
        return [table_cell(""), table_cell("")]
    shown = _FORMAT[row["measure"]].format
    interval = f" ({shown(row['low'])}–{shown(row['high'])})" if row["low"] is not None else ""
    evidence = (
        "" if row["evidence"] in ("no evidence", "not tested") else f" {row['evidence']}, {row['direction']}"
    )
    rest = f"{shown(row['rest'])}" if row["rest"] is not None else ""
    return [
        table_cell(f"{shown(row['value'])}{interval}{evidence}", row["value"]),
        table_cell(rest, row["rest"]),
    ]


def _measures(rows: list[dict]) -> list[tuple[str, str]]:
    return list(dict.fromkeys((row["measure"], row["outcome"]) for row in rows))


def card_blocks(record: dict | None) -> dict[int, Markup]:
    """Each topic's reception for its card: every measure with its interval, the rest's value and
    the evidence, one line each.
    """
    lines: dict[int, list[str]] = {}
    for row in shown_rows(record):
        if row["value"] is None:
            continue
        shown = _FORMAT[row["measure"]].format
        interval = f" ({shown(row['low'])}–{shown(row['high'])})" if row["low"] is not None else ""
        rest = f", against {shown(row['rest'])} elsewhere" if row["rest"] is not None else ""
        extra = ""
        if row["measure"] == "rating" and row["median"] is not None:
            extra = f"; median {row['median']:.2f}"
            if row["spread"] is not None:
                extra += f"; its reviewers' ratings spread {row['spread']:.2f} (elsewhere {row['rest_spread']:.2f})"
        text = f"{_measure_name(row)}: {shown(row['value'])}{interval}{rest}{extra} — {row['evidence']}"
        lines.setdefault(row["topic"], []).append(text)
    return {topic: render("sections/reception_card.html", lines=texts) for topic, texts in lines.items()}


def reception_table(rows: list[dict]) -> Markup:
    """One row per topic: papers, then per measure its value with interval and evidence, and the rest's."""
    measures = _measures(rows)
    by_key = {(row["topic"], row["measure"], row["outcome"]): row for row in rows}
    header = ["Topic", "Papers"]
    for measure, outcome in measures:
        name = _measure_name({"measure": measure, "outcome": outcome})
        header += [name, f"{name}, elsewhere"]
    rating = [row for row in rows if row["measure"] == "rating"]
    if rating:
        header += ["Median rating", "Reviewers' spread"]
    body = []
    for topic, label in dict.fromkeys((row["topic"], row["label"]) for row in rows):
        topic_rows = [by_key.get((topic, m, o)) for m, o in measures]
        papers = max(row["papers"] for row in topic_rows if row)
        cells = [table_cell(f"{topic}: {label}", topic), table_cell(papers, papers)]
        for row in topic_rows:
            cells += _value_cells(row)
        if rating:
            row = by_key.get((topic, "rating", ""))
            median = "" if not row or row["median"] is None else f"{row['median']:.2f}"
            spread = "" if not row or row["spread"] is None else f"{row['spread']:.2f}"
            cells += [table_cell(median, row and row["median"]), table_cell(spread, row and row["spread"])]
        body.append((topic, cells))
    numeric = set(range(1, len(header)))
    return sortable_table("reception-table", header, numeric, body)


# The measures drawn as forest plots, one figure each where the record has it.
FOREST_MEASURES = ("acceptance", "rating", "citations")


def forest_plots(rows: list[dict]) -> list[dict]:
    """A forest plot per measure present (:data:`FOREST_MEASURES`) with some topic tested: its
    heading, figure id and figure block.
    """
    plots = []
    for measure in FOREST_MEASURES:
        if forest_rows(rows, measure):
            figure_id = f"reception-forest-{measure}"
            plots.append(
                {
                    "heading": _HEADINGS[measure],
                    "id": figure_id,
                    "figure": figure_block(figure_id, forest_plot(rows, measure)),
                }
            )
    return plots


def _changes(record: dict) -> list[str]:
    """The changes across the years in words, each with how often it held (where replicates were drawn)."""
    sentences = record.get("changes", [])
    held = record.get("change_held") or [{}] * len(sentences)
    return [with_holds(sentence, row) for sentence, row in zip(sentences, held, strict=True)]


def reception_section(record: dict | None) -> Markup:
    """The Reception section, or nothing where the papers carry no decision, rating or citation."""
    rows = shown_rows(record)
    if not rows:
        return Markup()
    given = record["given"]
    return render(
        "sections/reception.html",
        confidential=confidential(record),
        given=given,
        papers=record["papers"],
        findings=findings(record),
        # A change of decisions across the years is itself a finding about decisions.
        changes=_changes(record) if record.get("in_report", True) else [],
        notes=record["notes"],
        accepted=", ".join(record["accepted"]),
        table=reception_table(rows),
        forests=forest_plots(rows),
        marks=MARKS,
        tested_apart=not record.get("in_report", True),
    )
