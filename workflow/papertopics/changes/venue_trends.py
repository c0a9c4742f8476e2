"""Each venue's own trends (``compare.by: [venue, year]``): does a topic's share of a venue's
papers rise or fall over the years, and does it move differently in different venues?

Within each venue the test is the one the trends over the whole corpus use (``trends.py``): the
Cochran–Armitage test of each topic's share of the venue's papers over the venue's periods, on
each topic's clustered papers (``TESTED_ON``), its slope and the move over the venue's span
(slope times span, in points) with their intervals. A venue takes part with 3 or more periods of
``min_period_papers`` papers or more, as the corpus's trends do; its smaller periods are left out
of its tests. The Benjamini–Hochberg correction runs across every venue × topic test at once, and
the q-values are graded as the trends are; a *finding* is significant and moves at least
``min_effect_points`` points, as in the trends.

Whether a topic moves differently in different venues is a test of the venue × period
interaction: Cochran's Q of the venues' slopes, the weighted sum of their squared distances from
the weighted mean slope, each weighted by one over its variance. A venue's papers are its own
(one value of the field each), so the slopes are independent, and where every venue has the same
slope Q follows a chi-square with (venues − 1) degrees of freedom. A slope's variance here is the
least-squares slope's with each period's own share, not the trend test's pooled one: the slopes
compared need not be 0, and a topic rising from nothing has most of its variance in the late
periods, far from the centre, which the pooled share understates (on random splits of a real
corpus the pooled variance found slopes differing in 2.5-8.5% of the splits over five seeds,
this one in 3.0-6.5%; docs/changes.md). The slopes are per year
(per dump) whatever each venue's span, so a venue seen over fewer years is compared on the same
scale. Venues where the topic has no paper (or only its papers) have no variance and are left out
of that topic's Q; a topic needs 2 venues. Benjamini–Hochberg across topics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from papertopics.changes.shares import TESTED_ON
from papertopics.changes.tables import json_records, json_value
from papertopics.changes.trends import cochran_armitage, direction, period_scores
from papertopics.mapping.cluster import OUTLIER
from papertopics.periods.assign import Periods
from papertopics.stats import NO_EVIDENCE, SIGNIFICANT, benjamini_hochberg, grade

TEST = (
    "Cochran-Armitage test for trend in each topic's share of each venue's papers, Benjamini-Hochberg "
    "across every venue × topic test"
)
SLOPES_TEST = (
    "Cochran's Q of the venues' Cochran-Armitage slopes (chi-square with venues - 1 degrees of freedom), "
    "Benjamini-Hochberg across topics"
)
COLUMNS = ["venue", "topic", "label", "direction", "grade", "finding", "first_period", "last_period"]
COLUMNS += ["first_papers", "last_papers", "first_share", "last_share", "move_pp", "move_low_pp"]
COLUMNS += ["move_high_pp", "slope_pp", "p", "q", "slopes_differ_p", "slopes_differ_q", "slopes_differ"]


@dataclass(frozen=True)
class VenueSeries:
    """One venue's papers over its tested periods: each topic's clustered papers and the venue's."""

    venue: str
    periods: list[str]
    scores: np.ndarray  # each period's score (its year, or the dump's place among all the dumps)
    counts: np.ndarray  # topics × periods
    totals: np.ndarray  # the venue's papers in each period, outliers included


def venue_series(
    topic: np.ndarray,
    clustered: np.ndarray,
    periods: Periods,
    groups: Periods,
    topics: list[int],
    min_period_papers: int,
) -> tuple[list[VenueSeries], list[dict]]:
    """Each venue's series over its periods of ``min_period_papers`` papers or more, and the
    venues with fewer than 3 such periods (``venue``, ``periods``: how many it has, untested).
    """
    venue_of = np.full(len(topic), "", dtype=object)
    venue_of[groups.rows] = groups.period
    pair_venue = venue_of[periods.rows]
    scores = period_scores(periods.names, periods.by)
    place = {t: i for i, t in enumerate(topics)}
    found, skipped = [], []
    for name in groups.names:
        inside = pair_venue == name
        rows, period = periods.rows[inside], periods.period[inside]
        sizes = np.array([(period == p).sum() for p in periods.names], dtype=np.int64)
        tested = [i for i, size in enumerate(sizes) if size >= min_period_papers]
        if len(tested) < 3:
            skipped.append({"venue": name, "periods": len(tested)})
            continue
        column = {periods.names[i]: j for j, i in enumerate(tested)}
        counted = np.asarray(clustered, bool)[rows] & np.isin(np.asarray(topic)[rows], topics)
        counted &= np.isin(period, list(column))
        counts = np.zeros((len(topics), len(tested)), dtype=np.int64)
        np.add.at(
            counts,
            (
                [place[t] for t in np.asarray(topic)[rows[counted]].tolist()],
                [column[p] for p in period[counted]],
            ),
            1,
        )
        found.append(
            VenueSeries(name, [periods.names[i] for i in tested], scores[tested], counts, sizes[tested])
        )
    return found, skipped


def slope_variance(counts, totals, scores) -> np.ndarray:
    """The variance of each row's least-squares slope of membership on the score (the
    Cochran–Armitage slope) with each period's own share, not the pooled one: the test of
    whether venues' slopes differ runs where the slopes are not 0, and a topic that rises from
    nothing has most of its variance in the periods far from the centre.
    """
    counts = np.asarray(counts, dtype=np.float64)
    totals = np.asarray(totals, dtype=np.float64)
    spread = np.asarray(scores, dtype=np.float64) - (totals * scores).sum() / totals.sum()
    sxx = (totals * spread**2).sum()
    share = counts / totals
    return (totals * spread**2 * share * (1 - share)).sum(axis=-1) / sxx**2


def slopes_differ(series: list[VenueSeries]) -> np.ndarray:
    """Per topic, the p-value of Cochran's Q of the venues' slopes (NaN under 2 venues with a
    variance); each venue's series holds the same topics.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import chi2

    slope = np.stack(
        [cochran_armitage(s.counts, s.totals, s.scores).slope for s in series]
    )  # venues × topics
    variance = np.stack([slope_variance(s.counts, s.totals, s.scores) for s in series])
    usable = variance > 0
    weight = np.where(usable, 1 / np.where(usable, variance, 1.0), 0.0)
    venues = usable.sum(axis=0)
    mean = (weight * slope).sum(axis=0) / np.where(venues > 0, weight.sum(axis=0), 1.0)
    q_statistic = (weight * (slope - mean) ** 2).sum(axis=0)
    return np.where(venues >= 2, chi2.sf(q_statistic, np.maximum(venues - 1, 1)), np.nan)


def _adjusted(p_values: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg over the finite p-values; NaN stays NaN."""
    q_values = np.full(len(p_values), np.nan)
    finite = np.isfinite(p_values)
    q_values[finite] = benjamini_hochberg(p_values[finite])
    return q_values


def trend_rows(
    series: list[VenueSeries], topics: list[int], labels: dict[int, str], settings
) -> pd.DataFrame:
    """``venue_trends.csv``: one row per tested venue and real topic, venues in name order, topics
    in id order; ``settings``: the ``compare`` knobs (``papertopics.settings.CompareSettings``).
    """
    tests = [cochran_armitage(s.counts, s.totals, s.scores, settings.confidence) for s in series]
    p_values = np.concatenate([t.p_value for t in tests])
    q_values = benjamini_hochberg(p_values)
    graded = grade(q_values, settings.false_discovery_rate, settings.suggestive_q)
    span = np.concatenate([np.full(len(topics), 100 * (s.scores[-1] - s.scores[0])) for s in series])
    slope = np.concatenate([t.slope for t in tests])
    move = slope * span
    differ_p = slopes_differ(series)
    differ_q = _adjusted(differ_p)
    first = np.concatenate([s.counts[:, 0] for s in series])
    last = np.concatenate([s.counts[:, -1] for s in series])
    return pd.DataFrame(
        {
            "venue": np.repeat([s.venue for s in series], len(topics)),
            "topic": np.tile(topics, len(series)),
            "label": np.tile([labels[t] for t in topics], len(series)),
            "direction": direction(slope, graded),
            "grade": graded,
            "finding": (graded == SIGNIFICANT) & (np.abs(move) >= settings.min_effect_points),
            "first_period": np.repeat([s.periods[0] for s in series], len(topics)),
            "last_period": np.repeat([s.periods[-1] for s in series], len(topics)),
            "first_papers": first,
            "last_papers": last,
            "first_share": (first / np.repeat([s.totals[0] for s in series], len(topics))).round(6),
            "last_share": (last / np.repeat([s.totals[-1] for s in series], len(topics))).round(6),
            "move_pp": move.round(4),
            "move_low_pp": (np.concatenate([t.slope_low for t in tests]) * span).round(4),
            "move_high_pp": (np.concatenate([t.slope_high for t in tests]) * span).round(4),
            "slope_pp": (100 * slope).round(4),
            "p": p_values,
            "q": q_values,
            "slopes_differ_p": np.tile(differ_p, len(series)),
            "slopes_differ_q": np.tile(differ_q, len(series)),
            "slopes_differ": np.tile(differ_q < settings.false_discovery_rate, len(series)),
        },
        columns=COLUMNS,
    )


def _topics_found(table: pd.DataFrame) -> list[dict]:
    """The topics with some evidence of a trend in some venue, or whose slopes differ: each with
    every venue's row, strongest evidence first.
    """
    moving = table[(table["grade"] != NO_EVIDENCE) | table["slopes_differ"]]
    listed = []
    for topic in moving.sort_values(["p", "topic"], kind="stable")["topic"].drop_duplicates():
        rows = table[table["topic"] == topic]
        listed.append(
            {
                "topic": int(topic),
                "label": str(rows["label"].iloc[0]),
                "slopes_differ_q": json_value(rows["slopes_differ_q"].iloc[0]),
                "slopes_differ": bool(rows["slopes_differ"].iloc[0]),
                "venues": json_records(rows.drop(columns=["topic", "label"])),
            }
        )
    return listed


def strongest(table: pd.DataFrame) -> dict | None:
    """The venue-specific finding the brief names: in a topic whose slopes differ between venues
    (a topic that rose alike everywhere is the corpus's trend, not a venue's), the smallest p,
    then the largest move, then venue and topic; None where there is none.
    """
    found = table[table["finding"] & table["slopes_differ"]]
    if found.empty:
        return None
    best = (
        found.assign(size=-found["move_pp"].abs())
        .sort_values(["p", "size", "venue", "topic"], kind="stable")
        .iloc[0]
    )
    others = table[(table["topic"] == best["topic"]) & (table["venue"] != best["venue"])]
    return {
        **{key: json_value(value) for key, value in best.drop("size").items()},
        "others": json_records(others),
    }


def describe_venue_trends(
    topic: np.ndarray,
    clustered: np.ndarray,
    periods: Periods,
    groups: Periods | None,
    labels: dict[int, str],
    settings,
) -> tuple[pd.DataFrame, dict]:
    """``venue_trends.csv`` and the ``trends`` record of ``venues.json``: each venue's trends over
    the ordered periods, or why there are none (``available`` false).

    Args:
        topic: each paper's topic (the paper table's order, which the periods' rows index).
        clustered: each paper's flag: HDBSCAN clustered it (not an assigned outlier).
        periods: the papers' periods (the periods stage's); trends need them ordered.
        groups: the papers' venues (the periods stage's), None where no field is compared.
        labels: each topic's label; the real topics (not ``OUTLIER``) are tested.
        settings: the ``compare`` knobs (``papertopics.settings.CompareSettings``).
    """
    empty = pd.DataFrame(columns=COLUMNS)
    if groups is None or not periods.ordered:
        by = groups.by if groups is not None else "venue"
        reason = f"each venue's trends need its papers' years: set compare.by to [{by}, year]"
        return empty, {"available": False, "reason": reason}
    topics = sorted(t for t in labels if t != OUTLIER)
    series, skipped = venue_series(topic, clustered, periods, groups, topics, settings.min_period_papers)
    record = {
        "by": periods.by,
        "test": TEST,
        "slopes_test": SLOPES_TEST,
        "tested_on": TESTED_ON,
        "min_period_papers": settings.min_period_papers,
        "min_effect_points": settings.min_effect_points,
        "skipped": skipped,
    }
    if not series or not topics:
        reason = (
            f"no {groups.by} has 3 or more {periods.by}s with {settings.min_period_papers} papers or more"
            if not series
            else "there are no topics"
        )
        return empty, {**record, "available": False, "reason": reason}
    table = trend_rows(series, topics, labels, settings)
    return table, {
        **record,
        "available": True,
        "venues": [
            {"venue": s.venue, "periods": s.periods, "period_papers": s.totals.tolist()} for s in series
        ],
        "tests": len(table),
        "topics": _topics_found(table),
        "strongest": strongest(table),
    }
