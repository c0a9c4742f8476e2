"""The main run's tests run again on one replicate's topics: the same test over the same periods,
Benjamini-Hochberg across the replicate's own topics, as the main run's family is its topics.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from papertopics.changes.shares import dump_shares
from papertopics.changes.signals import topic_trends
from papertopics.periods.assign import Periods
from papertopics.robustness.findings import Replicate
from papertopics.settings import CompareSettings

TESTED_COLUMNS = ["topic", "direction", "grade"]


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
