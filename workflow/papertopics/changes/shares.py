"""Each topic's share per period with its interval, the two periods to compare and the change
in share between them, the series the report draws, and the shares a previous run published
recomputed with this run's topics (see ``papertopics.changes.compare``).
"""

from __future__ import annotations

import pandas as pd

from papertopics.changes.tables import json_records
from papertopics.errors import PipelineInputError
from papertopics.mapping.cluster import OUTLIER
from papertopics.periods.assign import Periods
from papertopics.stats import (
    benjamini_hochberg,
    share_change_pvalues,
    share_difference_interval,
    wilson_interval,
)

# The count the trend and pairwise tests run on: a topic's clustered papers, not its assigned outliers.
TESTED_ON = "clustered"


def dump_shares(
    papers: pd.DataFrame, periods: Periods, labels: dict[int, str], confidence: float
) -> pd.DataFrame:
    """Topic × period: the topic's papers (``papers``: clustered and assigned outliers), its
    clustered papers and the assigned outliers among them, the period's papers, and the share
    of each count with its Wilson interval (``share``, ``clustered_share``).

    ``papers`` needs an ``outlier`` column (booleans: the paper was an HDBSCAN outlier).
    Every topic appears in every period (0 papers where it has none), the outlier group too.
    """
    pairs = pd.DataFrame(
        {
            "topic": papers["topic"].to_numpy()[periods.rows],
            "period": periods.period,
            "clustered": ~papers["outlier"].to_numpy(dtype=bool)[periods.rows],
        }
    )
    topics = sorted(labels, key=lambda t: (t == OUTLIER, t))
    index = pd.MultiIndex.from_product([topics, periods.names], names=["topic", "period"])
    grouped = pairs.groupby(["topic", "period"])["clustered"]
    table = grouped.size().reindex(index, fill_value=0).rename("papers").reset_index()
    table["clustered_papers"] = grouped.sum().reindex(index, fill_value=0).astype(int).to_numpy()
    table["assigned_papers"] = table["papers"] - table["clustered_papers"]
    totals = pairs.groupby("period").size()
    table["period_papers"] = table["period"].map(totals).fillna(0).astype(int)
    for count, share in (("papers", "share"), ("clustered_papers", "clustered_share")):
        table[share] = table[count] / table["period_papers"].where(table["period_papers"] > 0, 1)
        table[f"{share}_low"], table[f"{share}_high"] = wilson_interval(
            table[count], table["period_papers"], confidence
        )
    table.insert(1, "label", table["topic"].map(labels))
    table.insert(2, "by", periods.by)
    return table


def pick_periods(names: list[str], tested: list[str], by: str, baseline, target) -> tuple[str, str] | None:
    """The two periods to compare: the given ones; for ``auto``, the newest period that takes
    part in the tests (``tested``) as target, and the newest such period before it as baseline.
    None where ``auto`` finds no such period.
    """

    def named(key: str, value) -> str:
        if str(value) not in names:
            raise PipelineInputError(
                f"compare.{key} is {value!r}, but the papers' {by}s are {', '.join(names)}; "
                f"set compare.{key} to one of them or to auto."
            )
        return str(value)

    after = named("target", target) if target != "auto" else (tested[-1] if tested else None)
    if baseline != "auto":
        before = named("baseline", baseline)
    else:
        earlier = [n for n in tested if after is not None and names.index(n) < names.index(after)]
        before = earlier[-1] if earlier else None
    if before is None or after is None:
        return None
    if before == after:
        raise PipelineInputError(
            f"compare.baseline and compare.target are both {before!r}; pick two different {by}s."
        )
    return before, after


def compare_periods(
    shares: pd.DataFrame, baseline: str, target: str, confidence: float, false_discovery_rate: float
) -> pd.DataFrame:
    """One row per real topic: in each period its papers, clustered papers and assigned outliers
    with the share of each, and the change in the clustered share in percentage points with its
    interval, the test's p-value and its Benjamini–Hochberg q-value (the test runs on the
    clustered papers, ``TESTED_ON``); largest rise first.
    """
    real = shares[shares["topic"] != OUTLIER]
    before = real[real["period"] == baseline].set_index("topic")
    after = real[real["period"] == target].set_index("topic")
    table = pd.DataFrame({"topic": before.index, "label": before["label"].to_numpy()})
    columns = ("papers", "clustered_papers", "assigned_papers", "period_papers", "share", "share_low")
    columns += ("share_high", "clustered_share", "clustered_share_low", "clustered_share_high")
    for side, rows in (("baseline", before), ("target", after)):
        for column in columns:
            table[f"{side}_{column}"] = rows[column].to_numpy()
    tested = (
        table["baseline_clustered_papers"],
        table["baseline_period_papers"],
        table["target_clustered_papers"],
        table["target_period_papers"],
    )
    change, low, high = share_difference_interval(*tested, confidence)
    table["change_pp"], table["change_low_pp"], table["change_high_pp"] = 100 * change, 100 * low, 100 * high
    table["p_value"] = share_change_pvalues(*tested)
    table["q_value"] = benjamini_hochberg(table["p_value"])
    table["significant"] = table["q_value"] < false_discovery_rate
    return table.sort_values(["change_pp", "topic"], ascending=[False, True], kind="stable").reset_index(
        drop=True
    )


def target_weight(comparison: pd.DataFrame) -> pd.Series:
    """Share of a topic's clustered papers that come from the target, once both periods are
    weighted to the same size: 1 = only in the target, 0 = only in the baseline, 0.5 = equally common.
    """
    before, after = comparison["baseline_clustered_share"], comparison["target_clustered_share"]
    both = before + after
    return (after / both.where(both > 0, 1)).where(both > 0, 0.5)


_SERIES_COUNTS = ("papers", "clustered_papers", "assigned_papers")
_SERIES_SHARES = ("share", "share_low", "share_high", "clustered_share", "clustered_share_low")
_SERIES_SHARES += ("clustered_share_high",)


def share_series(shares: pd.DataFrame, labels: dict[int, str]) -> list[dict]:
    """Each topic's counts and shares over the periods, in period order, with their intervals:
    all its papers and its clustered ones (see ``dump_shares``).
    """
    real = shares[shares["topic"] != OUTLIER]
    return [
        {
            "topic": int(topic),
            "label": labels[topic],
            **{column: rows[column].astype(int).tolist() for column in _SERIES_COUNTS},
            **{column: rows[column].round(6).tolist() for column in _SERIES_SHARES},
        }
        for topic, rows in real.groupby("topic", sort=True)
    ]


def recomputed_shares(now: pd.DataFrame, earlier: pd.DataFrame | None, lineage: dict) -> dict:
    """Where the shares the previous run published moved beyond this run's intervals.

    A rerun refits the topics on every paper, so an earlier period's shares are recomputed with
    this run's topics; for each topic that kept its id, the (topic, period) pairs whose earlier
    share lies outside this run's interval are listed with both figures.
    """
    if lineage.get("first_run", True):
        return {"previous_run": None, "moved": []}
    if earlier is None or earlier.empty or set(earlier["by"]) != set(now["by"]):
        return {"previous_run": lineage["previous_run"], "compared": False, "moved": []}
    kept = {topic["id"] for topic in lineage["kept"]}
    both = now[now["topic"].isin(kept)].merge(
        earlier[["topic", "period", "papers", "period_papers", "share"]].astype({"period": str}),
        on=["topic", "period"],
        suffixes=("", "_before"),
    )
    moved = both[(both["share_before"] < both["share_low"]) | (both["share_before"] > both["share_high"])]
    columns = ["topic", "label", "period", "papers_before", "period_papers_before", "share_before"]
    columns += ["papers", "period_papers", "share", "share_low", "share_high"]
    return {"previous_run": lineage["previous_run"], "compared": True, "moved": json_records(moved[columns])}
