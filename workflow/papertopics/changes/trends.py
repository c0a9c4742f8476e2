"""Trends across every period: is a topic's share rising or falling over the whole span?

The test is the Cochran–Armitage test for trend in proportions: the score test of a linear trend
of a topic's share on the period's score (its year, or its place in the order of dumps). It is
used instead of a logistic regression of membership on the period because it has a closed form
and stays well defined where a regression does not: a topic with no paper in the early periods
(a new field) separates the data, and the regression's estimate runs off to infinity. Its slope
is the least-squares slope of membership (0 or 1 per paper) on the score, in percentage points
per period, with the Wald interval built from the test's own pooled variance, so that the
interval leaves out 0 exactly when the uncorrected test rejects. Benjamini–Hochberg q-values are
taken across topics, as for the two-period comparison.

Evidence is graded in words: *significant* (q below the false discovery rate), *suggestive* (q
below a looser level, 0.25 by default) or *no evidence*; the largest movements are always listed
with their intervals, so that "nothing significant" is never all a reader sees.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from papertopics.stats import NO_EVIDENCE

RISING = "rising"
FALLING = "falling"
FLAT = "flat"


@dataclass(frozen=True)
class TrendTest:
    """Per-topic results of the trend test, one entry per topic (row of ``counts``)."""

    slope: np.ndarray  # change in share per unit of score (a proportion, not points)
    slope_low: np.ndarray
    slope_high: np.ndarray
    z: np.ndarray
    p_value: np.ndarray


def cochran_armitage(counts, totals, scores, confidence: float = 0.95) -> TrendTest:
    """The Cochran–Armitage trend test of each row of ``counts`` over the periods.

    Args:
        counts: topics × periods, the topic's papers in each period (an array of any leading
            shape: the last axis is the periods, so that many simulated runs test at once).
        totals: the periods' papers (the last axis of ``counts``; broadcast against it).
        scores: each period's score (a year, or 0, 1, 2, ... for dumps in order).
        confidence: the level of the slope's interval.

    Returns:
        The slope of the share per unit of score with its interval, the z statistic and the
        two-sided p-value; a topic with no paper at all (or in every paper) gets slope 0, p 1.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import norm

    counts = np.asarray(counts, dtype=np.float64)
    totals = np.broadcast_to(np.asarray(totals, dtype=np.float64), counts.shape)
    scores = np.broadcast_to(np.asarray(scores, dtype=np.float64), counts.shape)
    papers = totals.sum(axis=-1)
    centre = (totals * scores).sum(axis=-1) / papers
    spread = scores - centre[..., None]
    sxx = (totals * spread**2).sum(axis=-1)
    pooled = counts.sum(axis=-1) / papers
    slope = (counts * spread).sum(axis=-1) / sxx
    null_variance = pooled * (1 - pooled) / sxx
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(null_variance > 0, slope / np.sqrt(null_variance), 0.0)
    half = norm.ppf(0.5 + confidence / 2) * np.sqrt(null_variance)
    return TrendTest(
        slope=slope,
        slope_low=slope - half,
        slope_high=slope + half,
        z=z,
        p_value=2 * norm.sf(np.abs(z)),
    )


def period_scores(names: list[str], by: str) -> np.ndarray:
    """The score of each period: its year when comparing years (gaps count), else its place."""
    return np.array([int(n) for n in names] if by == "year" else range(len(names)), dtype=np.float64)


def direction(slope, graded) -> np.ndarray:
    """Rising or falling where there is some evidence (significant or suggestive), else flat."""
    slope = np.asarray(slope, dtype=np.float64)
    moving = np.asarray(graded) != NO_EVIDENCE
    return np.where(moving & (slope > 0), RISING, np.where(moving & (slope < 0), FALLING, FLAT)).astype(
        object
    )
