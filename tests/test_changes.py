"""Topic shares per dump with intervals, tested changes between dumps, new and faded topics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import default_config
from papertopics.changes.compare import CompareSettings, describe_changes
from papertopics.changes.shares import compare_periods, dump_shares, recomputed_shares
from papertopics.changes.tables import trend_table
from papertopics.errors import PipelineInputError
from papertopics.periods.assign import paper_periods
from papertopics.stats import benjamini_hochberg, share_difference_interval, wilson_interval

NO_HISTORY = {"first_run": True, "run": 1, "previous_run": None, "topics": 0}


def settings(**overrides) -> CompareSettings:
    """The shipped config.yaml's compare knobs, with ``overrides``."""
    return CompareSettings(**{**default_config()["compare"], **overrides})


def describe(papers, topics, dump_order, texts=None, **overrides):
    texts = texts if texts is not None else ["no words here"] * len(papers)
    knobs = settings(**overrides)
    periods = paper_periods(papers, knobs.by, dump_order)
    return describe_changes(papers, texts, _details(topics), NO_HISTORY, periods, knobs, "english")


def test_wilson_interval_matches_values_computed_by_hand():
    # 2 of 10: p = 0.2, z = 1.959964; centre (0.2 + z²/20) / (1 + z²/10) = 0.283265,
    # half-width z / (1 + z²/10) · √(0.2·0.8/10 + z²/400) = 0.226578.
    low, high = wilson_interval([2, 0, 5, 0], [10, 20, 5, 0])
    assert low[0] == pytest.approx(0.283265 - 0.226578, abs=1e-5)
    assert high[0] == pytest.approx(0.283265 + 0.226578, abs=1e-5)
    # 0 of 20: [0, z² / (n + z²)] = [0, 0.161125]; 5 of 5: [n / (n + z²), 1] = [0.565518, 1].
    assert (low[1], high[1]) == pytest.approx((0.0, 0.161125), abs=1e-5)
    assert (low[2], high[2]) == pytest.approx((0.565518, 1.0), abs=1e-5)
    assert (low[3], high[3]) == (0.0, 1.0)  # an empty dump says nothing


def test_share_difference_interval_matches_newcombe_1998():
    # Newcombe (1998), Statistics in Medicine 17:873, table II, method 10: 56/70 − 48/80 and 9/10 − 3/10.
    change, low, high = share_difference_interval([48, 3], [80, 10], [56, 9], [70, 10])
    assert change == pytest.approx([0.2, 0.6])
    assert low == pytest.approx([0.0524, 0.1705], abs=1e-4)
    assert high == pytest.approx([0.3339, 0.8090], abs=1e-4)


def test_benjamini_hochberg_by_hand():
    # Sorted 0.005, 0.01, 0.03, 0.04 (m = 4): p·m/rank = 0.02, 0.02, 0.04, 0.04, already monotone.
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.02, 0.04, 0.04, 0.02])


def _papers(assignments: list[tuple[str, int]], years=None, outlier=None) -> pd.DataFrame:
    """The paper table of ``(dumps, topic)`` pairs; ``outlier``: which were HDBSCAN outliers
    (by default the outlier group's papers, none assigned to a topic).
    """
    topics = np.array([topic for _, topic in assignments], dtype=np.int64)
    frame = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(len(assignments))],
            "dumps": [dumps for dumps, _ in assignments],
            "topic": topics,
            "outlier": topics == -1 if outlier is None else np.asarray(outlier, dtype=bool),
            "display_name": [f"Paper {i}" for i in range(len(assignments))],
        }
    )
    if years is not None:
        frame["year"] = years
    return frame


def test_shares_per_dump_on_a_hand_made_assignment():
    # Dump a: 10 papers (topic 0: 6, topic 1: 3, outlier: 1); dump b: 4 papers (topic 1: 4),
    # one of which (the last) is also in dump a.
    papers = _papers([("a", 0)] * 6 + [("a", 1)] * 2 + [("a", -1)] + [("b", 1)] * 3 + [("a;b", 1)])
    periods = paper_periods(papers, "auto", ["a", "b"])
    assert periods.by == "dump" and periods.names == ["a", "b"]
    table = dump_shares(papers, periods, {0: "zero", 1: "one", -1: "Outliers"}, 0.95).set_index(
        ["topic", "period"]
    )
    assert table.loc[(0, "a"), "papers"] == 6 and table.loc[(0, "a"), "period_papers"] == 10
    assert table.loc[(1, "a"), "papers"] == 3  # the paper in both dumps counts in a too
    assert table.loc[(1, "b"), "share"] == 1.0 and table.loc[(0, "b"), "papers"] == 0
    assert table.loc[(-1, "a"), "share"] == pytest.approx(0.1)
    # 6 of 10: centre (0.6 + z²/20) / (1 + z²/10) = 0.572246; half-width 0.259572 (by hand).
    assert table.loc[(0, "a"), "share_low"] == pytest.approx(0.572246 - 0.259572, abs=1e-5)
    assert table.loc[(0, "a"), "share_high"] == pytest.approx(0.572246 + 0.259572, abs=1e-5)
    assert table.loc[(0, "b"), "label"] == "zero"


def test_the_corrected_test_flags_a_planted_change_and_not_noise():
    rng = np.random.default_rng(7)
    topics = 20
    even = np.full(topics, 1 / topics)
    planted = even.copy()
    planted[0], planted[1:] = 0.15, (1 - 0.15) / (topics - 1)
    before = rng.choice(topics, size=1000, p=even)
    after = rng.choice(topics, size=1000, p=planted)
    papers = _papers([("old", int(t)) for t in before] + [("new", int(t)) for t in after])
    shares = dump_shares(
        papers, paper_periods(papers, "dump", ["old", "new"]), {t: f"t{t}" for t in range(topics)}, 0.95
    )
    comparison = compare_periods(shares, "old", "new", 0.95, 0.05).set_index("topic")
    assert comparison.loc[0, "significant"]
    assert not comparison.drop(index=0)["significant"].any()
    assert comparison.loc[0, "change_low_pp"] > 0


def test_a_few_papers_in_a_small_dump_are_not_called_a_trend():
    papers = _papers(
        [("big", t % 5) for t in range(500)] + [("small", 0)] * 3 + [("small", t % 4 + 1) for t in range(27)]
    )
    shares = dump_shares(
        papers, paper_periods(papers, "dump", ["big", "small"]), {t: str(t) for t in range(5)}, 0.95
    )
    comparison = compare_periods(shares, "big", "small", 0.95, 0.05)
    assert not comparison["significant"].any()


def _details(topics: list[int]) -> list[dict]:
    return [{"topic": t, "label": f"topic {t}", "representative_ids": []} for t in topics]


def test_new_and_faded_topics_with_their_papers():
    # 2023: topics 0 and 1 evenly, 10 papers of topic 2; 2024: topics 0 and 1 evenly, 12 of topic 3.
    rows = (
        [("x", 0)] * 45
        + [("x", 1)] * 45
        + [("x", 2)] * 10
        + [("x", 0)] * 44
        + [("x", 1)] * 44
        + [("x", 3)] * 12
    )
    years = [2023] * 100 + [2024] * 100
    papers = _papers(rows, years=years)
    _, record = describe(papers, [0, 1, 2, 3], ["x"])
    assert record["by"] == "year" and (record["baseline"], record["target"]) == ("2023", "2024")
    assert [t["topic"] for t in record["new_topics"]] == [3]
    assert [t["topic"] for t in record["faded_topics"]] == [2]
    assert len(record["new_topics"][0]["examples"]) == 3
    assert all(e["id"] in set(papers["id"][188:]) for e in record["new_topics"][0]["examples"])
    assert {row["topic"]: row["significant"] for row in record["comparison"]} == {
        0: False,
        1: False,
        2: True,
        3: True,
    }
    assert [s["topic"] for s in record["series"]] == [0, 1, 2, 3]


def test_three_years_give_a_series_and_the_two_newest_are_compared():
    rows = [("x", t % 2) for t in range(60)]
    papers = _papers(rows, years=[2020] * 20 + [2022] * 20 + [2021] * 20)
    shares, record = describe(papers, [0, 1], ["x"])
    assert record["periods"] == ["2020", "2021", "2022"]
    assert (record["baseline"], record["target"]) == ("2021", "2022")
    assert len(record["series"][0]["share"]) == 3
    assert set(shares["period"]) == {"2020", "2021", "2022"}


def test_one_dump_says_there_is_nothing_to_compare():
    papers = _papers([("only", 0)] * 5 + [("only", 1)] * 5)
    shares, record = describe(papers, [0, 1], ["only"])
    assert record["comparable"] is False and "only one dump" in record["reason"]
    assert shares["share"].sum() == pytest.approx(1.0)


def test_an_unknown_baseline_or_a_year_nobody_has_is_a_clear_error():
    papers = _papers([("a", 0), ("b", 0), ("b", 1)])
    with pytest.raises(PipelineInputError, match=r"compare.baseline is 'c', but the papers' dumps are a, b"):
        describe(papers, [0, 1], ["a", "b"], by="dump", baseline="c")
    with pytest.raises(PipelineInputError, match="compare.by is 'year' but no paper carries a year"):
        describe(papers, [0, 1], ["a", "b"], by="year")
    with pytest.raises(PipelineInputError, match="both 'b'"):
        describe(papers, [0, 1], ["a", "b"], by="dump", baseline="b", target="b")


def test_papers_without_a_year_are_left_out_and_counted():
    papers = _papers([("x", 0)] * 4 + [("x", 1)] * 4, years=[2023, 2023, 2024, 2024, 2023, 2024, "", "n/a"])
    periods = paper_periods(papers, "auto", ["x"])
    assert periods.by == "dump"  # not every paper has a year, and the overview will say why
    assert "2 of 8 papers have no usable year (values: 'n/a')" in periods.note
    assert paper_periods(papers.drop(columns="year"), "auto", ["x"]).note is None  # no year at all: no note
    periods = paper_periods(papers, "year", ["x"])
    assert periods.names == ["2023", "2024"] and periods.left_out == 2


_FILLER = [f"filler{i}" for i in range(30)]


def _three_years_with_a_rising_topic(rng) -> tuple[pd.DataFrame, list[str]]:
    """600 papers a year over 2021-2023 in 10 topics; topic 0 rises 3% → 6% → 9% and its papers
    say "certified robustness" from 2023 on (a burst); every paper says "learning".
    """
    rows, years, texts = [], [], []
    for year, planted in ((2021, 0.03), (2022, 0.06), (2023, 0.09)):
        shares = np.r_[planted, np.full(9, (1 - planted) / 9)]
        for topic in rng.choice(10, size=600, p=shares):
            rows.append(("x", int(topic)))
            years.append(year)
            words = f"learning topic{topic}words"
            if topic == 0 and year == 2023:  # in varied company, as a real phrase is
                before, after = rng.choice(_FILLER, size=2)
                words += f" {before} certified robustness {after}"
            texts.append(words)
    return _papers(rows, years=years), texts


def test_a_steady_rise_over_three_years_is_a_significant_rising_trend_with_its_counts():
    papers, texts = _three_years_with_a_rising_topic(np.random.default_rng(5))
    _, record = describe(papers, list(range(10)), ["x"], texts=texts)
    trends = record["trends"]
    assert trends["available"] and trends["periods"] == ["2021", "2022", "2023"]
    first = trends["topics"][0]  # strongest evidence first
    assert first["topic"] == 0 and first["direction"] == "rising" and first["grade"] == "significant"
    assert 1.5 < first["slope_pp"] < 4.5 and first["slope_low_pp"] > 0
    assert sum(first["papers"]) == int((papers["topic"] == 0).sum())
    assert trends["period_papers"] == [600, 600, 600]
    assert first["share"] == pytest.approx([n / 600 for n in first["papers"]], abs=1e-6)
    # The newest-vs-previous view stays beside it, graded in words.
    assert {row["grade"] for row in record["comparison"]} <= {"significant", "suggestive", "no evidence"}


def test_years_without_any_topic_say_why_there_is_no_trend():
    # What HDBSCAN gave 250 real papers with fp32 vectors: every paper an outlier, over five years.
    papers = _papers([("x", -1)] * 150, years=[2021] * 50 + [2022] * 50 + [2023] * 50)
    _, record = describe(papers, [], ["x"])
    assert not record["trends"]["available"] and "no topic was found" in record["trends"]["reason"]


def test_a_term_that_appears_in_the_newest_year_bursts_there_and_names_its_topic():
    papers, texts = _three_years_with_a_rising_topic(np.random.default_rng(6))
    _, record = describe(papers, list(range(10)), ["x"], texts=texts)
    bursts = record["bursts"]["bursts"]
    terms = [b["term"] for b in bursts]
    assert "certified robustness" in terms
    assert "certified" not in terms and "robustness" not in terms  # nested in the phrase: listed once
    burst = bursts[terms.index("certified robustness")]
    assert burst["periods"] == ["2023"] and burst["start"] == burst["end"] == "2023"
    assert burst["topics"][0]["topic"] == 0 and burst["papers"][:2] == [0, 0]
    assert "learning" not in terms  # in every paper of every year: no burst


def test_a_bursts_topics_are_those_of_its_papers_within_its_span():
    # "certified robustness" bursts in 2022 in topic 0; two topic-5 papers say it in 2024, after.
    rng = np.random.default_rng(8)
    rows, years, texts = [], [], []
    for year in (2021, 2022, 2023, 2024):
        for number, topic in enumerate(rng.choice(10, size=400)):
            rows.append(("x", int(topic)))
            years.append(year)
            words = f"learning topic{topic}words"
            if (topic == 0 and year == 2022) or (topic == 5 and year == 2024 and number < 60):
                before, after = rng.choice(_FILLER, size=2)
                words += f" {before} certified robustness {after}"
            texts.append(words)
    _, record = describe(_papers(rows, years=years), list(range(10)), ["x"], texts=texts)
    burst = next(b for b in record["bursts"]["bursts"] if b["term"] == "certified robustness")
    assert burst["periods"] == ["2022"] and burst["papers"][3] > 0
    assert [t["topic"] for t in burst["topics"]] == [0]


def test_two_periods_or_small_ones_give_a_sentence_for_trends_and_bursts_not_an_error():
    papers = _papers([("a", t % 3) for t in range(60)] + [("b", t % 3) for t in range(60)] + [("c", 0)] * 5)
    _, record = describe(papers, [0, 1, 2], ["a", "b", "c"])
    assert record["small_periods"] == ["c"] and record["period_papers"] == [60, 60, 5]
    assert not record["trends"]["available"] and "3 or more dumps" in record["trends"]["reason"]
    assert not record["bursts"]["available"]
    # The automatic comparison leaves the small dump out: a against b.
    assert (record["baseline"], record["target"]) == ("a", "b")
    _, named = describe(papers, [0, 1, 2], ["a", "b", "c"], baseline="a", target="c")
    assert (named["baseline"], named["target"]) == ("a", "c")  # named periods are compared all the same


def test_shares_a_previous_run_published_are_shown_where_this_run_moved_them():
    papers = _papers([("a", 0)] * 10 + [("a", 1)] * 90 + [("b", 0)] * 50 + [("b", 1)] * 50)
    now = dump_shares(papers, paper_periods(papers, "dump", ["a", "b"]), {0: "zero", 1: "one"}, 0.95)
    earlier = now.copy()
    earlier.loc[(earlier["topic"] == 0) & (earlier["period"] == "a"), "share"] = 0.3  # was 30%, now 10%
    earlier.loc[(earlier["topic"] == 1) & (earlier["period"] == "b"), "share"] = 0.52  # within the interval
    lineage = {"first_run": False, "run": 2, "previous_run": 1, "kept": [{"id": 0}, {"id": 1}]}
    moved = recomputed_shares(now, earlier, lineage)
    assert moved["compared"] and [(m["topic"], m["period"]) for m in moved["moved"]] == [(0, "a")]
    assert moved["moved"][0]["share_before"] == 0.3 and moved["moved"][0]["share"] == pytest.approx(0.1)
    assert recomputed_shares(now, earlier, {**lineage, "kept": [{"id": 1}]})["moved"] == []  # 0 not kept
    assert recomputed_shares(now, None, NO_HISTORY) == {"previous_run": None, "moved": []}
    assert not recomputed_shares(now, earlier.assign(by="year"), lineage)["compared"]


def test_the_trend_table_has_a_row_per_topic_and_papers_and_share_per_period():
    papers, texts = _three_years_with_a_rising_topic(np.random.default_rng(7))
    _, record = describe(papers, list(range(10)), ["x"], texts=texts)
    table = trend_table(record)
    assert len(table) == 10 and table["topic"].iloc[0] == 0
    assert [c for c in table.columns if c.startswith("papers ")] == [
        "papers 2021",
        "papers 2022",
        "papers 2023",
    ]
    assert table[["papers 2021", "papers 2022", "papers 2023"]].to_numpy().sum() == 1800
    assert list(trend_table({"trends": {"available": False}}).columns)[:3] == ["topic", "label", "direction"]


def test_two_small_dumps_are_compared_for_their_shares_but_not_tested():
    papers = _papers([("a", t % 2) for t in range(12)] + [("b", 0)] * 11 + [("b", 1)])
    _, record = describe(papers, [0, 1], ["a", "b"])
    assert record["comparable"] and not record["tested"] and record["small_periods"] == ["a", "b"]
    assert {row["grade"] for row in record["comparison"]} == {"not tested"}
    assert all(row["q_value"] is None and not row["significant"] for row in record["comparison"])
    assert record["comparison"][0]["target_share"] == pytest.approx(11 / 12)


def test_each_share_is_counted_clustered_and_with_the_outliers_assigned_to_it():
    # Dump a: topic 0 has 4 clustered papers and 2 assigned outliers; topic 1 has 3 clustered;
    # 1 outlier left unassigned. Dump b: topic 1 has 2 clustered and 2 assigned.
    assignments = [("a", 0)] * 6 + [("a", 1)] * 3 + [("a", -1)] + [("b", 1)] * 4
    outlier = [False] * 4 + [True] * 2 + [False] * 3 + [True] + [False] * 2 + [True] * 2
    papers = _papers(assignments, outlier=outlier)
    table = dump_shares(
        papers, paper_periods(papers, "dump", ["a", "b"]), {0: "zero", 1: "one", -1: "Outliers"}, 0.95
    ).set_index(["topic", "period"])
    row = table.loc[(0, "a")]
    assert (row["papers"], row["clustered_papers"], row["assigned_papers"]) == (6, 4, 2)
    assert row["share"] == pytest.approx(0.6) and row["clustered_share"] == pytest.approx(0.4)
    # Both shares are of all the period's papers; the clustered one's interval is its own.
    low, high = wilson_interval([4], [10])
    assert (row["clustered_share_low"], row["clustered_share_high"]) == pytest.approx((low[0], high[0]))
    assert table.loc[(1, "b"), ["papers", "clustered_papers", "assigned_papers"]].tolist() == [4, 2, 2]


def _outliers_rising_into_a_flat_topic(rng) -> pd.DataFrame:
    """600 papers a year over 2021-2023 in 10 topics; topic 0's clustered papers stay at 5% while
    outliers assigned to it go 0 → 15 → 30 a year (the issue's topic whose rise was outliers).
    """
    rows, years, outlier = [], [], []
    for year, assigned in ((2021, 0), (2022, 15), (2023, 30)):
        clustered = rng.choice(10, size=600 - assigned, p=np.r_[0.05, np.full(9, 0.95 / 9)])
        rows += [("x", int(t)) for t in clustered] + [("x", 0)] * assigned
        years += [year] * 600
        outlier += [False] * len(clustered) + [True] * assigned
    return _papers(rows, years=years, outlier=outlier)


def test_a_rise_made_of_assigned_outliers_is_not_a_trend_and_both_counts_are_given():
    papers = _outliers_rising_into_a_flat_topic(np.random.default_rng(3))
    _, record = describe(papers, list(range(10)), ["x"])
    trends = record["trends"]
    assert trends["tested_on"] == record["tested_on"] == "clustered"
    topic = next(t for t in trends["topics"] if t["topic"] == 0)
    assert topic["grade"] == "no evidence" and topic["direction"] == "flat"
    # Counting the assigned outliers, the same topic would have risen significantly.
    assert topic["papers"][2] - topic["clustered_papers"][2] == 30
    assert topic["share"][2] > topic["clustered_share"][2] + 0.04
    # The pairwise view tests clustered papers too: 15 more assigned outliers are no change.
    row = next(r for r in record["comparison"] if r["topic"] == 0)
    assert record["tested_on"] == "clustered" and not row["significant"]
    assert (row["target_papers"] - row["target_clustered_papers"], row["target_assigned_papers"]) == (30, 30)
    assert row["change_pp"] == pytest.approx(
        100 * (row["target_clustered_share"] - row["baseline_clustered_share"]), abs=1e-4
    )
    series = next(s for s in record["series"] if s["topic"] == 0)
    assert series["assigned_papers"] == [0, 15, 30]


def test_a_clustered_rise_is_found_and_shuffled_years_find_nothing():
    papers, texts = _three_years_with_a_rising_topic(np.random.default_rng(5))
    # A third of topic 0's papers, and of the others', were outliers assigned for display.
    papers["outlier"] = np.random.default_rng(8).random(len(papers)) < 1 / 3
    _, record = describe(papers, list(range(10)), ["x"], texts=texts)
    first = record["trends"]["topics"][0]
    assert (first["topic"], first["grade"], first["direction"]) == (0, "significant", "rising")
    assert all(c < p for c, p in zip(first["clustered_papers"], first["papers"], strict=True))
    # The null check: the same papers with their years shuffled have no trend and no change.
    shuffled = papers.assign(year=np.random.default_rng(9).permutation(papers["year"].to_numpy()))
    _, null = describe(shuffled, list(range(10)), ["x"], texts=texts)
    assert {t["grade"] for t in null["trends"]["topics"]} <= {"no evidence", "suggestive"}
    assert not any(t["grade"] == "significant" for t in null["trends"]["topics"])
    assert not any(r["significant"] for r in null["comparison"])


def test_the_trend_table_says_what_it_tested_and_gives_both_counts_per_period():
    papers = _outliers_rising_into_a_flat_topic(np.random.default_rng(4))
    _, record = describe(papers, list(range(10)), ["x"], min_wording_papers=7)
    assert record["min_wording_papers"] == 7
    table = trend_table(record).set_index("topic")
    assert set(table["tested_on"]) == {"clustered"}
    assert table.loc[0, "papers 2023"] - table.loc[0, "clustered papers 2023"] == 30
    assert table.loc[0, "clustered share 2023"] == pytest.approx(table.loc[0, "clustered papers 2023"] / 600)
    assert table[[f"papers {y}" for y in (2021, 2022, 2023)]].to_numpy().sum() == 1800
