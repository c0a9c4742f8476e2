"""The tests behind a topic's reception: is a topic's share of an outcome (accepted, oral,
findings), its mean rating or its papers' citations for their year different from the rest of
the corpus?

Every test compares papers only within a stratum, a pool of papers judged together: for
decisions and ratings one venue's one year (the paper's dump, venue and year, as far as it has
them), for citations one year. A corpus that mixes a venue with few orals and one with many would
otherwise call every topic of the second venue "more often oral".

- Shares: the Cochran–Mantel–Haenszel test of the topic's papers against the rest, across strata,
  with continuity correction (conservative for small topics); the share's interval is Wilson's
  (``papertopics.changes.stats``).
- Ratings and citations: Welch's t-test of the topic's papers against the rest on values centred
  within their stratum; citations on the log scale (log(1 + count)), since counts are skewed and a
  handful of famous papers would otherwise decide. Intervals: Student's t for a mean rating, the
percentile bootstrap for a mean citation score (skewed), the binomial
  order-statistic interval for a median.

Benjamini–Hochberg q-values are taken across topics by the caller, one family per kind of value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GroupTest:
    """Per topic (one entry per topic code): the topic's and the rest's value, and the p-value."""

    papers: np.ndarray
    value: np.ndarray
    rest: np.ndarray
    p_value: np.ndarray


def _cell_sums(
    codes: np.ndarray, strata: np.ndarray, weights: np.ndarray, shape: tuple[int, int]
) -> np.ndarray:
    table = np.zeros(shape, dtype=np.float64)
    np.add.at(table, (codes, strata), weights)
    return table


def _stratified_counts(
    hit: np.ndarray, codes: np.ndarray, strata: np.ndarray, topics: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per topic and stratum (topics × strata): its papers, its hits, the hits expected were it
    like the rest of its stratum, and their hypergeometric variance, as Cochran–Mantel–Haenszel
    counts them. ``codes`` −1 counts in the rest only.
    """
    strata_count = int(strata.max()) + 1 if len(strata) else 1
    inside = codes >= 0
    shape = (topics, strata_count)
    size = _cell_sums(codes[inside], strata[inside], np.ones(inside.sum()), shape)
    hits = _cell_sums(codes[inside], strata[inside], hit[inside].astype(np.float64), shape)
    stratum_size = np.bincount(strata, minlength=strata_count).astype(np.float64)
    stratum_hits = np.bincount(strata, weights=hit.astype(np.float64), minlength=strata_count)
    expected = size * stratum_hits / np.maximum(stratum_size, 1)
    variance = (
        size
        * (stratum_size - size)
        * stratum_hits
        * (stratum_size - stratum_hits)
        / np.maximum(stratum_size**2 * (stratum_size - 1), 1)
    )
    return size, hits, expected, variance


def share_test(hit: np.ndarray, codes: np.ndarray, strata: np.ndarray, topics: int) -> GroupTest:
    """Is each topic's share of ``hit`` papers different from the rest's, within strata?

    ``codes``: each paper's topic (0 … topics − 1; −1 for a paper in none, counted in the rest
    only); ``strata``: each paper's stratum (0 …). Only the papers given (those with a value) are
    passed.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import chi2

    size, hits, expected, variance = _stratified_counts(hit, codes, strata, topics)
    difference = np.abs(hits.sum(1) - expected.sum(1))
    total_variance = variance.sum(1)
    statistic = np.maximum(difference - 0.5, 0) ** 2 / np.where(total_variance > 0, total_variance, 1)
    p_value = np.where(total_variance > 0, chi2.sf(statistic, 1), 1.0)
    papers, topic_hits = size.sum(1), hits.sum(1)
    rest_papers = len(hit) - papers
    rest = (hit.sum() - topic_hits) / np.maximum(rest_papers, 1)
    return GroupTest(papers.astype(int), topic_hits / np.maximum(papers, 1), rest, p_value)


def centred(values: np.ndarray, strata: np.ndarray) -> np.ndarray:
    """Each value less its stratum's mean."""
    sums = np.bincount(strata, weights=values)
    counts = np.bincount(strata)
    return values - (sums / np.maximum(counts, 1))[strata]


def _sums(values: np.ndarray, codes: np.ndarray, topics: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per topic: its papers, the sum of their values and of their squares."""
    inside = codes >= 0
    counts = np.bincount(codes[inside], minlength=topics).astype(np.float64)
    sums = np.bincount(codes[inside], weights=values[inside], minlength=topics)
    squares = np.bincount(codes[inside], weights=values[inside] ** 2, minlength=topics)
    return counts, sums, squares


def mean_test(values: np.ndarray, codes: np.ndarray, strata: np.ndarray, topics: int) -> GroupTest:
    """Is each topic's mean of ``values`` different from the rest's, within strata (Welch's t on
    stratum-centred values, every topic at once)? ``value`` and ``rest`` are the plain means.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import t

    shifted = centred(values, strata)
    size, sums, squares = _sums(shifted, codes, topics)
    rest_size = len(values) - size
    rest_sums, rest_squares = shifted.sum() - sums, (shifted**2).sum() - squares
    testable = (size >= 2) & (rest_size >= 2)
    n, m = np.where(testable, size, 2), np.where(testable, rest_size, 2)
    mean, rest_mean = sums / n, rest_sums / m
    variance = np.maximum(squares - n * mean**2, 0) / (n - 1) / n
    rest_variance = np.maximum(rest_squares - m * rest_mean**2, 0) / (m - 1) / m
    error = np.sqrt(variance + rest_variance)
    freedom = (variance + rest_variance) ** 2 / np.maximum(
        variance**2 / (n - 1) + rest_variance**2 / (m - 1), np.finfo(float).tiny
    )
    statistic = np.where(error > 0, (mean - rest_mean) / np.where(error > 0, error, 1), 0.0)
    p_value = np.where(testable & (error > 0), 2 * t.sf(np.abs(statistic), freedom), 1.0)
    plain_size, plain_sums, _ = _sums(values, codes, topics)
    value = np.where(testable, plain_sums / np.maximum(plain_size, 1), np.nan)
    rest = np.where(testable, (values.sum() - plain_sums) / np.maximum(len(values) - plain_size, 1), np.nan)
    return GroupTest(size.astype(int), value, rest, p_value)


def mean_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Student's t interval of the mean of ``values`` (NaN under two values)."""
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import t

    if len(values) < 2:
        return np.nan, np.nan
    half = t.ppf(0.5 + confidence / 2, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return float(values.mean() - half), float(values.mean() + half)


def bootstrap_mean_interval(
    values: np.ndarray, confidence: float, resamples: int = 1000
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean, for skewed values (citation scores), where
    Student's t would reach below zero; seeded, so the same values give the same interval.
    """
    if len(values) < 2:
        return np.nan, np.nan
    rng = np.random.default_rng(len(values))
    means = values[rng.integers(0, len(values), (resamples, len(values)))].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def median_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The distribution-free interval of the median: order statistics picked by the binomial(n, ½)."""
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import binom

    n = len(values)
    if n < 2:
        return np.nan, np.nan
    ordered = np.sort(values)
    rank = int(binom.ppf((1 - confidence) / 2, n, 0.5))  # the k-th smallest and k-th largest
    return float(ordered[max(rank - 1, 0)]), float(ordered[min(n - rank, n - 1)])


def change_test(
    hit: np.ndarray, codes: np.ndarray, strata: np.ndarray, stratum_years: np.ndarray, topics: int
) -> np.ndarray:
    """Did each topic's share of ``hit`` papers, against the rest's, change across the years?

    Within each stratum (a venue's year, as :func:`share_test` compares) the topic's hits are set
    against those expected were it like the rest there, and the hypergeometric variance, as the
    Cochran–Mantel–Haenszel test does; summed per year (``stratum_years``: each stratum's year
    code), the excess ``U`` and its variance ``V`` are the score of the topic's log odds ratio that
    year. The statistic is the score test that this odds ratio is the same every year, ΣU²/V −
    (ΣU)²/ΣV, χ² with one degree of freedom fewer than the years that say something (a year where
    the topic has no paper, or every paper was accepted, says nothing). A topic received
    differently in every year alike is no change; strata keep a venue's rate from passing for one.
    Returns each topic's p-value; NaN where fewer than two years say something.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import chi2

    size, hits, expected, variance = _stratified_counts(hit, codes, strata, topics)
    strata_count = size.shape[1]
    excess = hits - expected
    years = int(stratum_years.max()) + 1 if len(stratum_years) else 1
    to_year = np.zeros((strata_count, years))
    to_year[np.arange(strata_count), stratum_years[:strata_count]] = 1.0
    excess, variance = excess @ to_year, variance @ to_year
    speaking = variance > 1e-12
    safe = np.where(speaking, variance, 1.0)
    statistic = np.sum(np.where(speaking, excess**2 / safe, 0.0), axis=1) - np.sum(
        np.where(speaking, excess, 0.0), axis=1
    ) ** 2 / np.maximum(np.sum(np.where(speaking, variance, 0.0), axis=1), 1e-12)
    freedom = speaking.sum(axis=1) - 1
    return np.where(freedom >= 1, chi2.sf(np.maximum(statistic, 0.0), np.maximum(freedom, 1)), np.nan)
