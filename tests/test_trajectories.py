"""Trajectories over many periods (rising, falling, peaked, returned, steady), the recent
window, the smallest move told as a finding, and the simulation the method is held to.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
from conftest import default_config
from papertopics.changes.compare import CompareSettings, describe_changes
from papertopics.changes.tables import trend_table
from papertopics.changes.trajectories import (
    PEAKED,
    RETURNED,
    RISING,
    STEADY,
    planted_shares,
    turn_span,
)
from papertopics.periods.assign import paper_periods
from planted_trajectories import AISTATS_PAPERS, AISTATS_YEARS, PLANTED, simulate_shapes

NO_HISTORY = {"first_run": True, "run": 1, "previous_run": None, "topics": 0}


def settings(**overrides) -> CompareSettings:
    return CompareSettings(**{**default_config()["compare"], **overrides})


def test_each_planted_shape_is_found_in_four_runs_of_five_and_the_null_stays_quiet():
    # 200 runs per shape, 2% -> 10% of the papers (a peak: up over the first third of the years,
    # level, down over the last third), real period sizes (20 to 583 papers a year).
    shapes = simulate_shapes(AISTATS_YEARS, AISTATS_PAPERS, 200, 0.02, 0.10, permutations=999, seed=7)
    for index, shape in enumerate(PLANTED[:-1]):
        found = (shapes[index, :, 0] == shape).mean()
        assert found >= 0.8, f"{shape}: found in {found:.0%} of runs ({Counter(shapes[index, :, 0])})"
        # The steady topic beside it stays steady.
        assert (shapes[index, :, 1] != STEADY).mean() <= 0.08
    # No shape anywhere: some shape is reported in at most 5% of runs (BH's family-wise level under
    # the global null), with two standard errors of 200 runs' Monte Carlo error (3 points) allowed.
    null = (shapes[-1] != STEADY).any(axis=-1).mean()
    assert null <= 0.08, f"a shape in {null:.1%} of runs without any"


def test_the_peak_is_the_fitted_curve_above_half_its_height():
    fit = np.array([1, 1, 2, 6, 9, 10, 9, 8, 4, 2, 2]) / 100
    # Half-way between the top (10) and the higher end (2) is 6: periods 3 to 7.
    assert turn_span(fit, peak=True) == (3, 7)
    assert turn_span(-fit, peak=False) == (3, 7)
    assert turn_span(np.linspace(0, 1, 8), peak=True) is None  # the top at an end: no peak


def _long_series(shares_by_topic: dict[int, np.ndarray], sizes, years, seed: int) -> pd.DataFrame:
    """Papers drawn per year from the topics' shares (the rest in topic 9)."""
    rng = np.random.default_rng(seed)
    rows = []
    for index, (year, size) in enumerate(zip(years, sizes, strict=True)):
        shares = [float(s[index]) for s in shares_by_topic.values()]
        drawn = rng.multinomial(size, shares + [1 - sum(shares)])
        for topic, count in zip([*shares_by_topic, 9], drawn, strict=True):
            rows += [(str(year), topic)] * int(count)
    return pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(len(rows))],
            "dumps": "all",
            "year": [y for y, _ in rows],
            "topic": [t for _, t in rows],
            "outlier": False,
            "display_name": [f"Paper {i}" for i in range(len(rows))],
        }
    )


def _describe(papers, **overrides):
    details = [
        {"topic": t, "label": f"topic {t}", "representative_ids": []} for t in sorted(set(papers["topic"]))
    ]
    knobs = settings(**overrides)
    return describe_changes(
        papers,
        ["no words here"] * len(papers),
        details,
        NO_HISTORY,
        paper_periods(papers, knobs.by, ["all"]),
        knobs,
        "english",
    )


def test_a_long_series_names_each_topic_s_shape_with_its_turn_and_recent_direction():
    years = list(range(1990, 2020))
    sizes = [600] * len(years)
    place = np.linspace(0, 1, len(years))
    shapes = {
        0: planted_shares(PEAKED, len(years), 0.02, 0.12),  # up 1990-1999, level to 2009, down
        1: planted_shares(RETURNED, len(years), 0.03, 0.14),
        # Up 2% -> 12% over 25 years, then down to 4% in the last five.
        2: 0.02 + 0.10 * np.minimum(place / 0.83, 1) - 0.08 * np.maximum(place - 0.83, 0) / 0.17,
        3: np.full(len(years), 0.08),
    }
    _, record = _describe(_long_series(shapes, sizes, years, seed=3))
    trends = record["trends"]
    by_topic = {row["topic"]: row for row in trends["topics"]}
    assert trends["shape_test"].startswith("continuous piecewise-linear")
    assert by_topic[0]["shape"] == PEAKED and by_topic[0]["shape_q"] < 0.05
    start, end = (int(y) for y in by_topic[0]["turn"])
    assert 1995 <= start <= 2001 and 2007 <= end <= 2013  # planted level: 2000-2009
    assert by_topic[1]["shape"] == RETURNED
    assert by_topic[3]["shape"] == STEADY and by_topic[3]["turn"] is None
    # Topic 2 rose for 25 years, then fell: rising over the span, falling in the last five (its
    # trajectory, a late peak, says so too).
    assert by_topic[2]["direction"] == RISING
    assert trends["recent_periods"] == ["2015", "2016", "2017", "2018", "2019"]
    assert by_topic[2]["recent_direction"] == "falling" and by_topic[2]["recent_grade"] == "significant"
    # Each leg of the peak has its move in points with an interval.
    rise, fall = by_topic[0]["shape_legs"]
    assert rise["change_pp"] > 5 and rise["low_pp"] > 0 and fall["change_pp"] < -5 and fall["high_pp"] < 0
    table = trend_table(record).set_index("topic")
    assert table.loc[0, "shape"] == PEAKED and table.loc[0, "turn_start"] == str(start)
    assert table.loc[3, "turn_start"] == "" and {"shape_q", "recent_direction", "move_pp"} <= set(
        table.columns
    )


def test_a_significant_move_under_min_effect_points_is_no_finding():
    # 3 periods of 40,000 papers: 5.0% -> 5.4% -> 5.8%, significant, but under a point.
    years, sizes = [2021, 2022, 2023], [40_000] * 3
    papers = _long_series({0: np.array([0.05, 0.054, 0.058])}, sizes, years, seed=1)
    _, record = _describe(papers)
    row = next(r for r in record["trends"]["topics"] if r["topic"] == 0)
    assert row["grade"] == "significant" and row["direction"] == RISING
    assert 0.4 < row["move_pp"] < 1.0 and not row["finding"]
    assert row["shape"] == STEADY  # three periods: the shape is the trend's, gated by size
    _, record = _describe(papers, min_effect_points=0.2)
    row = next(r for r in record["trends"]["topics"] if r["topic"] == 0)
    assert row["finding"] and row["shape"] == RISING
    assert record["trends"]["shape_test"].startswith("too few periods")


def test_shuffled_years_give_no_shape():
    years = list(range(1990, 2020))
    shapes = {
        0: planted_shares(PEAKED, len(years), 0.02, 0.12),
        1: planted_shares(RETURNED, len(years), 0.03, 0.14),
    }
    papers = _long_series(shapes, [300] * len(years), years, seed=4)
    papers["year"] = np.random.default_rng(0).permutation(papers["year"].to_numpy())
    _, record = _describe(papers)
    assert {row["shape"] for row in record["trends"]["topics"]} == {STEADY}


def test_the_brief_and_the_section_say_when_largest_move_first():
    from papertopics.report.brief import what_changed
    from papertopics.report.trends_subsection import trends_block

    years = list(range(1990, 2020))
    shapes = {
        0: planted_shares(PEAKED, len(years), 0.02, 0.12),
        1: planted_shares(RETURNED, len(years), 0.03, 0.20),
        2: np.full(len(years), 0.08),
    }
    _, record = _describe(_long_series(shapes, [600] * len(years), years, seed=3))
    rows = {r["topic"]: r for r in record["trends"]["topics"]}
    changed = what_changed(record, str, {})
    sentences = [f.sentence for f in changed.findings]
    # The trough (14 points down and back) is the larger move: it leads.
    assert sentences[0].startswith("Topic 1 fell from ") and ", then returned from " in sentences[0]
    start, end = rows[0]["turn"]
    peak = next(s for s in sentences if s.startswith("Topic 0"))
    assert f" peaked {start}–{end} at " in peak and " points (" in peak and "by 2019" in peak
    assert not any(s.startswith("Topic 2") for s in sentences)
    section = trends_block(record, str, {})
    assert 'id="trajectory-topics"' in section and 'data-shape="peaked"' in section
    assert section.index('data-topic="1" data-shape="returned"') < section.index(
        'data-topic="0" data-shape="peaked"'
    )
