"""The brief at the top of the report, for a reader with one screen to spare: what the papers are,
their largest themes, what changed in plain sentences (strongest evidence first, each with its
shares and counts; the test, q-value and interval a hover or, printed, a footnote away), the terms
that burst, and what a reader must know about the input.

Everything here is read from the stages' outputs as they are; the sentences come from the changes
stage's record (``changes.json``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from markupsafe import Markup

from papertopics.changes.signals import leading_topic
from papertopics.changes.trends import FALLING, RISING
from papertopics.mapping.cluster import OUTLIER
from papertopics.report.brief_corpus import counts_line, largest_themes, plain_name, reader_notes
from papertopics.report.colours import colour_of
from papertopics.report.inputs import ReportInputs
from papertopics.report.largest_moves import largest_moves, within_chance_note
from papertopics.report.reception_section import brief_lines, confidential
from papertopics.report.render import render
from papertopics.report.sparkline import counts_phrase, counts_text, share_sparkline
from papertopics.report.stability_marks import fragile_note, robustness_rank, shape_held, with_holds
from papertopics.report.trajectories import ranked_findings, recent_phrase, shape_phrase, size
from papertopics.report.trends_subsection import slope_text
from papertopics.report.venue_trends_subsection import brief_line as venue_trend_line
from papertopics.report.venues_section import venue_lines, venues_fragile, venues_none_found
from papertopics.robustness.findings import FRAGILE
from papertopics.stats import SIGNIFICANT, SUGGESTIVE

_FINDINGS = 5
_LEADS = 2  # suggestive findings shown where fewer than _ENOUGH_SIGNIFICANT are significant
_ENOUGH_SIGNIFICANT = 3
_BURSTS = 6


# ---------------------------------------------------------------- what changed, in sentences


@dataclass(frozen=True)
class Movement:
    """A topic's clustered papers (the figures the tests ran on) and their share in each period of
    a finding, each period's papers, and the topic's papers with the outliers assigned to it.
    """

    papers: list[int]
    shares: list[float]
    totals: list[int]
    with_assigned: list[int]

    def counts(self) -> list[str]:
        """Each period's count as "n of N"."""
        return counts_text(self.papers, self.totals)


def trend_movement(row: dict, trends: dict) -> Movement:
    """A trend's every tested period (``row``: one of ``changes.json``'s ``trends.topics``).
    The one place the brief reads a trend's counts from.
    """
    return Movement(row["clustered_papers"], row["clustered_share"], trends["period_papers"], row["papers"])


def step_movement(row: dict) -> Movement:
    """The baseline and target of a pairwise comparison (``row``: one of ``changes.json``'s
    ``comparison``). The one place the brief reads a comparison's counts from.
    """
    return Movement(
        [row["baseline_clustered_papers"], row["target_clustered_papers"]],
        [row["baseline_clustered_share"], row["target_clustered_share"]],
        [row["baseline_period_papers"], row["target_period_papers"]],
        [row["baseline_papers"], row["target_papers"]],
    )


@dataclass(frozen=True)
class Finding:
    """One sentence of the brief: its subject (a topic's name, a term) and the rest, the evidence
    behind it (shown on hover and printed as a footnote), and what it links to.
    """

    subject: str
    rest: str
    evidence: str
    link: str
    sparkline: Markup = Markup("")

    @property
    def sentence(self) -> str:
        """The finding as one plain sentence."""
        return self.subject + self.rest


def _percent(share: float) -> str:
    return f"{100 * share:.1f}%"


def movement_text(direction: str, grade: str, moved: Movement) -> str:
    """The rest of a sentence after the topic's name: "rose from 0.7% to 5.0% of papers (3 → 38)"
    where the evidence is significant, "may be rising: ..." where it is only suggestive; the counts
    are the clustered papers the test ran on, then, where they differ, those with the outliers
    assigned to the topic.
    """
    shares = f"{_percent(moved.shares[0])} to {_percent(moved.shares[-1])} of papers"
    ends = [moved.papers[0], moved.papers[-1]]
    counts = f"({counts_phrase(ends, [moved.with_assigned[0], moved.with_assigned[-1]])})"
    if grade == SIGNIFICANT:
        verb = "rose" if direction == RISING else "fell"
        return f" {verb} from {shares} {counts}."
    verb = "rising" if direction == RISING else "falling"
    return f" may be {verb}: from {shares} {counts}, a lead worth a look."


def _trend_evidence(row: dict, moved: Movement, trends: dict, changes: dict, period_label) -> str:
    counts = " → ".join(moved.counts())
    periods = f"{period_label(trends['periods'][0])} to {period_label(trends['periods'][-1])}"
    movement = "rise" if row["direction"] == RISING else "fall"
    below = changes["false_discovery_rate"] if row["grade"] == SIGNIFICANT else changes["suggestive_q"]
    return (
        f"Steady {movement} over {periods}: Cochran–Armitage trend test, q = {row['q_value']:.2g} "
        f"(Benjamini–Hochberg across {len(trends['topics'])} topics; {row['grade']}: below {below:g}); "
        f"{slope_text(row, trends['unit'])}, {round(100 * changes['confidence'])}% interval; clustered papers {counts}."
    )


def _step_evidence(row: dict, moved: Movement, changes: dict, period_label) -> str:
    before, after = period_label(changes["baseline"]), period_label(changes["target"])
    return (
        f"{after} against {before}: Fisher's exact test, q = {row['q_value']:.2g} (Benjamini–Hochberg "
        f"across {len(changes['comparison'])} topics); change {row['change_pp']:+.1f} points "
        f"({round(100 * changes['confidence'])}% interval {row['change_low_pp']:+.1f} to "
        f"{row['change_high_pp']:+.1f}); clustered papers {' → '.join(moved.counts())}."
    )


def _chosen(rows: list[dict]) -> list[dict]:
    """The rows to tell, strongest evidence first (as ``rows`` come): the significant ones, and
    where few are, a couple of suggestive leads.
    """
    significant = [r for r in rows if r["grade"] == SIGNIFICANT][:_FINDINGS]
    leads = [r for r in rows if r["grade"] == SUGGESTIVE]
    return significant + (leads[:_LEADS] if len(significant) < _ENOUGH_SIGNIFICANT else [])


def _shape_evidence(row: dict, moved: Movement, trends: dict, changes: dict, period_label) -> str:
    counts = " → ".join(moved.counts())
    periods = f"{period_label(trends['periods'][0])} to {period_label(trends['periods'][-1])}"
    trend = (
        f"Cochran–Armitage over {periods}: {slope_text(row, trends['unit'])}, q = {row['q_value']:.2g} "
        f"({row['grade']})"
    )
    if trends.get("shape_test", "").startswith("too few"):
        return f"{trend}; clustered papers {counts}."
    return (
        f"Trajectory {row['shape']}: fitted piecewise-linear curve, permutation test of the "
        f"{changes['by']}s' order, q = {row['shape_q']:.2g} (Benjamini–Hochberg across {len(trends['topics'])} "
        f"topics); {trend}; clustered papers {counts}."
    )


def trend_findings(changes: dict, period_label, colours: dict[int, str]) -> list[Finding]:
    """Sentences from the trajectories over every tested period, largest move first (a move
    under ``compare.min_effect_points`` is no finding, however small its q); where few are
    found, a couple of suggestive trends as leads.
    """
    trends = changes["trends"]
    periods = [period_label(p) for p in trends["periods"]]
    # Each trajectory told graded by how often its shape held (its trend's grade where none was re-tested).
    found = [shape_held(r) for r in ranked_findings(trends["topics"])]
    shaped_topics = {r["topic"] for r in found}
    # Robust findings first (each grade's largest move first); a fragile one is left to What changed.
    told = [r for r in sorted(found, key=robustness_rank) if r.get("robustness") != FRAGILE][:_FINDINGS]
    if len(found) < _ENOUGH_SIGNIFICANT:
        minimum = trends.get("min_effect_points", 0.0)
        leads = [
            r
            for r in trends["topics"]
            if r["grade"] == SUGGESTIVE
            and r["topic"] not in shaped_topics
            and abs(r.get("move_pp") or 0) >= minimum
        ]
        told += sorted(leads, key=lambda r: (-size(r), r["topic"]))[:_LEADS]
    unit = changes["by"]
    findings = []
    for row in told:
        moved = trend_movement(row, trends)
        colour = colour_of(colours, int(row["topic"]))
        shaped = row["topic"] in shaped_topics
        rest = (
            shape_phrase(row, trends, period_label) + recent_phrase(row, trends, period_label, unit) + "."
            if shaped
            else movement_text(row["direction"], row["grade"], moved)
        )
        evidence = (
            _shape_evidence(row, moved, trends, changes, period_label)
            if shaped and not trends.get("shape_test", "").startswith("too few")
            else _trend_evidence(row, moved, trends, changes, period_label)
        )
        findings.append(
            Finding(
                subject=plain_name(row["label"]),
                rest=with_holds(rest, row),
                evidence=evidence,
                link=f"#topic-{int(row['topic'])}",
                sparkline=Markup(share_sparkline(moved.shares, periods, moved.counts(), colour)),
            )
        )
    return findings


def step_findings(changes: dict, period_label) -> list[Finding]:
    """Sentences from the newest period against the one before, strongest evidence first: robust
    changes first, a fragile one left to What changed.
    """
    minimum = changes.get("min_effect_points", 0.0)
    rows = sorted(
        (r for r in changes["comparison"] if r["q_value"] is not None and abs(r["change_pp"]) >= minimum),
        key=lambda r: (robustness_rank(r), -abs(r["change_pp"]), r["topic"]),
    )
    findings = []
    for row in _chosen([r for r in rows if r.get("robustness") != FRAGILE]):
        moved = step_movement(row)
        rest = movement_text(RISING if row["change_pp"] > 0 else FALLING, row["grade"], moved)
        findings.append(
            Finding(
                subject=plain_name(row["label"]),
                rest=with_holds(rest, row),
                evidence=_step_evidence(row, moved, changes, period_label),
                link=f"#topic-{int(row['topic'])}",
            )
        )
    return findings


@dataclass(frozen=True)
class WhatChanged:
    """The brief's account of what changed: its heading, its sentences, and what to say where
    there are none.
    """

    heading: str
    findings: list[Finding]
    none_found: str | None
    more: str | None = None  # the significant changes left out, where some are
    largest: tuple[Finding, ...] = ()  # where no change is significant, the largest moves
    largest_note: str | None = None


def _with_largest(changed: WhatChanged, changes: dict) -> WhatChanged:
    """``changed`` with the largest moves (``largest_moves``) where no change is significant,
    less the topics its sentences already tell (a suggestive lead).
    """
    told = {finding.link for finding in changed.findings}
    moves = [move for move in largest_moves(changes) if f"#topic-{move.topic}" not in told]
    if not moves:
        return changed
    largest = tuple(
        Finding(plain_name(move.label), f": {move.text}.", move.evidence, f"#topic-{move.topic}")
        for move in moves
    )
    return replace(changed, largest=largest, largest_note=within_chance_note(moves))


def _more_text(found: list[dict]) -> str | None:
    """What the brief leaves to What changed of the significant changes ``found``: those past the
    ``_FINDINGS`` it tells, and the fragile ones (it tells none of those).
    """
    left = len(found) - sum(r.get("robustness") == FRAGILE for r in found) - _FINDINGS
    parts = [
        f"{left} more significant {'change' if left == 1 else 'changes'} under What changed."
        if left > 0
        else "",
        fragile_note(found, "What changed") or "",
    ]
    return " ".join(part for part in parts if part) or None


def what_changed(changes: dict, period_label, colours: dict[int, str]) -> WhatChanged:
    """The trends over every period where there are three or more to test, else the newest
    period against the one before; or why nothing can be said.
    """
    by = changes["by"]
    if len(changes["periods"]) < 2:
        return WhatChanged("What changed", [], f"One {by} only: nothing to compare yet.")
    trends = changes["trends"]
    if trends["available"]:
        span = f"{period_label(trends['periods'][0])} to {period_label(trends['periods'][-1])}"
        findings = trend_findings(changes, period_label, colours)
        none = f"No topic's share rose or fell beyond what chance explains from {span}."
        more = _more_text([shape_held(r) for r in ranked_findings(trends["topics"])])
        return _with_largest(
            WhatChanged(f"What changed, {span}", findings, None if findings else none, more), changes
        )
    span = f"{period_label(changes['baseline'])} to {period_label(changes['target'])}"
    if not changes["tested"]:
        small = [
            period_label(p) for p in (changes["baseline"], changes["target"]) if p in changes["small_periods"]
        ]
        return WhatChanged(
            f"What changed, {span}",
            [],
            f"Not tested: {' and '.join(small)} {'has' if len(small) == 1 else 'have'} fewer than "
            f"{changes['min_period_papers']} papers, too few to test; the shares are under What changed.",
        )
    findings = step_findings(changes, period_label)
    none = f"No topic's share changed beyond what chance explains from {span}."
    more = _more_text([r for r in changes["comparison"] if r["grade"] == SIGNIFICANT])
    return _with_largest(
        WhatChanged(f"What changed, {span}", findings, None if findings else none, more), changes
    )


def _told_bursts(changes: dict) -> list[dict]:
    """The bursts the brief names: strongest first (robust before the rest, none fragile), one of
    the terms that share a word ("large language models", "language models llms": the strongest,
    which comes first), at most ``_BURSTS``.
    """
    record = changes["bursts"]
    if not record["available"]:
        return []
    told: list[dict] = []
    shown_words: set[str] = set()
    for burst in sorted(record["bursts"], key=robustness_rank):
        words = {word.removesuffix("s") for word in burst["term"].split()}
        if burst.get("robustness") == FRAGILE or words & shown_words:
            continue
        shown_words |= words
        told.append(burst)
    return told[:_BURSTS]


def bursts_grade(told: list[dict]) -> str | None:
    """Where every burst the brief names has one grade, that grade and how often they held, said
    once ("robust: each holds in 8 to 10 of 10 resamples"); None where the grades differ or no
    replicate was drawn (each burst then says its own).
    """
    if not told or not told[0].get("replicates") or len({b.get("robustness") for b in told}) != 1:
        return None
    held = sorted(int(b["holds"]) for b in told)
    times = f"{held[0]}" if held[0] == held[-1] else f"{held[0]} to {held[-1]}"
    each = "each holds" if len(told) > 1 else "holds"
    return f"{told[0]['robustness']}: {each} in {times} of {told[0]['replicates']} resamples"


def burst_findings(changes: dict, period_label) -> list[Finding]:
    """The terms that burst (``_told_bursts``), each with its span and evidence, and how often it
    held where ``bursts_grade`` does not say it for all.
    """
    told = _told_bursts(changes)
    said_once = bursts_grade(told) is not None
    findings = []
    for burst in told:
        first, last = period_label(burst["start"]), period_label(burst["end"])
        span = first if first == last else f"{first}–{last}"
        top = leading_topic(burst)
        findings.append(
            Finding(
                subject=f"“{burst['term']}”",
                rest=f" ({span})" if said_once else with_holds(f" ({span})", burst),
                evidence=(
                    f"In {100 * burst['share_in_span']:.1f}% of the papers of {span} ({burst['papers_in_span']} "
                    f"papers), {100 * burst['share_elsewhere']:.1f}% elsewhere; Kleinberg burst strength "
                    f"{burst['strength']:.1f}, q = {burst['q_value']:.2g}."
                ),
                link=f"#topic-{top}" if top != OUTLIER else "#changes",
            )
        )
    return findings


# ---------------------------------------------------------------- the section


def brief_section(inputs: ReportInputs, period_label, colours: dict[int, str]) -> Markup:
    """The brief: counts, largest themes, what changed, bursting terms and the notes on the input."""
    changes = inputs.changes
    ordered = bool(changes) and changes.get("ordered", True)
    changed = what_changed(changes, period_label, colours) if ordered else None
    findings = changed.findings if changed else []
    bursts = burst_findings(changes, period_label) if ordered else []
    # The bursts it names none of, counted as the fragile changes are.
    fragile_bursts = fragile_note(changes["bursts"].get("bursts", []), "What changed") if ordered else None
    return render(
        "brief.html",
        counts=counts_line(inputs, period_label),
        themes=largest_themes(inputs),
        changed=changed,
        findings=findings,
        bursts=bursts,
        bursts_grade=bursts_grade(_told_bursts(changes)) if ordered else None,
        bursts_fragile=fragile_bursts,
        notes=reader_notes(inputs, period_label),
        venues=venue_lines(inputs.venues),
        venues_none=venues_none_found(inputs.venues),
        venues_fragile=venues_fragile(inputs.venues),
        venue_trend=venue_trend_line(inputs.venues),
        reception=brief_lines(inputs.reception),
        reception_confidential=confidential(inputs.reception),
    )
