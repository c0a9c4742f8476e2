"""Who is rising: institutions and countries whose share of a topic rose over the periods, and,
across the corpus, each one's share per period and the topics it holds more of than the rest.

Rising means rising *within the topic beyond the corpus*: a country whose share of every paper
grows (or shrinks: the mix of venues changes over the years) would otherwise rise (or fall) in
every topic. The test is the topics' trend test (``trends.cochran_armitage``, a score test of a
linear trend of a share on the period's score) with each period's expected share taken from the
corpus instead of pooled over the periods (:func:`excess_trend`): the "papers" are the topic's
papers that carry the kind in each period, the "count" a name's fractional papers among them, the
expected share the name's share of all papers carrying the kind in that period. Its slope is the
least-squares slope of the topic's share less the corpus's, in points per period. A fractional
count varies less than the 0 or 1 of a whole paper, so the binomial variance is an upper bound and
the test is conservative where papers are shared. A name is tested in a topic when it has at least
``people.min_papers`` fractional papers there; Benjamini–Hochberg runs across every (topic, name)
test of a kind, and the q-values are graded as the trends are (``papertopics.stats.grade``).

Over-representation is the venues' test (``venues.cell_tests``, the adjusted standardized
residual of each topic × name cell, Fisher's exact test on rounded counts where a cell expects
few) on the fractional counts of every name with ``people.min_papers`` papers in the corpus,
Benjamini–Hochberg across the cells of a kind.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from papertopics.changes.trends import TrendTest, direction, period_scores
from papertopics.changes.venues import cell_tests
from papertopics.mapping.cluster import OUTLIER
from papertopics.people.authorship import display_names, topic_rows
from papertopics.periods.assign import Periods
from papertopics.stats import SIGNIFICANT, SUGGESTIVE, benjamini_hochberg, grade, wilson_interval

TESTED_KINDS = ("institution", "country")
RISING_COLUMNS = ["kind", "topic", "label", "name", "papers", "first_period", "first_share", "last_period"]
RISING_COLUMNS += ["last_share", "corpus_first_share", "corpus_last_share", "slope_points"]
RISING_COLUMNS += ["low_points", "high_points", "p", "q", "grade", "direction"]
OVER_COLUMNS = ["kind", "name", "topic", "label", "papers", "name_papers", "share", "residual", "p", "q"]
OVER_COLUMNS += ["grade", "direction"]
# Names of a kind tested for over-representation: the corpus's this many with most papers (an
# institution with a handful of papers in a corpus of thousands tells nothing per topic, and its
# cells would each need Fisher's exact test).
CORPUS_NAMES = 50
PERIOD_COLUMNS = ["kind", "name", "period", "papers", "period_papers", "share", "low", "high"]


@dataclass(frozen=True)
class GradingLevels:
    """The levels the tests are graded at (the ``compare`` section's, as for the topics' trends)."""

    confidence: float
    false_discovery_rate: float
    suggestive_q: float


def excess_trend(counts, totals, expected_share, scores, confidence: float = 0.95) -> TrendTest:
    """The trend of each row of ``counts`` (names × periods) over ``totals`` (each period's papers)
    beyond ``expected_share`` (names × periods, the corpus's share in each period): the
    Cochran–Armitage score test with the per-period expectation in place of the pooled share.
    A row with no variance under the null (expected share 0 or 1 throughout) gets slope 0, p 1.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import norm

    counts = np.asarray(counts, dtype=np.float64)
    totals = np.broadcast_to(np.asarray(totals, dtype=np.float64), counts.shape)
    expected = np.broadcast_to(np.asarray(expected_share, dtype=np.float64), counts.shape)
    scores = np.broadcast_to(np.asarray(scores, dtype=np.float64), counts.shape)
    centre = (totals * scores).sum(axis=-1, keepdims=True) / np.maximum(totals.sum(axis=-1, keepdims=True), 1)
    spread = scores - centre
    sxx = (totals * spread**2).sum(axis=-1)
    statistic = (spread * (counts - totals * expected)).sum(axis=-1)
    variance = (spread**2 * totals * expected * (1 - expected)).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(variance > 0, statistic / np.sqrt(variance), 0.0)
        slope = np.where(sxx > 0, statistic / sxx, 0.0)
        half = norm.ppf(0.5 + confidence / 2) * np.where(sxx > 0, np.sqrt(variance) / sxx, 0.0)
    return TrendTest(
        slope=slope, slope_low=slope - half, slope_high=slope + half, z=z, p_value=2 * norm.sf(np.abs(z))
    )


def period_table(long: pd.DataFrame, periods: Periods) -> pd.DataFrame:
    """Each entry once per period its paper is in (a paper in two dumps counts in both)."""
    pairs = pd.DataFrame({"row": periods.rows, "period": periods.period})
    return long.merge(pairs, on="row")


def _matrix(frame: pd.DataFrame, index: list, names: list[str], by: str) -> np.ndarray:
    table = frame.groupby(["key", by])["weight"].sum().unstack(fill_value=0.0)
    return table.reindex(index=index, columns=names, fill_value=0.0).to_numpy(dtype=np.float64)


def rising(
    long: pd.DataFrame,
    topic: np.ndarray,
    periods: Periods,
    labels: dict[int, str],
    min_papers: float,
    compare: GradingLevels,
) -> pd.DataFrame:
    """``people_rising.csv``: per kind, topic and tested name, the share in the first and last
    period (the topic's and the corpus's), the trend beyond the corpus in points per period with
    its interval, p, q, grade and direction. ``compare``: the levels the tests are graded at.
    """
    if not periods.ordered or len(periods.names) < 2 or long.empty:
        return pd.DataFrame(columns=RISING_COLUMNS)
    names = display_names(long)
    everything = period_table(long.assign(topic=topic_rows(topic, labels)[long["row"].to_numpy()]), periods)
    tables = [
        _rising_of_kind(
            everything[everything["kind"] == kind], kind, periods, labels, names, min_papers, compare
        )
        for kind in TESTED_KINDS
    ]
    tables = [table for table in tables if len(table)]
    if not tables:
        return pd.DataFrame(columns=RISING_COLUMNS)
    return pd.concat(tables, ignore_index=True)[RISING_COLUMNS]


def _rising_of_kind(
    corpus: pd.DataFrame,
    kind: str,
    periods: Periods,
    labels: dict[int, str],
    names: dict,
    min_papers: float,
    compare: GradingLevels,
) -> pd.DataFrame:
    """The rising table of one kind: every (topic, name) pair with ``min_papers`` tested at once."""
    frame = corpus[corpus["topic"] != OUTLIER]
    weight = frame.groupby(["topic", "key"])["weight"].sum()
    pairs = weight[weight >= min_papers].index
    if frame.empty or pairs.empty:
        return pd.DataFrame(columns=RISING_COLUMNS)
    per_period = frame.groupby(["topic", "key", "period"])["weight"].sum().unstack(fill_value=0.0)
    counts = per_period.reindex(index=pairs, columns=periods.names, fill_value=0.0).to_numpy(np.float64)
    papers = (
        frame.drop_duplicates(["topic", "row", "period"])
        .groupby(["topic", "period"])
        .size()
        .unstack(fill_value=0)
    )
    topics = pairs.get_level_values("topic")
    totals = papers.reindex(index=topics, columns=periods.names, fill_value=0).to_numpy(np.float64)
    corpus_totals = corpus.drop_duplicates(["row", "period"]).groupby("period").size()
    corpus_totals = corpus_totals.reindex(periods.names, fill_value=0).to_numpy(np.float64)
    corpus_counts = corpus.groupby(["key", "period"])["weight"].sum().unstack(fill_value=0.0)
    keys = pairs.get_level_values("key")
    expected = corpus_counts.reindex(index=keys, columns=periods.names, fill_value=0.0).to_numpy(np.float64)
    expected = expected / np.maximum(corpus_totals, 1)
    test = excess_trend(
        counts, totals, expected, period_scores(periods.names, periods.by), compare.confidence
    )
    share = counts / np.maximum(totals, 1)
    filled = totals > 0
    first = filled.argmax(axis=1)
    last = filled.shape[1] - 1 - filled[:, ::-1].argmax(axis=1)
    at = np.arange(len(pairs))
    table = pd.DataFrame(
        {
            "kind": kind,
            "topic": topics.to_numpy(),
            "label": [labels[t] for t in topics.tolist()],
            "name": [names[(kind, key)] for key in keys.tolist()],
            "papers": weight[pairs].to_numpy().round(6),
            "first_period": np.asarray(periods.names, dtype=object)[first],
            "first_share": share[at, first].round(6),
            "last_period": np.asarray(periods.names, dtype=object)[last],
            "last_share": share[at, last].round(6),
            "corpus_first_share": expected[at, first].round(6),
            "corpus_last_share": expected[at, last].round(6),
            "slope_points": (100 * test.slope).round(4),
            "low_points": (100 * test.slope_low).round(4),
            "high_points": (100 * test.slope_high).round(4),
            "p": test.p_value,
        }
    )
    table["q"] = benjamini_hochberg(table["p"].to_numpy())
    table["grade"] = grade(table["q"], compare.false_discovery_rate, compare.suggestive_q)
    table["direction"] = direction(table["slope_points"], table["grade"])
    return table


def over_represented(
    long: pd.DataFrame, topic: np.ndarray, labels: dict[int, str], min_papers: float, compare: GradingLevels
) -> pd.DataFrame:
    """``people_topics.csv``: per kind, each of the ``CORPUS_NAMES`` names with most papers (at
    least ``min_papers``) and each topic, the
    name's fractional papers in the topic, the share of its papers there, and whether it holds
    more (or fewer) of the topic than the other names (graded cells only are kept).
    """
    topics = sorted(t for t in labels if t != OUTLIER)
    if long.empty:
        return pd.DataFrame(columns=OVER_COLUMNS)
    frame = long.assign(topic=topic_rows(topic, labels)[long["row"].to_numpy()])
    names = display_names(long)
    tables = []
    for kind in TESTED_KINDS:
        of_kind = frame[frame["kind"] == kind]
        weight = of_kind.groupby("key")["weight"].sum()
        largest = (
            weight[weight >= min_papers].sort_values(ascending=False, kind="stable").index[:CORPUS_NAMES]
        )
        keys = sorted(largest)
        if len(keys) < 2 or not topics:
            continue
        counts = _matrix(of_kind, keys, topics, "topic").T  # topics × names
        totals = weight[keys].to_numpy()
        tests = cell_tests(counts, totals)
        q = benjamini_hochberg(tests.p_value.ravel()).reshape(counts.shape)
        graded = grade(q.ravel(), compare.false_discovery_rate, compare.suggestive_q).reshape(counts.shape)
        found = np.isin(graded, [SIGNIFICANT, SUGGESTIVE])
        table = pd.DataFrame(
            {
                "kind": kind,
                "name": np.tile([names[(kind, key)] for key in keys], len(topics)),
                "topic": np.repeat(topics, len(keys)),
                "label": np.repeat([labels[t] for t in topics], len(keys)),
                "papers": counts.ravel().round(6),
                "name_papers": np.tile(totals, len(topics)).round(6),
                "share": (counts / totals).ravel().round(6),
                "residual": tests.residual.ravel().round(4) + 0.0,
                "p": tests.p_value.ravel(),
                "q": q.ravel(),
                "grade": graded.ravel(),
                "direction": np.where(found, np.where(tests.residual > 0, "over", "under"), "").ravel(),
            }
        )
        tables.append(table[table["direction"] != ""])
    if not tables:
        return pd.DataFrame(columns=OVER_COLUMNS)
    return pd.concat(tables, ignore_index=True)[OVER_COLUMNS].sort_values(["kind", "q", "name", "topic"])


def period_shares(long: pd.DataFrame, periods: Periods, top: int, confidence: float) -> pd.DataFrame:
    """``people_periods.csv``: the ``top`` institutions and countries of the corpus (by fractional
    papers), their share of each period's papers that carry the kind, with Wilson intervals.
    """
    if long.empty:
        return pd.DataFrame(columns=PERIOD_COLUMNS)
    names = display_names(long)
    frame = period_table(long, periods)
    tables = []
    for kind in TESTED_KINDS:
        of_kind = frame[frame["kind"] == kind]
        if of_kind.empty:
            continue
        totals = of_kind.groupby("period")["row"].nunique().reindex(periods.names, fill_value=0).to_numpy()
        keys = of_kind.groupby("key")["weight"].sum().sort_values(ascending=False, kind="stable").index[:top]
        counts = _matrix(of_kind, list(keys), periods.names, "period")
        low, high = wilson_interval(counts, np.broadcast_to(totals, counts.shape), confidence)
        tables.append(
            pd.DataFrame(
                {
                    "kind": kind,
                    "name": np.repeat([names[(kind, key)] for key in keys], len(periods.names)),
                    "period": np.tile(periods.names, len(keys)),
                    "papers": counts.ravel().round(6),
                    "period_papers": np.tile(totals, len(keys)),
                    "share": (counts / np.maximum(totals, 1)).ravel().round(6),
                    "low": low.ravel().round(6),
                    "high": high.ravel().round(6),
                }
            )
        )
    return (
        pd.concat(tables, ignore_index=True)[PERIOD_COLUMNS]
        if tables
        else pd.DataFrame(columns=PERIOD_COLUMNS)
    )


def rising_found(table: pd.DataFrame, limit: int = 20) -> pd.DataFrame:
    """The graded rises and falls (significant or suggestive), strongest first, ``limit`` of them."""
    return (
        table[table["grade"].isin([SIGNIFICANT, SUGGESTIVE])].sort_values(["q", "topic", "name"]).head(limit)
    )


def rising_sentences(table: pd.DataFrame, limit: int = 20) -> list[str]:
    """The graded rises and falls in plain words, strongest first."""
    return [rising_sentence(row) for row in rising_found(table, limit).itertuples()]


def rising_sentence(r) -> str:
    """A rise or fall (a row of ``people_rising.csv``) in plain words."""
    return (
        f"{r.name} ({r.kind}): share of topic {r.topic} “{r.label}” went from {100 * r.first_share:.0f}% "
        f"({r.first_period}) to {100 * r.last_share:.0f}% ({r.last_period}) while its share of all papers went "
        f"from {100 * r.corpus_first_share:.0f}% to {100 * r.corpus_last_share:.0f}%: {r.slope_points:+.1f} "
        f"points a period beyond the corpus (interval {r.low_points:+.1f} to {r.high_points:+.1f}); "
        f"{r.grade} (q = {r.q:.3g})."
    )
