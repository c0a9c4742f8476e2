"""Trends and bursts over the periods: each topic's trend in share (with its shape and its
recent direction, ``papertopics.changes.trajectories``) and the keyphrases that burst, each
with the topics that hold most of its papers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from papertopics.changes.bursts import (
    Burst,
    TermCounts,
    detect_bursts,
    term_counts,
    topic_concentration,
    without_nested,
)
from papertopics.changes.shares import TESTED_ON
from papertopics.changes.tables import json_records, json_value
from papertopics.changes.trajectories import topic_shapes
from papertopics.changes.trends import cochran_armitage, direction, period_scores
from papertopics.mapping.cluster import OUTLIER
from papertopics.periods.assign import Periods
from papertopics.stats import SIGNIFICANT, benjamini_hochberg, grade

if TYPE_CHECKING:
    from papertopics.settings import CompareSettings

# Topics listed with a bursting term: those holding most of its papers in the burst.
_BURST_TOPICS = 3


def unordered_reason(by: str) -> str:
    """Why no trend is tested over groups that have no order (``compare.by`` a field such as venue)."""
    return (
        f"compare.by is {by!r}, whose groups have no order, so no trend, burst or newest-against-previous "
        f"test runs over them; the Venues section compares them. Set compare.by to [{by}, year] for trends "
        "over years."
    )


TREND_TEST = (
    "Cochran-Armitage test for trend in proportions per topic (score: the year, or the dump's place), "
    "Benjamini-Hochberg across topics"
)


def topic_trends(shares: pd.DataFrame, by: str, tested: list[str], settings: CompareSettings) -> dict:
    """Each topic's trend in share across the ``tested`` periods (3 or more), strongest evidence
    first, or why there is none.
    """
    if len(tested) < 3:
        return {
            "available": False,
            "reason": f"a trend needs 3 or more {by}s with {settings.min_period_papers} papers or more; "
            f"there {'is' if len(tested) == 1 else 'are'} {len(tested)}",
        }
    real = shares[(shares["topic"] != OUTLIER) & shares["period"].isin(tested)]
    if real.empty:
        return {
            "available": False,
            "reason": "no topic was found: every paper fits none, so no share can move",
        }
    counts = real.pivot(index="topic", columns="period", values="papers")[tested]
    clustered = real.pivot(index="topic", columns="period", values="clustered_papers")[tested]
    totals = real.groupby("period")["period_papers"].first()[tested].to_numpy()
    scores = period_scores(tested, by)
    test = cochran_armitage(clustered.to_numpy(), totals, scores, settings.confidence)
    q_values = benjamini_hochberg(test.p_value)
    graded = grade(q_values, settings.false_discovery_rate, settings.suggestive_q)
    labels = real.groupby("topic")["label"].first()
    table = pd.DataFrame(
        {
            "topic": counts.index.to_numpy(),
            "label": labels[counts.index].to_numpy(),
            "direction": direction(test.slope, graded),
            "grade": graded,
            "slope_pp": 100 * test.slope,
            "slope_low_pp": 100 * test.slope_low,
            "slope_high_pp": 100 * test.slope_high,
            "p_value": test.p_value,
            "q_value": q_values,
        }
    )
    # The move over the whole span (the slope times the span), the size findings are ranked by.
    span = 100 * (scores[-1] - scores[0])
    table["move_pp"], table["move_low_pp"] = test.slope * span, test.slope_low * span
    table["move_high_pp"] = test.slope_high * span
    table["finding"] = (graded == SIGNIFICANT) & (np.abs(table["move_pp"]) >= settings.min_effect_points)
    shapes = topic_shapes(clustered.to_numpy(), totals, scores, tested, test, q_values, settings)
    for column, values in shapes["columns"].items():
        table[column] = values
    recent = recent_trend(clustered.to_numpy(), totals, scores, tested, settings)
    for column, values in (recent or {"columns": {}})["columns"].items():
        table[column] = values
    table["papers"] = counts.astype(int).to_numpy().tolist()
    table["clustered_papers"] = clustered.astype(int).to_numpy().tolist()
    table["share"] = (counts.to_numpy() / totals).round(6).tolist()
    table["clustered_share"] = (clustered.to_numpy() / totals).round(6).tolist()
    table = table.assign(evidence=test.p_value, size=-np.abs(test.slope)).sort_values(
        ["evidence", "size", "topic"], kind="stable"
    )
    return {
        "available": True,
        "test": TREND_TEST,
        "shape_test": shapes["test"],
        "min_effect_points": settings.min_effect_points,
        "recent_periods": recent["periods"] if recent else None,
        "tested_on": TESTED_ON,
        "periods": tested,
        "period_papers": totals.astype(int).tolist(),
        "unit": "year" if by == "year" else by,
        "topics": json_records(table.drop(columns=["evidence", "size"])),
    }


def recent_trend(clustered, totals, scores, periods: list[str], settings) -> dict | None:
    """The Cochran-Armitage trend of the last ``settings.recent_periods`` periods on their own,
    Benjamini-Hochberg across topics; None where the series is not longer than that by 3.
    """
    last = settings.recent_periods
    if last < 3 or len(periods) < last + 3:
        return None
    window = slice(len(periods) - last, None)
    test = cochran_armitage(
        np.asarray(clustered)[:, window], np.asarray(totals)[window], scores[window], settings.confidence
    )
    q_values = benjamini_hochberg(test.p_value)
    graded = grade(q_values, settings.false_discovery_rate, settings.suggestive_q)
    span = 100 * (scores[-1] - scores[window][0])
    moving = np.abs(test.slope * span) >= settings.min_effect_points
    return {
        "periods": periods[window],
        "columns": {
            "recent_direction": list(direction(np.where(moving, test.slope, 0.0), graded)),
            "recent_grade": list(graded),
            "recent_move_pp": list(test.slope * span),
            "recent_move_low_pp": list(test.slope_low * span),
            "recent_move_high_pp": list(test.slope_high * span),
            "recent_q": list(q_values),
        },
    }


def _holds_phrase(term: str, phrases: set[str]) -> bool:
    """Whether some run of ``term``'s words is one of ``phrases``."""
    words = term.split()
    return any(
        " ".join(words[i:j]) in phrases for i in range(len(words)) for j in range(i + 1, len(words) + 1)
    )


def term_bursts(
    texts: list[str],
    papers: pd.DataFrame,
    periods: Periods,
    tested: list[str],
    labels: dict[int, str],
    settings: CompareSettings,
    stop_words: str | None,
) -> dict:
    """The keyphrases that burst in some of the ``tested`` periods, strongest first, each with
    the topics that hold most of its papers there; or why there are none.
    """
    if len(tested) < 3:
        return {
            "available": False,
            "reason": f"bursts need 3 or more {periods.by}s with {settings.min_period_papers} papers or more; "
            f"there {'is' if len(tested) == 1 else 'are'} {len(tested)}",
        }
    in_tests = np.isin(periods.period, tested)
    found = term_counts(
        texts, periods.rows[in_tests], periods.period[in_tests], tested, stop_words, settings.burst_min_papers
    )
    candidates, stop_phrases = _burst_candidates(found, papers["topic"].to_numpy(), settings)
    kept = without_nested(
        detect_bursts(
            found.counts[candidates],
            found.totals,
            settings.burst_scaling,
            settings.burst_transition_cost,
            settings.false_discovery_rate,
        ),
        found.terms[candidates],
    )
    spans = _BurstSpans(found, periods, tested, papers["topic"].to_numpy(), labels)
    records = [spans.record(replace(burst, term=int(candidates[burst.term])), q) for burst, q in kept]
    _mark_shown(records, settings.bursts_shown)
    by_share = found.counts[stop_phrases].sum(axis=1)
    return {
        "available": True,
        "stop_share": settings.burst_stop_share,
        "stop_phrases": len(stop_phrases),
        "stop_phrase_examples": [
            str(found.terms[i]) for i in stop_phrases[np.argsort(-by_share, kind="stable")][:20]
        ],
        "shown_per_period": settings.bursts_shown,
        "model": "Kleinberg's two-state burst model per keyphrase (1-3 words), each burst tested against "
        "the other periods (Bonferroni over the spans, Benjamini-Hochberg across terms)",
        "periods": tested,
        "period_papers": found.totals.astype(int).tolist(),
        "scaling": settings.burst_scaling,
        "transition_cost": settings.burst_transition_cost,
        "min_papers": settings.burst_min_papers,
        "min_concentration": settings.burst_min_concentration,
        "terms_counted": len(found.terms),
        "terms_tested": len(candidates),
        "bursts": [{key: json_value(value) for key, value in r.items()} for r in records],
    }


def _burst_candidates(
    found: TermCounts, topic_of: np.ndarray, settings: CompareSettings
) -> tuple[np.ndarray, np.ndarray]:
    """The terms whose bursts are tested (indices into ``found.terms``) and the corpus's stop-phrases."""
    if not len(found.terms):
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    # Only terms that gather in some topics: the period's style of writing is not a research trend.
    topical = topic_concentration(found.holds, topic_of) >= settings.burst_min_concentration
    # Nor the corpus's own stop-phrases: terms in every period and in a large share of all the
    # papers ("network" in a neural-network venue, "datasets", "state art") are how the corpus
    # writes, whatever their spread over topics.
    everywhere = (found.counts > 0).all(axis=1)
    common = found.counts.sum(axis=1) / max(int(found.totals.sum()), 1) >= settings.burst_stop_share
    stop_phrases = np.flatnonzero(everywhere & common)
    topical[stop_phrases] = False
    # A longer phrase around a stop-phrase of two words or more ("state art diffusion") is no more
    # readable as a trend; one around a common word ("language models" around "models") may be.
    stops = {str(found.terms[i]) for i in stop_phrases if " " in str(found.terms[i])}
    if stops:
        topical &= np.array([not _holds_phrase(str(term), stops) for term in found.terms], dtype=bool)
    return np.flatnonzero(topical), stop_phrases


@dataclass(frozen=True)
class _BurstSpans:
    """The counts a burst is described from: the terms counted in the tested periods, the papers'
    periods and topics, and the topics' labels.
    """

    found: TermCounts
    periods: Periods
    tested: list[str]
    topic_of: np.ndarray
    labels: dict[int, str]

    @cached_property
    def _tested_place(self) -> np.ndarray:
        """Each (paper, period) pair's period as an index into ``tested`` (-1: not tested)."""
        place = {name: index for index, name in enumerate(self.tested)}
        return np.array([place.get(name, -1) for name in self.periods.period.tolist()], dtype=np.int64)

    @cached_property
    def _holders(self):
        """``found.holds`` by term: each term's column lists the papers holding it."""
        return self.found.holds.tocsc()

    def record(self, burst: Burst, q: float) -> dict:
        """One burst: its span, strength, papers in and out of it, and the topics holding most of them."""
        found = self.found
        span = self.tested[burst.start : burst.end + 1]
        inside = (self._tested_place >= burst.start) & (self._tested_place <= burst.end)
        rows = np.unique(self.periods.rows[inside])
        by_term = self._holders
        holders = np.intersect1d(
            rows, by_term.indices[by_term.indptr[burst.term] : by_term.indptr[burst.term + 1]]
        )
        span_papers = int(found.totals[burst.start : burst.end + 1].sum())
        papers_in_span = int(found.counts[burst.term, burst.start : burst.end + 1].sum())
        elsewhere = int(found.counts[burst.term].sum()) - papers_in_span
        topics, held = np.unique(self.topic_of[holders], return_counts=True)
        order = np.lexsort((topics, -held))
        return {
            "term": str(found.terms[burst.term]),
            "start": span[0],
            "end": span[-1],
            "periods": span,
            "strength": round(burst.strength, 3),
            "q_value": q,
            "papers": found.counts[burst.term].astype(int).tolist(),
            "papers_in_span": papers_in_span,
            "share_in_span": papers_in_span / span_papers,
            "share_elsewhere": elsewhere / max(int(found.totals.sum()) - span_papers, 1),
            "topics": [
                {"topic": int(t), "label": self.labels.get(int(t), ""), "papers": int(n)}
                for t, n in zip(topics[order], held[order], strict=True)
                if t != OUTLIER
            ][:_BURST_TOPICS],
        }


def leading_topic(burst: dict) -> int:
    """The topic holding most of a burst's papers (a record of ``term_bursts``), ``OUTLIER``
    where none of them is in a topic: what a burst is a finding about.
    """
    return int(burst["topics"][0]["topic"]) if burst["topics"] else OUTLIER


def _mark_shown(records: list[dict], shown_per_period: int) -> None:
    """Rank the bursts by strength times papers in the burst (a strong burst of four papers reads
    as noise) and mark those the report shows: each period its first ``shown_per_period``, the
    rest are in bursts.csv.
    """
    records.sort(key=lambda r: (-r["strength"] * r["papers_in_span"], r["term"]))
    shown_in: dict[str, int] = {}
    for record in records:
        record["rank_score"] = round(record["strength"] * record["papers_in_span"], 3)
        record["shown"] = all(shown_in.get(p, 0) < shown_per_period for p in record["periods"])
        if record["shown"]:
            for period in record["periods"]:
                shown_in[period] = shown_in.get(period, 0) + 1
