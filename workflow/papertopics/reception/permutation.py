"""The tests behind a topic's reception: is a topic's share of an outcome (accepted, oral,
findings), its mean rating or its papers' citations for their year different from the rest of
the corpus?

Every test compares papers only within a stratum, a pool of papers judged together: for
decisions and ratings one venue's one year (the paper's dump, venue and year, as far as it has
them), for citations one year. A corpus that mixes a venue with few orals and one with many would
otherwise call every topic of the second venue "more often oral".

- Shares: the Cochran–Mantel–Haenszel test of the topic's papers against the rest, across strata,
  with continuity correction (conservative for small topics); the share's interval is Wilson's
  (``papertopics.stats``).
- Ratings and citations: Welch's t of the topic's papers against the rest on values centred
  within their stratum, its p-value from permutations of the values within strata; citations on
  the log scale (log(1 + count)), since counts are skewed and a handful of famous papers would
  otherwise decide. Intervals: Student's t for a mean rating, the percentile bootstrap for a mean
  citation score (skewed), the binomial order-statistic interval for a median.

Benjamini–Hochberg q-values are taken across topics by the caller, one family per kind of value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from papertopics.stats import smallest_p_gate

# The fewest draws from a test's null distribution behind a p-value (permutations of a mean's
# values, tables of a change's hits; the smallest p-value is then 1/2,000), their seed, and how
# many permuted values are held at once (memory, about 16 bytes each).
MIN_DRAWS = 1999
DRAW_SEED = 0
PERMUTATION_CELLS = 2_000_000


@dataclass(frozen=True)
class GroupTest:
    """Per topic (one entry per topic code): the topic's and the rest's value, the p-value, and how
    far the topic is from the rest on the test's own scale (χ², |t|), which orders topics whose
    p-values tie (permutation p-values stop at their smallest); and the p-value of the family's
    gate (:func:`mean_test`'s; NaN where the test has none).
    """

    papers: np.ndarray
    value: np.ndarray
    rest: np.ndarray
    p_value: np.ndarray
    distance: np.ndarray
    gate_p_value: float = np.nan


def _cell_sums(
    codes: np.ndarray, strata: np.ndarray, weights: np.ndarray, shape: tuple[int, int]
) -> np.ndarray:
    table = np.zeros(shape, dtype=np.float64)
    np.add.at(table, (codes, strata), weights)
    return table


@dataclass(frozen=True)
class StratifiedCounts:
    """Per topic and stratum (topics × strata): its papers, its hits, the hits expected were it
    like the rest of its stratum, and their hypergeometric variance, as Cochran–Mantel–Haenszel
    counts them; and per stratum, its papers and hits.
    """

    size: np.ndarray
    hits: np.ndarray
    expected: np.ndarray
    variance: np.ndarray
    stratum_size: np.ndarray
    stratum_hits: np.ndarray


def _stratified_counts(
    hit: np.ndarray, codes: np.ndarray, strata: np.ndarray, topics: int
) -> StratifiedCounts:
    """The counts of ``hit`` per topic and stratum; ``codes`` −1 counts in the rest only."""
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
    return StratifiedCounts(size, hits, expected, variance, stratum_size, stratum_hits)


def share_test(hit: np.ndarray, codes: np.ndarray, strata: np.ndarray, topics: int) -> GroupTest:
    """Is each topic's share of ``hit`` papers different from the rest's, within strata?

    ``codes``: each paper's topic (0 … topics − 1; −1 for a paper in none, counted in the rest
    only); ``strata``: each paper's stratum (0 …). Only the papers given (those with a value) are
    passed.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import chi2

    counts = _stratified_counts(hit, codes, strata, topics)
    size, hits = counts.size, counts.hits
    difference = np.abs(hits.sum(1) - counts.expected.sum(1))
    total_variance = counts.variance.sum(1)
    statistic = np.maximum(difference - 0.5, 0) ** 2 / np.where(total_variance > 0, total_variance, 1)
    p_value = np.where(total_variance > 0, chi2.sf(statistic, 1), 1.0)
    papers, topic_hits = size.sum(1), hits.sum(1)
    rest_papers = len(hit) - papers
    rest = (hit.sum() - topic_hits) / np.maximum(rest_papers, 1)
    return GroupTest(papers.astype(int), topic_hits / np.maximum(papers, 1), rest, p_value, statistic)


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


def _welch_statistics(columns: np.ndarray, membership, size: np.ndarray) -> np.ndarray:
    """Welch's t of each topic's papers against the rest, for each column of ``columns`` (papers ×
    draws → topics × draws). ``membership``: topics × papers, sparse, 1 where a paper is in the
    topic; ``size``: each topic's papers, at least 2, as is the rest.
    """
    squared = columns**2
    sums, squares = membership @ columns, membership @ squared
    rest_size = (len(columns) - size)[:, None]
    size = size[:, None]
    rest_sums = columns.sum(axis=0) - sums
    rest_squares = squared.sum(axis=0) - squares
    mean, rest_mean = sums / size, rest_sums / rest_size
    variance = np.maximum(squares - size * mean**2, 0) / (size - 1) / size
    rest_variance = np.maximum(rest_squares - rest_size * rest_mean**2, 0) / (rest_size - 1) / rest_size
    error = np.sqrt(variance + rest_variance)
    return np.where(error > 0, (mean - rest_mean) / np.where(error > 0, error, 1), 0.0)


def draws_for(topics: int, false_discovery_rate: float) -> int:
    """How many null draws a p-value takes: at least ``MIN_DRAWS``, and enough that
    the smallest p-value they can give is a quarter of what Benjamini–Hochberg asks of the one
    topic found among ``topics`` (else a topic far off the rest could not be found among many).
    """
    return max(MIN_DRAWS, int(np.ceil(4 * topics / false_discovery_rate)) - 1)


def _within_strata(
    values: np.ndarray, strata: np.ndarray, count: int, rng: np.random.Generator
) -> np.ndarray:
    """``count`` columns, each ``values`` permuted within ``strata`` (sorted: a stratum's papers
    side by side), papers × draws: the layout the topics' sums take without a copy.
    """
    columns = np.repeat(values[:, None], count, axis=1)
    bounds = np.flatnonzero(np.diff(strata)) + 1
    for first, end in zip(np.r_[0, bounds], np.r_[bounds, len(values)], strict=True):
        rng.permuted(columns[first:end], axis=0, out=columns[first:end])
    return columns


def mean_test(
    values: np.ndarray, codes: np.ndarray, strata: np.ndarray, topics: int, min_papers: int, draws: int
) -> GroupTest:
    """Is each topic's mean of ``values`` different from the rest's, within strata? Welch's t on
    stratum-centred values, every topic at once; its p-value from ``draws`` permutations of the
    values within strata (seeded: the same values give the same p-values). Welch's own
    t-distribution gave log citation counts too many tiny p-values: 0.71% under 0.05/8 against
    0.625% over 600 shuffled runs of ACL's papers, and 5.8% of 2,000 shuffled runs flagged some
    topic (bench/one-off-measurements.md). ``value`` and ``rest`` are the plain means.

    The gate: the same permutations' distribution of the smallest p-value among the topics of at
    least ``min_papers`` papers, against the observed smallest. Benjamini–Hochberg flags some
    topic where nothing differs in about its rate, more where the topics' tests are negatively
    dependent (a topic above the rest puts the others below it); a family whose gate's p-value is
    above that rate flags nothing, so shuffled values flag some topic in at most that share of
    runs, whatever the dependence.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.sparse import csr_matrix

    # A stratum's papers side by side, as _within_strata takes them; the statistics do not depend
    # on the papers' order.
    order = np.argsort(strata, kind="stable")
    shifted, sorted_strata, sorted_codes = centred(values, strata)[order], strata[order], codes[order]
    inside = sorted_codes >= 0
    membership = csr_matrix(
        (np.ones(inside.sum()), (sorted_codes[inside], np.flatnonzero(inside))), shape=(topics, len(values))
    )
    size = np.bincount(sorted_codes[inside], minlength=topics).astype(np.float64)
    testable = (size >= 2) & (len(values) - size >= 2)
    tested_size = np.where(testable, size, 2)
    observed = np.abs(_welch_statistics(shifted[:, None], membership, tested_size))[:, 0]
    drawn = np.empty((draws, topics))
    rng = np.random.default_rng(DRAW_SEED)
    chunk = max(1, PERMUTATION_CELLS // max(len(values), 1))
    for start in range(0, draws, chunk):
        columns = _within_strata(shifted, sorted_strata, min(chunk, draws - start), rng)
        drawn[start : start + columns.shape[1]] = np.abs(
            _welch_statistics(columns, membership, tested_size)
        ).T
    # A hair below a |t|: a permutation that gives the same split in another order must count as
    # at least as extreme, whatever its rounding.
    at_least = (drawn >= observed * (1 - 1e-9)).sum(axis=0)
    p_value = np.where(testable, (1 + at_least) / (1 + draws), 1.0)
    gated = testable & (size >= min_papers)
    gate_p_value = (
        smallest_p_gate(observed[gated], drawn[:, gated], p_value[gated]) if gated.any() else np.nan
    )
    plain_size, plain_sums, _ = _sums(values, codes, topics)
    value = np.where(testable, plain_sums / np.maximum(plain_size, 1), np.nan)
    rest = np.where(testable, (values.sum() - plain_sums) / np.maximum(len(values) - plain_size, 1), np.nan)
    return GroupTest(
        plain_size.astype(int), value, rest, p_value, np.where(testable, observed, 0.0), gate_p_value
    )


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
    hit: np.ndarray,
    codes: np.ndarray,
    strata: np.ndarray,
    stratum_years: np.ndarray,
    topics: int,
    draws: int,
) -> np.ndarray:
    """Did each topic's share of ``hit`` papers, against the rest's, change across the years?

    Within each stratum (a venue's year, as :func:`share_test` compares) the topic's papers and
    the rest's make a 2×2 table; under no change the topic's odds ratio against the rest is the
    same in every stratum. Breslow and Day's statistic: each year's hits of the topic against those
    expected at the odds ratio the strata share (Mantel–Haenszel's), squared over their variance,
    summed over the years that say something (a year where the topic has no paper, or every paper
    was accepted, says nothing).

    Its p-value is exact in Zelen's way, not χ²'s: given every stratum's margins and the topic's
    hits over all years, how its hits fall into the years does not depend on the odds ratio they
    share, so ``draws`` tables drawn from that distribution (:func:`_drawn_given_total`) give the
    statistic's null distribution. χ² gave too many tiny p-values: 5.5% of 2,000 shuffled runs of
    ACL's papers found some topic changed (bench/one-off-measurements.md). A topic received
    differently in every year alike is no change; strata keep a venue's rate from passing for one.
    Returns each topic's p-value; NaN where fewer than two years say something.
    """
    counts = _stratified_counts(hit, codes, strata, topics)
    years = int(stratum_years.max()) + 1 if len(stratum_years) else 1
    to_year = np.zeros((counts.size.shape[1], years))
    to_year[np.arange(counts.size.shape[1]), stratum_years[: counts.size.shape[1]]] = 1.0
    rng = np.random.default_rng(DRAW_SEED)
    p_value = np.full(topics, np.nan)
    for topic in range(topics):
        pmfs = _year_distributions(counts, topic, to_year)
        support = [np.arange(len(pmf)) for pmf in pmfs]
        mean = np.array([pmf @ x for pmf, x in zip(pmfs, support, strict=True)])
        variance = np.array([pmf @ x**2 for pmf, x in zip(pmfs, support, strict=True)]) - mean**2
        said = variance > 1e-9
        if said.sum() < 2:
            continue
        observed = counts.hits[topic] @ to_year
        drawn = _drawn_given_total(pmfs, int(round(observed.sum())), draws, rng)
        spread = ((drawn[:, said] - mean[said]) ** 2 / variance[said]).sum(axis=1)
        seen = ((observed[said] - mean[said]) ** 2 / variance[said]).sum()
        p_value[topic] = (1 + (spread >= seen * (1 - 1e-9)).sum()) / (1 + draws)
    return p_value


def _year_distributions(counts: StratifiedCounts, topic: int, to_year: np.ndarray) -> list[np.ndarray]:
    """The distribution of the topic's hits in each year (index: hits), given every stratum's
    margins, at the Mantel–Haenszel odds ratio the strata share: each stratum's hits Fisher's
    noncentral hypergeometric, a year's their convolution. Given the topic's hits over all years,
    the odds ratio cancels out; taken at the estimate, the distributions centre where the topic's
    hits are, and the tails of the central ones cannot underflow there.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import hypergeom

    size, hits = counts.size[topic], counts.hits[topic]
    rest_size, rest_hits = counts.stratum_size - size, counts.stratum_hits - hits
    # Half a paper in each cell keeps the estimate finite (a topic with every paper accepted).
    odds = np.sum((hits + 0.5) * (rest_size - rest_hits + 0.5) / (counts.stratum_size + 2)) / np.sum(
        (size - hits + 0.5) * (rest_hits + 0.5) / (counts.stratum_size + 2)
    )
    # Every stratum's central hypergeometric at once, a row each (a call per stratum was most of
    # the replicates' re-tests of the changes); a row's hits beyond its stratum's papers are cut.
    present = np.flatnonzero(size > 0)
    row_of = {int(stratum): row for row, stratum in enumerate(present)}
    central = hypergeom.logpmf(
        np.arange(int(size.max(initial=0)) + 1)[None, :],
        counts.stratum_size[present, None],
        counts.stratum_hits[present, None],
        size[present, None],
    )
    pmfs = []
    for year in range(to_year.shape[1]):
        pmf = np.ones(1)
        for stratum in np.flatnonzero((to_year[:, year] > 0) & (size > 0)):
            support = np.arange(int(size[stratum]) + 1)
            tilted = central[row_of[int(stratum)], : len(support)] + support * np.log(odds)
            pmf = np.convolve(pmf, np.exp(tilted - tilted.max()))
        pmfs.append(pmf / pmf.sum())
    return pmfs


def _drawn_given_total(
    pmfs: list[np.ndarray], total: int, draws: int, rng: np.random.Generator
) -> np.ndarray:
    """``draws`` rows of hits per year (draws × years), each year's independent with its ``pmfs``
    entry, given that they sum to ``total``: the years are drawn one after another, each given
    what the later years can still hold.
    """
    later = [np.ones(1)]  # the distribution of the hits of the years after each year
    for pmf in reversed(pmfs[1:]):
        later.insert(0, np.convolve(pmf, later[0]))
    left = np.full(draws, total)
    drawn = np.zeros((draws, len(pmfs)), dtype=np.int64)
    for year, (pmf, after) in enumerate(zip(pmfs, later, strict=True)):
        # A year's weights depend on the hits left alone: computed once for each count left (a
        # few dozen), not for each of thousands of draws, and each draw's pick found by bisection.
        order = np.argsort(left, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(left[order]) != 0])
        lefts = left[order][starts]
        row_of = np.empty(draws, dtype=np.int64)
        row_of[order] = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, draws]))
        rest_of = lefts[:, None] - np.arange(len(pmf))[None, :]
        possible = (rest_of >= 0) & (rest_of < len(after))
        weight = np.where(possible, pmf[None, :] * after[np.clip(rest_of, 0, len(after) - 1)], 0.0)
        cumulative = np.cumsum(weight, axis=1)
        threshold = rng.random(draws) * cumulative[row_of, -1]
        chosen = np.empty(draws, dtype=np.int64)
        for row, (first, end) in enumerate(zip(starts, np.r_[starts[1:], draws], strict=True)):
            picked = order[first:end]
            # The weights below the threshold (they rise): the pick.
            chosen[picked] = np.searchsorted(cumulative[row], threshold[picked], side="left")
        drawn[:, year] = chosen
        left = left - chosen
    return drawn
