"""Terms that burst: keyphrases whose share jumped in some periods, with the topics holding them."""

from __future__ import annotations

from markupsafe import Markup

from papertopics.changes.signals import leading_topic
from papertopics.report.render import macro, render
from papertopics.report.stability_marks import held_mark
from papertopics.report.topic_table import sortable_table, table_cell


def _span(burst: dict, period_label) -> str:
    first, last = period_label(burst["start"]), period_label(burst["end"])
    return first if first == last else f"{first} to {last}"


def _topics_cell(burst: dict) -> Markup:
    """The topics holding the term, each a link to its card, with its papers in the burst, and
    how often the leading one held in the resamples (red where fragile).
    """
    topics = [(int(t["topic"]), t["label"], int(t["papers"])) for t in burst["topics"]]
    return macro("table.html", "topics_cell")(topics) + held_mark(burst)


def _table(table_id: str, bursts: list[dict], by: str, period_label) -> Markup:
    header = [
        "Term",
        f"Burst ({by}s)",
        "Strength",
        "Papers in the burst",
        "Share there / elsewhere",
        "Topics",
    ]
    rows = [
        (
            leading_topic(b),
            [
                table_cell(b["term"]),
                table_cell(_span(b, period_label)),
                table_cell(f"{b['strength']:.1f}", b["strength"]),
                table_cell(b["papers_in_span"], b["papers_in_span"]),
                table_cell(
                    f"{100 * b['share_in_span']:.1f}% / {100 * b['share_elsewhere']:.1f}%", b["share_in_span"]
                ),
                _topics_cell(b),
            ],
        )
        for b in bursts
    ]
    return sortable_table(table_id, header, {2, 3, 4}, rows)


def bursts_block(changes: dict, period_label) -> Markup:
    """The bursting terms: those bursting in the newest period, then the earlier bursts."""
    record = changes["bursts"]
    by = changes["by"]
    if not record["available"]:
        return render("sections/bursts.html", available=False, reason=record["reason"])
    newest = record["periods"][-1]
    # At most compare.bursts_shown per period, strongest × largest first; the rest in bursts.csv.
    shown = [b for b in record["bursts"] if b.get("shown", True)]
    now = [b for b in shown if b["end"] == newest]
    earlier = [b for b in shown if b["end"] != newest]
    summary = (
        f"Of the {record['terms_tested']} keyphrases (1 to 3 words) in {record['min_papers']} papers or more, "
        f"{len(record['bursts'])} burst: their share of the papers jumped in some {by}s (Kleinberg's burst "
        f"model, as CiteSpace uses it; strength is how much better the burst explains the counts), each "
        f"burst tested against the other {by}s at false discovery rate {changes['false_discovery_rate']:g}."
    )
    hidden = len(record["bursts"]) - len(shown)
    if hidden:
        summary += (
            f" Shown: up to {record['shown_per_period']} per {by}, ranked by strength times papers in the "
            f"burst; the other {hidden} are in results/topics/bursts.csv."
        )
    if record.get("stop_phrases"):
        examples = ", ".join(f"“{t}”" for t in record["stop_phrase_examples"][:8])
        summary += (
            f" {record['stop_phrases']} phrases in every {by} and in {100 * record['stop_share']:g}% of the papers "
            f"or more are how this corpus writes, not trends, and are not tested ({examples})."
        )
    return render(
        "sections/bursts.html",
        available=True,
        summary=summary,
        newest=period_label(newest),
        now=_table("bursts-now", now, by, period_label) if now else None,
        earlier=_table("bursts-earlier", earlier, by, period_label) if earlier else None,
    )
