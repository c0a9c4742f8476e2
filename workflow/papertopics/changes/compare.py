"""What changed between dumps (or years): each topic's share with an interval, the change in
share between two of them with a test per topic, and the topics that are new or have faded.

Shares get Wilson score intervals; a change in share gets Newcombe's hybrid score interval
(built from the two Wilson intervals) and a two-sided Fisher exact test, with the
Benjamini–Hochberg correction across topics, so that a three-paper wobble in a small dump is
not called a trend. A paper in two dumps counts in both.

A topic's papers are counted twice: its *clustered* papers (HDBSCAN put them in the topic) and
all the papers it shows, the clustered ones and the outliers assigned to it for display (its
nearest centroid, ``topics.reduce_outliers``). The tests run on the clustered papers
(``TESTED_ON``): outliers are papers HDBSCAN found no dense region for, and counting them moves
a topic's share with whatever the outliers of a year happen to be near (see docs/changes.md).
Shares of either count are of all the period's papers, outliers included.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from papertopics.changes.shares import (
    TESTED_ON,
    compare_periods,
    dump_shares,
    pick_periods,
    share_series,
    target_weight,
)
from papertopics.changes.signals import term_bursts, topic_trends, unordered_reason
from papertopics.changes.tables import json_records
from papertopics.periods.assign import Periods
from papertopics.settings import CompareSettings
from papertopics.stats import NOT_TESTED, grade


@dataclass(frozen=True)
class _Examples:
    """The papers shown for a topic in one period: its representative papers there, else its first
    clustered ones (three at most).
    """

    papers: pd.DataFrame
    periods: Periods
    representatives: dict[int, list[str]]
    count: int = 3

    def of(self, topic: int, period: str) -> list[dict]:
        papers, periods = self.papers, self.periods
        in_period = set(papers["id"].to_numpy()[periods.rows[periods.period == period]].tolist())
        members = papers[(papers["topic"] == topic) & papers["id"].isin(in_period)]
        members = pd.concat([members[~members["outlier"]], members[members["outlier"]]])
        chosen = [i for i in self.representatives[topic] if i in set(members["id"])][: self.count]
        chosen += [i for i in members["id"] if i not in chosen][: self.count - len(chosen)]
        names = dict(zip(members["id"], members["display_name"], strict=True))
        return [{"id": i, "name": names[i]} for i in chosen]


def describe_changes(
    papers: pd.DataFrame,
    texts: list[str],
    topic_details: list[dict],
    lineage: dict,
    periods: Periods,
    settings: CompareSettings,
    stop_words: str | None,
) -> tuple[pd.DataFrame, dict]:
    """The per-dump share table (``dump_shares.csv``) and the comparison (``changes.json``).

    Args:
        papers: the topics stage's paper table (``id``, ``topic``, ``outlier`` as booleans,
            ``dumps``, ``display_name``, and ``year`` where the input had one).
        texts: each paper's text (title and abstract), in the order of ``papers``, for the terms.
        topic_details: the topics stage's topic records (label, representative papers).
        lineage: the topics stage's events since the previous run (``lineage.json``).
        periods: the papers' periods, in the order of ``papers`` (the periods stage's).
        settings: the ``compare`` knobs.
        stop_words: the stop-word list of the keyphrases that may burst (``topics.stop_words``).

    Returns:
        The share table and the comparison record: the trends over every period (``trends``),
        the terms that burst (``bursts``), the newest period against the one before (or the
        chosen two), new and faded topics, and the series of shares.
    """
    labels = {t["topic"]: t["label"] for t in topic_details}
    shares = dump_shares(papers, periods, labels, settings.confidence)
    period_papers = [int((periods.period == name).sum()) for name in periods.names]
    tested = [
        n for n, size in zip(periods.names, period_papers, strict=True) if size >= settings.min_period_papers
    ]
    record = {
        **_period_record(periods, period_papers, tested, settings),
        "since_previous_run": lineage,
        "series": share_series(shares, labels),
    }
    if not periods.ordered:
        # Venues (any groups without an order): no trend, burst or newest-against-previous over them.
        reason = unordered_reason(periods.by)
        absent = {"available": False, "reason": reason}
        return shares, {
            **record,
            "ordered": False,
            "trends": absent,
            "bursts": absent,
            "comparable": False,
            "reason": reason,
        }
    record["trends"] = topic_trends(shares, periods.by, tested, settings)
    record["bursts"] = term_bursts(texts, papers, periods, tested, labels, settings, stop_words)
    if len(periods.names) < 2:
        only = periods.names[0] if periods.names else "none"
        return shares, {
            **record,
            "comparable": False,
            "reason": f"only one {periods.by} ({only}): nothing to compare",
        }
    examples = _Examples(papers, periods, {t["topic"]: t["representative_ids"] for t in topic_details})
    return shares, {**record, **_newest_against_previous(shares, tested, periods, settings, examples)}


def _period_record(
    periods: Periods, period_papers: list[int], tested: list[str], settings: CompareSettings
) -> dict:
    """The comparison record's opening: the periods, their sizes and the tests' settings."""
    return {
        "by": periods.by,
        "periods": periods.names,
        "period_papers": period_papers,
        "papers_without_period": periods.left_out,
        "year_note": periods.note,
        "min_period_papers": settings.min_period_papers,
        "small_periods": [n for n in periods.names if n not in tested],
        "confidence": settings.confidence,
        "false_discovery_rate": settings.false_discovery_rate,
        "suggestive_q": settings.suggestive_q,
        "min_effect_points": settings.min_effect_points,
        "tested_on": TESTED_ON,
        # The report marks a topic's wording in a period with fewer of its papers as too few to read.
        "min_wording_papers": settings.min_wording_papers,
    }


def _newest_against_previous(
    shares: pd.DataFrame, tested: list[str], periods: Periods, settings: CompareSettings, examples: _Examples
) -> dict:
    """The two periods compared topic by topic (the two newest large enough to test, else, all too
    small, the two newest shown untested; or the chosen two), and the topics new and faded between them.
    """
    names, by = periods.names, periods.by
    before, after = pick_periods(names, tested, by, settings.baseline, settings.target) or pick_periods(
        names, names, by, settings.baseline, settings.target
    )
    comparison = compare_periods(shares, before, after, settings.confidence, settings.false_discovery_rate)
    comparison["grade"] = grade(comparison["q_value"], settings.false_discovery_rate, settings.suggestive_q)
    untested = [p for p in (before, after) if p not in tested]
    if untested:
        comparison = comparison.assign(p_value=np.nan, q_value=np.nan, significant=False, grade=NOT_TESTED)
    weight = target_weight(comparison)

    def listed(mask, period: str) -> list[dict]:
        return [
            {**row, "target_weight": round(float(w), 6), "examples": examples.of(row["topic"], period)}
            for row, w in zip(json_records(comparison[mask]), weight[mask], strict=True)
        ]

    return {
        "comparable": True,
        "baseline": before,
        "target": after,
        "tested": not untested,
        "test": "two-sided Fisher exact test per topic, Benjamini-Hochberg across topics",
        "tested_on": TESTED_ON,
        "thresholds": {
            "new_topic_share": settings.new_topic_share,
            "faded_topic_share": settings.faded_topic_share,
            "min_papers": settings.min_papers,
        },
        "comparison": json_records(comparison),
        "new_topics": listed(
            (weight >= settings.new_topic_share)
            & (comparison["target_clustered_papers"] >= settings.min_papers),
            after,
        ),
        "faded_topics": listed(
            (weight <= settings.faded_topic_share)
            & (comparison["baseline_clustered_papers"] >= settings.min_papers),
            before,
        ),
    }
