"""The brief's lines about the corpus itself: its papers, periods and topics in one line, its
largest themes, and what a reader must know about the input (papers left out of the comparison,
periods too small to test, papers that fit no topic, the stages' notes).
"""

from __future__ import annotations

from dataclasses import dataclass

from papertopics.report.inputs import ReportInputs
from papertopics.report.overview import input_notes
from papertopics.report.title import year_span

_THEMES = 8


def plain_name(label: str) -> str:
    """A topic label as the start of a sentence: its first letter capitalised."""
    return label[:1].upper() + label[1:]


@dataclass(frozen=True)
class Theme:
    """One of the largest topics, with its share of the papers."""

    name: str
    share: float
    papers: int
    link: str

    @property
    def share_text(self) -> str:
        """The share as a reader takes it in at a glance: whole percents from 10%."""
        return f"{100 * self.share:.0f}%" if self.share >= 0.1 else f"{100 * self.share:.1f}%"


def largest_themes(inputs: ReportInputs) -> list[Theme]:
    """The largest topics with their share of the papers. Topics, not their groups: a group's
    name is that of its largest topics, and the largest group can hold half the papers.
    """
    topics = sorted(inputs.real_topics, key=lambda t: (-t["size"], t["topic"]))[:_THEMES]
    return [Theme(plain_name(t["label"]), t["share"], t["size"], f"#topic-{int(t['topic'])}") for t in topics]


def _periods_text(changes: dict | None, period_label) -> str:
    if not changes or not changes["periods"]:
        return ""
    names = changes["periods"]
    if changes["by"] == "year":
        return (
            f" from {len(names)} year{'s' if len(names) > 1 else ''} ({year_span([int(n) for n in names])})"
        )
    unit = "dump" if changes["by"] == "dump" else changes["by"]  # venues: "in 3 venues"
    return f" in {len(names)} {unit}{'s' if len(names) > 1 else ''}"


def counts_line(inputs: ReportInputs, period_label) -> str:
    """Papers, periods, topics and topic groups in one line."""
    n_topics = len(inputs.real_topics)
    groups = len(inputs.topic_groups or [])
    topics = f"{n_topics} topic{'s' if n_topics != 1 else ''}" + (f" in {groups} groups" if groups else "")
    periods = _periods_text(inputs.changes, period_label)
    if not periods:
        dumps = len(inputs.corpus_summary["dumps"])
        periods = f" in {dumps} dump{'s' if dumps > 1 else ''}"
    return f"{len(inputs.papers):,} papers{periods} · {topics}"


def reader_notes(inputs: ReportInputs, period_label) -> list[str]:
    """What a reader must know about the input: papers left out of the comparison, periods too
    small to test, papers that fit no topic, and the notes of the stages (``input_notes``).
    """
    notes = []
    changes = inputs.changes
    if changes:
        by = changes["by"]
        if changes["papers_without_period"]:
            notes.append(
                f"{changes['papers_without_period']:,} papers without a {by} are left out of what changed."
            )
        small = [period_label(p) for p in changes["small_periods"]]
        if small and len(small) < len(changes["periods"]):
            notes.append(
                f"{', '.join(small)} {'has' if len(small) == 1 else 'have'} fewer than "
                f"{changes['min_period_papers']} papers: shown, but left out of the tests."
            )
    outliers = int(inputs.papers["outlier"].sum())
    if outliers and inputs.real_topics:
        share = outliers / len(inputs.papers)
        counted = (
            "each is counted with its nearest topic"
            if inputs.topic_settings.get("reduce_outliers")
            else "they form the outlier group"
        )
        notes.append(f"{share:.0%} of the papers ({outliers:,}) fit no topic closely; {counted}.")
    return notes + input_notes(inputs)
