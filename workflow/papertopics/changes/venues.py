"""Venues compared: which topics each group of papers (a venue, a track: any categorical field,
``compare.by: venue``) holds more or fewer of than the others.

Groups have no order, so nothing here is a trend. For each topic and group: the topic's share of
the group's papers with its Wilson interval, and a test of whether the group holds more (or fewer)
of the topic's papers than the other groups together: the topic × group table's adjusted
standardized residual (Haberman's), which for one cell is the signed root of the chi-square of
the 2 × 2 table "this topic or another × this group or another", here with Yates's continuity
correction; where a cell of that 2 × 2 table expects fewer than ``EXACT_BELOW`` papers, Fisher's
exact test instead. The Benjamini–Hochberg correction runs across every cell of the table (topics
× groups), and the q-values are graded as the trends are (``papertopics.stats.grade``).

As in the comparison of periods, the test counts each topic's clustered papers (``TESTED_ON``):
a group's papers are all its papers, outliers included, so outliers are a row of the table that
is not tested. A paper in two groups (two dumps) counts in both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from papertopics.changes.shares import TESTED_ON
from papertopics.mapping.cluster import OUTLIER
from papertopics.periods.assign import Periods
from papertopics.stats import SIGNIFICANT, SUGGESTIVE, benjamini_hochberg, grade, wilson_interval

# Below this many expected papers in a cell of a 2 × 2 table, Fisher's exact test replaces the chi-square.
EXACT_BELOW = 5
TEST = (
    "adjusted standardized residual of each topic × group cell (chi-square of the 2 × 2 table with Yates's "
    f"correction; Fisher's exact test where a cell expects fewer than {EXACT_BELOW} papers), "
    "Benjamini-Hochberg across all cells"
)
COLUMNS = ["venue", "topic", "label", "papers", "venue_papers", "share", "low", "high", "residual", "p", "q"]
COLUMNS += ["grade", "direction"]


@dataclass(frozen=True)
class CellTests:
    """The tests of a topic × group table, one entry per cell (topics × groups)."""

    residual: np.ndarray  # adjusted standardized residual, continuity-corrected: > 0 the group holds more
    p_value: np.ndarray
    exact: np.ndarray  # True where Fisher's exact test gave the p-value


def cell_tests(counts, totals) -> CellTests:
    """Test each cell of ``counts`` (topics × groups: each topic's papers in each group) against
    ``totals`` (each group's papers, every topic and the untested rest, such as outliers, included).
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import fisher_exact, norm

    counts = np.asarray(counts, dtype=np.float64)
    totals = np.asarray(totals, dtype=np.float64)
    n = totals.sum()
    rest = totals - counts.sum(axis=0)
    if (rest < -1e-9).any():
        raise ValueError("a group holds more topic papers than papers")
    row = np.concatenate([counts, rest[None]]).sum(axis=1)[:-1, None]  # each topic's papers
    col = totals[None, :]
    expected = row * col / max(n, 1.0)
    variance = expected * (1 - row / max(n, 1.0)) * (1 - col / max(n, 1.0))
    difference = counts - expected
    corrected = np.sign(difference) * np.maximum(np.abs(difference) - 0.5, 0.0)
    residual = np.where(variance > 0, corrected / np.sqrt(np.where(variance > 0, variance, 1.0)), 0.0)
    p_value = np.where(variance > 0, 2 * norm.sf(np.abs(residual)), 1.0)
    smallest = np.minimum.reduce([expected, row - expected, col - expected, n - row - col + expected])
    exact = (smallest < EXACT_BELOW) & (variance > 0)
    for i, j in zip(*np.nonzero(exact), strict=True):
        inside, topic, group = counts[i, j], row[i, 0], col[0, j]
        table = [[inside, topic - inside], [group - inside, n - topic - group + inside]]
        p_value[i, j] = fisher_exact(np.rint(table).astype(np.int64)).pvalue
    return CellTests(residual, np.clip(p_value, 0.0, 1.0), exact)


def compare_groups(
    topic: np.ndarray,
    clustered: np.ndarray,
    groups: Periods,
    labels: dict[int, str],
    confidence: float,
    false_discovery_rate: float,
    suggestive_q: float,
) -> pd.DataFrame:
    """``venues.csv``: one row per real topic and group, groups in name order, each topic's cells
    together in topic order.

    Args:
        topic: each paper's topic (the paper table's order, which ``groups.rows`` indexes).
        clustered: each paper's flag: HDBSCAN clustered it (not an assigned outlier).
        groups: the papers' groups (the periods stage's).
        labels: each topic's label; the real topics (not ``OUTLIER``) are tested.
        confidence: the level of the share intervals.
        false_discovery_rate: q below this is graded significant.
        suggestive_q: q below this (and not significant) is graded suggestive.
    """
    topics = sorted(t for t in labels if t != OUTLIER)
    place = {name: j for j, name in enumerate(groups.names)}
    column = np.array([place[name] for name in groups.period.tolist()], dtype=np.int64)
    totals = np.bincount(column, minlength=len(groups.names)).astype(np.int64)
    counts = np.zeros((len(topics), len(groups.names)), dtype=np.int64)
    position = {t: i for i, t in enumerate(topics)}
    paper_topic = np.asarray(topic)[groups.rows]
    tested = np.asarray(clustered, dtype=bool)[groups.rows] & np.isin(paper_topic, topics)
    np.add.at(counts, ([position[t] for t in paper_topic[tested].tolist()], column[tested]), 1)
    tests = cell_tests(counts, totals)
    q_value = (
        benjamini_hochberg(tests.p_value.ravel()).reshape(tests.p_value.shape)
        if counts.size
        else tests.p_value
    )
    low, high = wilson_interval(counts, np.broadcast_to(totals, counts.shape), confidence)
    graded = grade(q_value.ravel(), false_discovery_rate, suggestive_q).reshape(counts.shape)
    found = np.isin(graded, [SIGNIFICANT, SUGGESTIVE])
    direction = np.where(found, np.where(tests.residual > 0, "over", "under"), "")
    share = counts / np.where(totals > 0, totals, 1)
    return pd.DataFrame(
        {
            "venue": np.tile(np.array(groups.names, dtype=object), len(topics)),
            "topic": np.repeat(topics, len(groups.names)),
            "label": np.repeat([labels[t] for t in topics], len(groups.names)),
            "papers": counts.ravel(),
            "venue_papers": np.tile(totals, len(topics)),
            "share": share.ravel().round(6),
            "low": low.ravel().round(6),
            "high": high.ravel().round(6),
            "residual": tests.residual.ravel().round(4) + 0.0,  # no -0.0
            "p": tests.p_value.ravel(),
            "q": q_value.ravel(),
            "grade": graded.ravel(),
            "direction": direction.ravel(),
        },
        columns=COLUMNS,
    )


def describe_venues(
    table: pd.DataFrame,
    groups: Periods | None,
    wording: dict[int, list],
    settings: dict,
    reason: str | None = None,
) -> dict:
    """``venues.json``: the test, the groups and their papers, each group's over- and
    under-represented topics (strongest first) and each topic's wording per group; or why there
    is no comparison (``available`` false).
    """
    if groups is None or reason:
        return {"available": False, "reason": reason or _no_groups_reason()}
    found = table[table["direction"] != ""]
    per_group = []
    for name in groups.names:
        rows = found[found["venue"] == name].sort_values(["q", "topic"], kind="stable")
        per_group.append(
            {
                "venue": name,
                "papers": int((groups.period == name).sum()),
                "over": _cells(rows[rows["direction"] == "over"]),
                "under": _cells(rows[rows["direction"] == "under"]),
            }
        )
    return {
        "available": True,
        "by": groups.by,
        "venues": groups.names,
        "papers_without_venue": groups.left_out,
        "test": TEST,
        "tested_on": TESTED_ON,
        **settings,
        "groups": per_group,
        "wording": {str(topic): rows for topic, rows in sorted(wording.items())},
    }


def _no_groups_reason() -> str:
    return (
        "compare.by names no paper field, so no venues are compared; set compare.by to a field the papers "
        "carry (venue, track), or to [venue, year]."
    )


def _cells(rows: pd.DataFrame) -> list[dict]:
    return [
        {
            "topic": int(r.topic),
            "label": str(r.label),
            "papers": int(r.papers),
            "share": float(r.share),
            "low": float(r.low),
            "high": float(r.high),
            "residual": float(r.residual),
            "q": float(r.q),
            "grade": str(r.grade),
        }
        for r in rows.itertuples()
    ]
