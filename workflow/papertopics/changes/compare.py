"""What changed between dumps (or years): each topic's share with an interval, the change in
share between two of them with a test per topic, and the topics that are new or have faded.

Shares get Wilson score intervals; a change in share gets Newcombe's hybrid score interval
(built from the two Wilson intervals) and a two-sided Fisher exact test, with the
Benjamini–Hochberg correction across topics, so that a three-paper wobble in a small dump is
not called a trend. A paper in two dumps counts in both.

A topic's papers are counted twice: its *clustered* papers (HDBSCAN put them in the topic) and
all the papers it shows, the clustered ones and the outliers assigned to it for display (its
nearest centroid, ``topics.reduce_outliers``). The tests run on the clustered papers
(``TESTED_ON``): outliers are papers HDBSCAN found no dense region for, and counting them moves
a topic's share with whatever the outliers of a year happen to be near (see docs/changes.md).
Shares of either count are of all the period's papers, outliers included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from papertopics.changes.bursts import detect_bursts, term_counts, topic_concentration, without_nested
from papertopics.changes.groups import Periods
from papertopics.changes.trajectories import recent_trend, topic_shapes
from papertopics.changes.trends import (
    NOT_TESTED,
    SIGNIFICANT,
    cochran_armitage,
    direction,
    grade,
    period_scores,
)
from papertopics.errors import PipelineInputError
from papertopics.topics.fit import OUTLIER

# Topics listed with a bursting term: those holding most of its papers in the burst.
_BURST_TOPICS = 3
# The count the trend and pairwise tests run on: a topic's clustered papers, not its assigned outliers.
TESTED_ON = "clustered"


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


def benjamini_hochberg(pvalues, axis: int = -1) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values), in the input's order, each slice along
    ``axis`` corrected on its own (one row per simulated run, say).
    """
    from scipy.stats import false_discovery_control

    pvalues = np.asarray(pvalues, dtype=np.float64)
    return false_discovery_control(pvalues, axis=axis, method="bh") if pvalues.size else pvalues


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


def _pick_periods(names: list[str], tested: list[str], by: str, baseline, target) -> tuple[str, str] | None:
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


def _examples(
    topic: int, period: str, papers: pd.DataFrame, periods: Periods, representatives: list[str], count: int
):
    """Papers to show for a topic in one period: its representative papers there, else its first
    clustered ones.
    """
    in_period = set(papers["id"].to_numpy()[periods.rows[periods.period == period]].tolist())
    members = papers[(papers["topic"] == topic) & papers["id"].isin(in_period)]
    members = pd.concat([members[~members["outlier"]], members[members["outlier"]]])
    chosen = [i for i in representatives if i in set(members["id"])][:count]
    chosen += [i for i in members["id"] if i not in chosen][: count - len(chosen)]
    names = dict(zip(members["id"], members["display_name"], strict=True))
    return [{"id": i, "name": names[i]} for i in chosen]


def _plain(value):
    """A value as JSON wants it: numpy scalars to Python, floats rounded, NaN to None."""
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else round(float(value), 6)
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    """Rows as JSON-ready dicts (see ``_plain``)."""
    return [{key: _plain(value) for key, value in row.items()} for row in frame.to_dict(orient="records")]


@dataclass(frozen=True)
class CompareSettings:
    """The ``compare`` knobs (see the config schema for each one's meaning and default)."""

    by: str
    baseline: str | int
    target: str | int
    confidence: float
    false_discovery_rate: float
    suggestive_q: float
    new_topic_share: float
    faded_topic_share: float
    min_papers: int
    min_period_papers: int
    min_wording_papers: int
    burst_scaling: float
    burst_transition_cost: float
    burst_min_papers: int
    burst_min_concentration: float
    min_effect_points: float = 1.0
    recent_periods: int = 5
    shape_min_periods: int = 6
    shape_permutations: int = 999
    burst_stop_share: float = 0.05
    bursts_shown: int = 15
    theme_min_papers: int = 20
    theme_min_explained: float = 0.02
    theme_permutations: int = 999


def describe_changes(
    papers: pd.DataFrame,
    texts: list[str],
    topic_details: list[dict],
    lineage: dict,
    periods: Periods,
    settings: CompareSettings,
    stop_words: str | None,
) -> tuple[pd.DataFrame, dict]:
    """The per-dump share table (``dump_shares.csv``) and the comparison (``changes.json``).

    Args:
        papers: the topics stage's paper table (``id``, ``topic``, ``outlier`` as booleans,
            ``dumps``, ``display_name``, and ``year`` where the input had one).
        texts: each paper's text (title and abstract), in the order of ``papers``, for the terms.
        topic_details: the topics stage's topic records (label, representative papers).
        lineage: the topics stage's events since the previous run (``lineage.json``).
        periods: the papers' periods, in the order of ``papers`` (the groups stage's).
        settings: the ``compare`` knobs.
        stop_words: the stop-word list of the keyphrases that may burst (``topics.stop_words``).

    Returns:
        The share table and the comparison record: the trends over every period (``trends``),
        the terms that burst (``bursts``), the newest period against the one before (or the
        chosen two), new and faded topics, and the series of shares.
    """
    labels = {t["topic"]: t["label"] for t in topic_details}
    shares = dump_shares(papers, periods, labels, settings.confidence)
    period_papers = [int((periods.period == name).sum()) for name in periods.names]
    tested = [
        n for n, size in zip(periods.names, period_papers, strict=True) if size >= settings.min_period_papers
    ]
    record = {
        "by": periods.by,
        "periods": periods.names,
        "period_papers": period_papers,
        "papers_without_period": periods.left_out,
        "year_note": periods.note,
        "min_period_papers": settings.min_period_papers,
        "small_periods": [n for n in periods.names if n not in tested],
        "confidence": settings.confidence,
        "false_discovery_rate": settings.false_discovery_rate,
        "suggestive_q": settings.suggestive_q,
        "min_effect_points": settings.min_effect_points,
        "tested_on": TESTED_ON,
        # The report marks a topic's wording in a period with fewer of its papers as too few to read.
        "min_wording_papers": settings.min_wording_papers,
        "since_previous_run": lineage,
        "series": _share_series(shares, labels),
    }
    if not periods.ordered:
        # Venues (any groups without an order): no trend, burst or newest-against-previous over them.
        reason = unordered_reason(periods.by)
        absent = {"available": False, "reason": reason}
        return shares, {
            **record,
            "ordered": False,
            "trends": absent,
            "bursts": absent,
            "comparable": False,
            "reason": reason,
        }
    record["trends"] = topic_trends(shares, periods.by, tested, settings)
    record["bursts"] = term_bursts(texts, papers, periods, tested, labels, settings, stop_words)
    if len(periods.names) < 2:
        only = periods.names[0] if periods.names else "none"
        return shares, {
            **record,
            "comparable": False,
            "reason": f"only one {periods.by} ({only}): nothing to compare",
        }
    # The two newest periods large enough to test, else (all too small) the two newest, shown untested.
    before, after = _pick_periods(
        periods.names, tested, periods.by, settings.baseline, settings.target
    ) or _pick_periods(periods.names, periods.names, periods.by, settings.baseline, settings.target)
    comparison = compare_periods(shares, before, after, settings.confidence, settings.false_discovery_rate)
    comparison["grade"] = grade(comparison["q_value"], settings.false_discovery_rate, settings.suggestive_q)
    untested = [p for p in (before, after) if p not in tested]
    if untested:
        comparison = comparison.assign(p_value=np.nan, q_value=np.nan, significant=False, grade=NOT_TESTED)
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
        "tested": not untested,
        "test": "two-sided Fisher exact test per topic, Benjamini-Hochberg across topics",
        "tested_on": TESTED_ON,
        "thresholds": {
            "new_topic_share": settings.new_topic_share,
            "faded_topic_share": settings.faded_topic_share,
            "min_papers": settings.min_papers,
        },
        "comparison": _records(comparison),
        "new_topics": listed(
            (weight >= settings.new_topic_share)
            & (comparison["target_clustered_papers"] >= settings.min_papers),
            after,
        ),
        "faded_topics": listed(
            (weight <= settings.faded_topic_share)
            & (comparison["baseline_clustered_papers"] >= settings.min_papers),
            before,
        ),
    }


def unordered_reason(by: str) -> str:
    """Why no trend is tested over groups that have no order (``compare.by`` a field such as venue)."""
    return (
        f"compare.by is {by!r}, whose groups have no order, so no trend, burst or newest-against-previous "
        f"test runs over them; the Venues section compares them. Set compare.by to [{by}, year] for trends "
        "over years."
    )


TREND_TEST = (
    "Cochran-Armitage test for trend in proportions per topic (score: the year, or the dump's place), "
    "Benjamini-Hochberg across topics"
)


def topic_trends(shares: pd.DataFrame, by: str, tested: list[str], settings: CompareSettings) -> dict:
    """Each topic's trend in share across the ``tested`` periods (3 or more), strongest evidence
    first, or why there is none.
    """
    if len(tested) < 3:
        return {
            "available": False,
            "reason": f"a trend needs 3 or more {by}s with {settings.min_period_papers} papers or more; "
            f"there {'is' if len(tested) == 1 else 'are'} {len(tested)}",
        }
    real = shares[(shares["topic"] != OUTLIER) & shares["period"].isin(tested)]
    counts = real.pivot(index="topic", columns="period", values="papers")[tested]
    clustered = real.pivot(index="topic", columns="period", values="clustered_papers")[tested]
    totals = real.groupby("period")["period_papers"].first()[tested].to_numpy()
    scores = period_scores(tested, by)
    test = cochran_armitage(clustered.to_numpy(), totals, scores, settings.confidence)
    q_values = benjamini_hochberg(test.p_value)
    graded = grade(q_values, settings.false_discovery_rate, settings.suggestive_q)
    labels = real.groupby("topic")["label"].first()
    table = pd.DataFrame(
        {
            "topic": counts.index.to_numpy(),
            "label": labels[counts.index].to_numpy(),
            "direction": direction(test.slope, graded),
            "grade": graded,
            "slope_pp": 100 * test.slope,
            "slope_low_pp": 100 * test.slope_low,
            "slope_high_pp": 100 * test.slope_high,
            "p_value": test.p_value,
            "q_value": q_values,
        }
    )
    # The move over the whole span (the slope times the span), the size findings are ranked by.
    span = 100 * (scores[-1] - scores[0])
    table["move_pp"], table["move_low_pp"] = test.slope * span, test.slope_low * span
    table["move_high_pp"] = test.slope_high * span
    table["finding"] = (graded == SIGNIFICANT) & (np.abs(table["move_pp"]) >= settings.min_effect_points)
    shapes = topic_shapes(clustered.to_numpy(), totals, scores, tested, test, q_values, settings)
    for column, values in shapes["columns"].items():
        table[column] = values
    recent = recent_trend(clustered.to_numpy(), totals, scores, tested, settings)
    for column, values in (recent or {"columns": {}})["columns"].items():
        table[column] = values
    table["papers"] = counts.astype(int).to_numpy().tolist()
    table["clustered_papers"] = clustered.astype(int).to_numpy().tolist()
    table["share"] = (counts.to_numpy() / totals).round(6).tolist()
    table["clustered_share"] = (clustered.to_numpy() / totals).round(6).tolist()
    table = table.assign(evidence=test.p_value, size=-np.abs(test.slope)).sort_values(
        ["evidence", "size", "topic"], kind="stable"
    )
    return {
        "available": True,
        "test": TREND_TEST,
        "shape_test": shapes["test"],
        "min_effect_points": settings.min_effect_points,
        "recent_periods": recent["periods"] if recent else None,
        "tested_on": TESTED_ON,
        "periods": tested,
        "period_papers": totals.astype(int).tolist(),
        "unit": "year" if by == "year" else by,
        "topics": _records(table.drop(columns=["evidence", "size"])),
    }


def _holds_phrase(term: str, phrases: set[str]) -> bool:
    """Whether some run of ``term``'s words is one of ``phrases``."""
    words = term.split()
    return any(
        " ".join(words[i:j]) in phrases for i in range(len(words)) for j in range(i + 1, len(words) + 1)
    )


def term_bursts(
    texts: list[str],
    papers: pd.DataFrame,
    periods: Periods,
    tested: list[str],
    labels: dict[int, str],
    settings: CompareSettings,
    stop_words: str | None,
) -> dict:
    """The keyphrases that burst in some of the ``tested`` periods, strongest first, each with
    the topics that hold most of its papers there; or why there are none.
    """
    if len(tested) < 3:
        return {
            "available": False,
            "reason": f"bursts need 3 or more {periods.by}s with {settings.min_period_papers} papers or more; "
            f"there {'is' if len(tested) == 1 else 'are'} {len(tested)}",
        }
    in_tests = np.isin(periods.period, tested)
    found = term_counts(
        texts, periods.rows[in_tests], periods.period[in_tests], tested, stop_words, settings.burst_min_papers
    )
    # Only terms that gather in some topics: the period's style of writing is not a research trend.
    topical = (
        topic_concentration(found.holds, papers["topic"].to_numpy()) >= settings.burst_min_concentration
        if len(found.terms)
        else np.zeros(0, dtype=bool)
    )
    # Nor the corpus's own stop-phrases: terms in every period and in a large share of all the
    # papers ("network" in a neural-network venue, "datasets", "state art") are how the corpus
    # writes, whatever their spread over topics.
    everywhere = (found.counts > 0).all(axis=1) if len(found.terms) else np.zeros(0, dtype=bool)
    common = found.counts.sum(axis=1) / max(int(found.totals.sum()), 1) >= settings.burst_stop_share
    stop_phrases = np.flatnonzero(everywhere & common) if len(found.terms) else np.zeros(0, dtype=int)
    topical[stop_phrases] = False
    # A longer phrase around a stop-phrase of two words or more ("state art diffusion") is no more
    # readable as a trend; one around a common word ("language models" around "models") may be.
    stops = {str(found.terms[i]) for i in stop_phrases if " " in str(found.terms[i])}
    if stops:
        topical &= np.array([not _holds_phrase(str(term), stops) for term in found.terms], dtype=bool)
    candidates = np.flatnonzero(topical)
    kept = without_nested(
        detect_bursts(
            found.counts[candidates],
            found.totals,
            settings.burst_scaling,
            settings.burst_transition_cost,
            settings.false_discovery_rate,
        ),
        found.terms[candidates],
    )
    topic_of = papers["topic"].to_numpy()
    records = []
    for found_burst, q in kept:
        burst = replace(found_burst, term=int(candidates[found_burst.term]))
        span = tested[burst.start : burst.end + 1]
        inside = np.isin(periods.period, span) & in_tests
        rows = np.unique(periods.rows[inside])
        holders = rows[found.holds[rows, burst.term].toarray().ravel() > 0]
        span_papers = int(found.totals[burst.start : burst.end + 1].sum())
        papers_in_span = int(found.counts[burst.term, burst.start : burst.end + 1].sum())
        elsewhere = int(found.counts[burst.term].sum()) - papers_in_span
        topics, held = np.unique(topic_of[holders], return_counts=True)
        order = np.lexsort((topics, -held))
        records.append(
            {
                "term": str(found.terms[burst.term]),
                "start": span[0],
                "end": span[-1],
                "periods": span,
                "strength": round(burst.strength, 3),
                "q_value": q,
                "papers": found.counts[burst.term].astype(int).tolist(),
                "papers_in_span": papers_in_span,
                "share_in_span": papers_in_span / span_papers,
                "share_elsewhere": elsewhere / max(int(found.totals.sum()) - span_papers, 1),
                "topics": [
                    {"topic": int(t), "label": labels.get(int(t), ""), "papers": int(n)}
                    for t, n in zip(topics[order], held[order], strict=True)
                    if t != OUTLIER
                ][:_BURST_TOPICS],
            }
        )
    # Ranked by strength times papers in the burst (a strong burst of four papers reads as noise);
    # each period shows its first ``bursts_shown``, the rest are in bursts.csv.
    records.sort(key=lambda r: (-r["strength"] * r["papers_in_span"], r["term"]))
    shown_in: dict[str, int] = {}
    for record in records:
        record["rank_score"] = round(record["strength"] * record["papers_in_span"], 3)
        record["shown"] = all(shown_in.get(p, 0) < settings.bursts_shown for p in record["periods"])
        if record["shown"]:
            for period in record["periods"]:
                shown_in[period] = shown_in.get(period, 0) + 1
    by_share = found.counts[stop_phrases].sum(axis=1)
    return {
        "available": True,
        "stop_share": settings.burst_stop_share,
        "stop_phrases": len(stop_phrases),
        "stop_phrase_examples": [
            str(found.terms[i]) for i in stop_phrases[np.argsort(-by_share, kind="stable")][:20]
        ],
        "shown_per_period": settings.bursts_shown,
        "model": "Kleinberg's two-state burst model per keyphrase (1-3 words), each burst tested against "
        "the other periods (Bonferroni over the spans, Benjamini-Hochberg across terms)",
        "periods": tested,
        "period_papers": found.totals.astype(int).tolist(),
        "scaling": settings.burst_scaling,
        "transition_cost": settings.burst_transition_cost,
        "min_papers": settings.burst_min_papers,
        "min_concentration": settings.burst_min_concentration,
        "terms_counted": len(found.terms),
        "terms_tested": len(candidates),
        "bursts": [{key: _plain(value) for key, value in r.items()} for r in records],
    }


_SERIES_COUNTS = ("papers", "clustered_papers", "assigned_papers")
_SERIES_SHARES = ("share", "share_low", "share_high", "clustered_share", "clustered_share_low")
_SERIES_SHARES += ("clustered_share_high",)


def _share_series(shares: pd.DataFrame, labels: dict[int, str]) -> list[dict]:
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


_TREND_COLUMNS = [
    "topic",
    "label",
    "direction",
    "grade",
    "slope_pp",
    "slope_low_pp",
    "slope_high_pp",
    "p_value",
    "q_value",
    "move_pp",
    "move_low_pp",
    "move_high_pp",
    "finding",
    "shape",
    "turn_start",
    "turn_end",
    "shape_p",
    "shape_q",
    "shape_move_pp",
    "shape_move_low_pp",
    "shape_move_high_pp",
    "tested_on",
]


def trend_table(record: dict) -> pd.DataFrame:
    """``trends.csv``: one row per topic, strongest evidence first, the count its test ran on
    (``tested_on``), and in each tested period its clustered papers and their share
    (``clustered papers <period>``, ``clustered share <period>``) then all its papers, assigned
    outliers included (``papers <period>``, ``share <period>``); only the header where no
    trend could be tested.
    """
    trends = record["trends"]
    if not trends["available"]:
        return pd.DataFrame(columns=_TREND_COLUMNS)
    lists = ["clustered_papers", "clustered_share", "papers", "share"]
    table = pd.DataFrame(trends["topics"]).assign(tested_on=trends["tested_on"])
    turns = table.pop("turn")
    place = table.columns.get_loc("shape") + 1
    table.insert(place, "turn_start", [t[0] if t else "" for t in turns])
    table.insert(place + 1, "turn_end", [t[1] if t else "" for t in turns])
    table = table.drop(columns=["shape_legs", "fitted_share"])
    per_period = {
        f"{column.replace('_', ' ')} {period}": table[column].map(lambda v, i=index: v[i])
        for index, period in enumerate(trends["periods"])
        for column in lists
    }
    return pd.concat([table.drop(columns=lists), pd.DataFrame(per_period, index=table.index)], axis=1)


_BURST_COLUMNS = ["term", "start", "end", "strength", "papers_in_span", "rank_score", "shown", "q_value"]
_BURST_COLUMNS += ["share_in_span", "share_elsewhere", "topics"]


def burst_table(record: dict) -> pd.DataFrame:
    """``bursts.csv``: every burst, strongest × largest first (``rank_score``), whether the report
    shows it (``shown``), and the topics holding most of its papers as "id: label (papers)".
    """
    bursts = record["bursts"]
    if not bursts.get("available") or not bursts["bursts"]:
        return pd.DataFrame(columns=_BURST_COLUMNS)
    table = pd.DataFrame(bursts["bursts"])
    table["topics"] = table["topics"].map(
        lambda ts: "; ".join(f"{t['topic']}: {t['label']} ({t['papers']})" for t in ts)
    )
    return table[_BURST_COLUMNS]


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
    return {"previous_run": lineage["previous_run"], "compared": True, "moved": _records(moved[columns])}
