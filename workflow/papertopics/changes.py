"""What changed between dumps (or years): each topic's share with an interval, the change in
share between two of them with a test per topic, and the topics that are new or have faded.

Shares get Wilson score intervals; a change in share gets Newcombe's hybrid score interval
(built from the two Wilson intervals) and a two-sided Fisher exact test, with the
Benjamini–Hochberg correction across topics, so that a three-paper wobble in a small dump is
not called a trend. A paper in two dumps counts in both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from papertopics.errors import PipelineInputError
from papertopics.topics import OUTLIER

BY_CHOICES = ("auto", "dump", "year")


def wilson_interval(count, total, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of the proportion ``count / total`` (arrays allowed); (0, 1) where
    ``total`` is 0.
    """
    from scipy.stats import norm

    count = np.asarray(count, dtype=np.float64)
    total = np.asarray(total, dtype=np.float64)
    z = norm.ppf(0.5 + confidence / 2)
    safe_total = np.where(total > 0, total, 1.0)
    share = count / safe_total
    centre = (share + z * z / (2 * safe_total)) / (1 + z * z / safe_total)
    half = (
        z / (1 + z * z / safe_total) * np.sqrt(share * (1 - share) / safe_total + z * z / (4 * safe_total**2))
    )
    low = np.where(total > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
    high = np.where(total > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    return low, high


def share_difference_interval(
    count_before, total_before, count_after, total_after, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Change in share (after − before) with Newcombe's hybrid score interval (his method 10)."""
    before = np.asarray(count_before, np.float64) / np.maximum(np.asarray(total_before, np.float64), 1)
    after = np.asarray(count_after, np.float64) / np.maximum(np.asarray(total_after, np.float64), 1)
    low_before, high_before = wilson_interval(count_before, total_before, confidence)
    low_after, high_after = wilson_interval(count_after, total_after, confidence)
    change = after - before
    low = change - np.sqrt((after - low_after) ** 2 + (high_before - before) ** 2)
    high = change + np.sqrt((high_after - after) ** 2 + (before - low_before) ** 2)
    return change, low, high


def share_change_pvalues(count_before, total_before, count_after, total_after) -> np.ndarray:
    """Two-sided Fisher exact test of each topic's share in two dumps, one p-value per topic."""
    from scipy.stats import fisher_exact

    return np.array(
        [
            fisher_exact([[a, n_a - a], [b, n_b - b]]).pvalue
            for a, n_a, b, n_b in zip(count_after, total_after, count_before, total_before, strict=True)
        ],
        dtype=np.float64,
    )


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values), in the input's order."""
    from scipy.stats import false_discovery_control

    pvalues = np.asarray(pvalues, dtype=np.float64)
    return false_discovery_control(pvalues, method="bh") if len(pvalues) else pvalues


@dataclass
class Periods:
    """The papers' periods (dumps or years), oldest first, and each (paper row, period) pair."""

    by: str
    names: list[str]
    rows: np.ndarray  # index into the paper table, one entry per (paper, period) pair
    period: np.ndarray  # the period of each pair
    left_out: int  # papers without a period (no year, when comparing years)


def _years(papers: pd.DataFrame) -> pd.Series:
    """Each paper's year as text ('2024'), or '' where it has none."""
    if "year" not in papers.columns:
        return pd.Series([""] * len(papers), index=papers.index)
    numbers = pd.to_numeric(papers["year"].astype(str).str.strip(), errors="coerce")
    whole = numbers.notna() & (numbers == numbers.round())
    return numbers.where(whole).map(lambda y: "" if pd.isna(y) else str(int(y)))


def paper_periods(papers: pd.DataFrame, by: str, dump_order: list[str]) -> Periods:
    """Group the papers by dump (each of its dumps) or by year. ``auto`` compares years when
    every paper carries one and there are two or more, else dumps, in ``dump_order``.
    """
    years = _years(papers)
    if by == "auto":
        by = "year" if (years != "").all() and years.nunique() >= 2 else "dump"
    if by == "year":
        if (years == "").all():
            raise PipelineInputError(
                "compare.by is 'year' but no paper carries a year; give the papers a 'year' field "
                "(JSON Lines, JSON or CSV input) or set compare.by to 'dump' or 'auto'."
            )
        has_year = (years != "").to_numpy()
        names = sorted(set(years[has_year]), key=int)
        return Periods(
            "year", names, np.flatnonzero(has_year), years[has_year].to_numpy(), int((~has_year).sum())
        )
    listed = papers["dumps"].astype(str).str.split(";")
    rows = np.repeat(np.arange(len(papers)), listed.map(len).to_numpy())
    period = np.array([dump for dumps in listed for dump in dumps], dtype=object)
    present = set(period.tolist())
    names = [d for d in dump_order if d in present] + sorted(present - set(dump_order))
    return Periods("dump", names, rows, period, 0)


def dump_shares(
    papers: pd.DataFrame, periods: Periods, labels: dict[int, str], confidence: float
) -> pd.DataFrame:
    """Topic × period: papers, the period's papers, share and its Wilson interval.

    Every topic appears in every period (0 papers where it has none), the outlier group too.
    """
    pairs = pd.DataFrame({"topic": papers["topic"].to_numpy()[periods.rows], "period": periods.period})
    counts = pairs.groupby(["topic", "period"]).size()
    totals = pairs.groupby("period").size()
    topics = sorted(labels, key=lambda t: (t == OUTLIER, t))
    index = pd.MultiIndex.from_product([topics, periods.names], names=["topic", "period"])
    table = counts.reindex(index, fill_value=0).rename("papers").reset_index()
    table["period_papers"] = table["period"].map(totals).fillna(0).astype(int)
    table["share"] = table["papers"] / table["period_papers"].where(table["period_papers"] > 0, 1)
    table["share_low"], table["share_high"] = wilson_interval(
        table["papers"], table["period_papers"], confidence
    )
    table.insert(1, "label", table["topic"].map(labels))
    table.insert(2, "by", periods.by)
    return table


def _pick_periods(names: list[str], by: str, baseline, target) -> tuple[str, str]:
    """The two periods to compare: the given ones, or the two newest (the last two in order)."""
    chosen = []
    for key, value, default in (("baseline", baseline, names[-2]), ("target", target, names[-1])):
        name = default if value == "auto" else str(value)
        if name not in names:
            raise PipelineInputError(
                f"compare.{key} is {value!r}, but the papers' {by}s are {', '.join(names)}; "
                f"set compare.{key} to one of them or to auto."
            )
        chosen.append(name)
    if chosen[0] == chosen[1]:
        raise PipelineInputError(
            f"compare.baseline and compare.target are both {chosen[0]!r}; pick two different {by}s."
        )
    return chosen[0], chosen[1]


def compare_periods(
    shares: pd.DataFrame, baseline: str, target: str, confidence: float, false_discovery_rate: float
) -> pd.DataFrame:
    """One row per real topic: share in each period, the change in percentage points with its
    interval, the test's p-value and its Benjamini–Hochberg q-value; largest rise first.
    """
    real = shares[shares["topic"] != OUTLIER]
    before = real[real["period"] == baseline].set_index("topic")
    after = real[real["period"] == target].set_index("topic")
    table = pd.DataFrame({"topic": before.index, "label": before["label"].to_numpy()})
    for side, rows in (("baseline", before), ("target", after)):
        for column in ("papers", "period_papers", "share", "share_low", "share_high"):
            table[f"{side}_{column}"] = rows[column].to_numpy()
    change, low, high = share_difference_interval(
        table["baseline_papers"],
        table["baseline_period_papers"],
        table["target_papers"],
        table["target_period_papers"],
        confidence,
    )
    table["change_pp"], table["change_low_pp"], table["change_high_pp"] = 100 * change, 100 * low, 100 * high
    table["p_value"] = share_change_pvalues(
        table["baseline_papers"],
        table["baseline_period_papers"],
        table["target_papers"],
        table["target_period_papers"],
    )
    table["q_value"] = benjamini_hochberg(table["p_value"])
    table["significant"] = table["q_value"] < false_discovery_rate
    return table.sort_values(["change_pp", "topic"], ascending=[False, True], kind="stable").reset_index(
        drop=True
    )


def target_weight(comparison: pd.DataFrame) -> pd.Series:
    """Share of a topic's papers that come from the target, once both periods are weighted to
    the same size: 1 = only in the target, 0 = only in the baseline, 0.5 = equally common.
    """
    both = comparison["baseline_share"] + comparison["target_share"]
    return (comparison["target_share"] / both.where(both > 0, 1)).where(both > 0, 0.5)


def _examples(
    topic: int, period: str, papers: pd.DataFrame, periods: Periods, representatives: list[str], count: int
):
    """Papers to show for a topic in one period: its representative papers there, else its first."""
    in_period = set(papers["id"].to_numpy()[periods.rows[periods.period == period]].tolist())
    members = papers[(papers["topic"] == topic) & papers["id"].isin(in_period)]
    chosen = [i for i in representatives if i in set(members["id"])][:count]
    chosen += [i for i in members["id"] if i not in chosen][: count - len(chosen)]
    names = dict(zip(members["id"], members["display_name"], strict=True))
    return [{"id": i, "name": names[i]} for i in chosen]


def _records(frame: pd.DataFrame) -> list[dict]:
    """Rows as JSON-ready dicts: numpy scalars to Python, floats rounded, NaN to None."""

    def plain(value):
        if isinstance(value, (np.bool_, bool)):
            return bool(value)
        if isinstance(value, (np.integer,)):
            return int(value)
        if isinstance(value, (float, np.floating)):
            return None if math.isnan(value) else round(float(value), 6)
        return value

    return [{key: plain(value) for key, value in row.items()} for row in frame.to_dict(orient="records")]


def describe_changes(
    papers: pd.DataFrame,
    topic_details: list[dict],
    lineage: dict,
    dump_order: list[str],
    by: str,
    baseline,
    target,
    confidence: float,
    false_discovery_rate: float,
    new_topic_share: float,
    faded_topic_share: float,
    min_papers: int,
) -> tuple[pd.DataFrame, dict]:
    """The per-dump share table (``dump_shares.csv``) and the comparison (``changes.json``).

    Args:
        papers: the topics stage's paper table (``id``, ``topic``, ``dumps``, ``display_name``,
            and ``year`` where the input had one).
        topic_details: the topics stage's topic records (label, representative papers).
        lineage: the topics stage's events since the previous run (``lineage.json``).
        dump_order: the dumps in the order of ``inputs`` (their order when comparing dumps).
        by: ``dump``, ``year`` or ``auto`` (years when every paper has one and there are two or more).
        baseline: the period compared from, or ``auto`` for the second newest.
        target: the period compared to, or ``auto`` for the newest.
        confidence: the level of every interval (0.95).
        false_discovery_rate: the Benjamini–Hochberg level at which a change is significant.
        new_topic_share: a topic is new when at least this share of its papers is in the target,
            both periods weighted to the same size (see ``target_weight``).
        faded_topic_share: a topic has faded when at most this share of its papers is in the target.
        min_papers: the fewest papers a new topic needs in the target (a faded one in the baseline).

    Returns:
        The share table and the comparison record.
    """
    labels = {t["topic"]: t["label"] for t in topic_details}
    periods = paper_periods(papers, by, dump_order)
    shares = dump_shares(papers, periods, labels, confidence)
    record = {
        "by": periods.by,
        "periods": periods.names,
        "papers_without_period": periods.left_out,
        "confidence": confidence,
        "since_previous_run": lineage,
    }
    if len(periods.names) < 2:
        only = periods.names[0] if periods.names else "none"
        return shares, {
            **record,
            "comparable": False,
            "reason": f"only one {periods.by} ({only}): nothing to compare",
        }
    before, after = _pick_periods(periods.names, periods.by, baseline, target)
    comparison = compare_periods(shares, before, after, confidence, false_discovery_rate)
    weight = target_weight(comparison)
    representatives = {t["topic"]: t["representative_ids"] for t in topic_details}

    def listed(mask, period: str) -> list[dict]:
        return [
            {
                **row,
                "target_weight": round(float(w), 6),
                "examples": _examples(
                    row["topic"], period, papers, periods, representatives[row["topic"]], 3
                ),
            }
            for row, w in zip(_records(comparison[mask]), weight[mask], strict=True)
        ]

    return shares, {
        **record,
        "comparable": True,
        "baseline": before,
        "target": after,
        "false_discovery_rate": false_discovery_rate,
        "test": "two-sided Fisher exact test per topic, Benjamini-Hochberg across topics",
        "thresholds": {
            "new_topic_share": new_topic_share,
            "faded_topic_share": faded_topic_share,
            "min_papers": min_papers,
        },
        "comparison": _records(comparison),
        "new_topics": listed(
            (weight >= new_topic_share) & (comparison["target_papers"] >= min_papers), after
        ),
        "faded_topics": listed(
            (weight <= faded_topic_share) & (comparison["baseline_papers"] >= min_papers), before
        ),
        "series": _share_series(shares, labels),
    }


def _share_series(shares: pd.DataFrame, labels: dict[int, str]) -> list[dict]:
    """Each topic's shares over the periods, in period order, with their intervals."""
    real = shares[shares["topic"] != OUTLIER]
    return [
        {
            "topic": int(topic),
            "label": labels[topic],
            "papers": rows["papers"].astype(int).tolist(),
            "share": rows["share"].round(6).tolist(),
            "share_low": rows["share_low"].round(6).tolist(),
            "share_high": rows["share_high"].round(6).tolist(),
        }
        for topic, rows in real.groupby("topic", sort=True)
    ]
