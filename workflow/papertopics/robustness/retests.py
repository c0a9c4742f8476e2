"""The main run's tests run again on one replicate's topics: the same test (over the same periods,
on the same papers' decisions, ratings and citations), Benjamini-Hochberg across the replicate's
own topics, as the main run's family is its topics.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from papertopics.changes.shares import dump_shares
from papertopics.changes.signals import topic_trends
from papertopics.mapping.cluster import OUTLIER
from papertopics.periods.assign import Periods
from papertopics.reception.table import ReceptionSettings, TopicPapers, reception_table
from papertopics.reception.values import ReceptionValues
from papertopics.robustness.findings import Replicate
from papertopics.settings import CompareSettings

TESTED_COLUMNS = ["topic", "direction", "grade"]
# A reception finding is a topic's measure and outcome (its acceptance, its mean rating, ...).
RECEPTION_COLUMNS = ["topic", "measure", "outcome", "direction", "grade"]


def drawn_periods(periods: Periods, rows: np.ndarray) -> Periods:
    """``periods`` (over the main run's paper rows) of the drawn papers ``rows`` only, renumbered."""
    size = max(int(periods.rows.max(initial=-1)), int(rows.max(initial=-1))) + 1
    position = np.full(size, -1, dtype=np.int64)
    position[rows] = np.arange(len(rows))
    moved = position[periods.rows]
    kept = moved >= 0
    return replace(periods, rows=moved[kept], period=periods.period[kept])


def replicate_trends(
    replicate: Replicate, periods: Periods, tested: list[str], settings: CompareSettings
) -> pd.DataFrame:
    """The trend of each of the replicate's topics over the main run's ``tested`` periods (its
    clustered papers, Cochran-Armitage, Benjamini-Hochberg across its topics): ``topic``,
    ``direction``, ``grade``; none where no trend can be tested.
    """
    papers = pd.DataFrame({"topic": replicate.labels, "outlier": replicate.outlier})
    labels = {int(topic): str(topic) for topic in np.unique(replicate.labels)}
    shares = dump_shares(papers, drawn_periods(periods, replicate.rows), labels, settings.confidence)
    found = topic_trends(shares, periods.by, tested, settings)
    if not found["available"]:
        return pd.DataFrame(columns=TESTED_COLUMNS)
    return pd.DataFrame(found["topics"])[TESTED_COLUMNS]


def replicate_reception(
    replicate: Replicate, papers: TopicPapers, values: ReceptionValues, settings: ReceptionSettings
) -> pd.DataFrame:
    """The reception tests of the replicate's topics (each against the rest, one family per kind,
    stepped down, as the main run's; ``papers`` and ``values``: the main run's, every paper):
    ``topic``, ``measure``, ``outcome``, ``direction``, ``grade``.
    """
    labels = replicate.labels
    topics = np.unique(labels[labels != OUTLIER])
    codes = np.where((labels == OUTLIER) | replicate.outlier, -1, np.searchsorted(topics, labels))
    rows = replicate.rows
    drawn = TopicPapers(
        codes=codes.astype(np.int64),
        pools=papers.pools[rows],
        years=papers.years[rows],
        topics=tuple(int(t) for t in topics),
        labels=tuple(str(t) for t in topics),
    )
    kept = replace(
        values,
        decision=values.decision[rows],
        rating=values.rating[rows],
        rating_spread=values.rating_spread[rows],
        citations=values.citations[rows],
    )
    found = reception_table(drawn, kept, settings, describe=False)
    return found.rename(columns={"evidence": "grade"})[RECEPTION_COLUMNS]
