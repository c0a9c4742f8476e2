"""Venues compared: each topic × group cell's share and test, and the record the report reads."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
from conftest import default_config, require_corpus
from papertopics.changes.compare import CompareSettings, describe_changes
from papertopics.changes.venues import cell_tests, compare_groups, describe_venues
from papertopics.periods.assign import Periods
from papertopics.report.venues_section import venue_lines, venues_section
from scipy.stats import chi2_contingency, false_discovery_control, fisher_exact

GRADING = {"confidence": 0.95, "false_discovery_rate": 0.05, "suggestive_q": 0.25}


def _groups(names_of_papers: list[str]) -> Periods:
    names = sorted(set(names_of_papers))
    return Periods(
        "venue",
        names,
        np.arange(len(names_of_papers)),
        np.array(names_of_papers, dtype=object),
        0,
        ordered=False,
    )


def _collapsed(counts, totals, i, j):
    """The 2 × 2 table of one cell: this topic or another × this group or another."""
    counts, totals = np.asarray(counts), np.asarray(totals)
    inside, topic, group, n = counts[i, j], counts[i].sum(), totals[j], totals.sum()
    return [[inside, topic - inside], [group - inside, n - topic - group + inside]]


def test_each_cell_is_the_signed_root_of_its_two_by_two_chi_square_with_yates_correction():
    counts = np.array([[60, 20, 20], [30, 45, 25]])
    totals = np.array([150, 120, 110])  # 160 papers of neither topic (outliers, say)
    tests = cell_tests(counts, totals)
    for i in range(2):
        for j in range(3):
            statistic, p, _, _ = chi2_contingency(_collapsed(counts, totals, i, j), correction=True)
            assert tests.residual[i, j] ** 2 == pytest.approx(statistic, rel=1e-9)
            assert tests.p_value[i, j] == pytest.approx(p, rel=1e-9)
    assert tests.residual[0, 0] > 0 > tests.residual[0, 1] and not tests.exact.any()
    # The adjusted residual is sign-symmetric: a group's excess is the others' shortfall.
    assert tests.residual[0].sum() != 0 and np.sign(tests.residual[1]).tolist() == [-1, 1, -1]


def test_a_cell_that_expects_few_papers_gets_fishers_exact_test():
    counts = np.array([[4, 0], [100, 120]])
    totals = np.array([150, 150])
    tests = cell_tests(counts, totals)
    assert tests.exact[0].all() and not tests.exact[1].any()
    assert tests.p_value[0, 0] == pytest.approx(fisher_exact(_collapsed(counts, totals, 0, 0)).pvalue)


def test_compare_groups_counts_clustered_papers_grades_with_bh_across_every_cell_and_names_the_direction():
    rng = np.random.default_rng(3)
    venue = np.array(["ICML"] * 300 + ["ICLR"] * 300 + ["AAAI"] * 300, dtype=object)
    topic = rng.integers(0, 4, 900)
    topic[:80] = 3  # ICML holds many of topic 3
    clustered = rng.random(900) > 0.1
    labels = {-1: "Outliers", 0: "zero", 1: "one", 2: "two", 3: "three <b>"}
    table = compare_groups(topic, clustered, _groups(venue.tolist()), labels, **GRADING)
    assert table.columns.tolist()[:4] == ["venue", "topic", "label", "papers"]
    assert len(table) == 4 * 3 and set(table["topic"]) == {0, 1, 2, 3}
    cell = table[(table["topic"] == 3) & (table["venue"] == "ICML")].iloc[0]
    assert cell["papers"] == int(((topic == 3) & clustered & (venue == "ICML")).sum())
    assert cell["venue_papers"] == 300 and cell["share"] == pytest.approx(cell["papers"] / 300, abs=1e-6)
    assert cell["low"] < cell["share"] < cell["high"]
    assert (cell["grade"], cell["direction"]) == ("significant", "over")
    assert set(table.loc[(table["topic"] == 3) & (table["venue"] != "ICML"), "direction"]) == {"under"}
    assert np.allclose(table["q"], false_discovery_control(table["p"].to_numpy()))
    assert (table.loc[table["grade"] == "no evidence", "direction"] == "").all()
    record = describe_venues(
        table, _groups(venue.tolist()), {3: [{"period": "ICML", "papers": 80, "keywords": ["x"]}]}, GRADING
    )
    icml = next(g for g in record["groups"] if g["venue"] == "ICML")
    assert icml["papers"] == 300 and icml["over"][0]["topic"] == 3
    assert record["venues"] == ["AAAI", "ICLR", "ICML"] and record["wording"]["3"][0]["keywords"] == ["x"]
    lines = venue_lines(record)
    assert lines[2].sentence.startswith("ICML: more “three <b>”")
    section = venues_section(record, table)
    assert 'id="venue-heatmap"' in section and "three &lt;b&gt;" in section and "three <b>" not in section


def test_without_a_field_there_is_no_record_to_show_and_no_section():
    record = describe_venues(pd.DataFrame(), None, {}, GRADING)
    assert not record["available"] and "compare.by names no paper field" in record["reason"]
    assert venues_section(record, None) == "" and venue_lines(record) == []


def test_unordered_groups_get_no_trend_burst_or_step_and_say_why():
    papers = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(90)],
            "topic": [i % 3 for i in range(90)],
            "outlier": False,
            "dumps": "d",
            "display_name": "x",
        }
    )
    groups = _groups(["A", "B", "C"] * 30)
    settings = CompareSettings(**{**default_config()["compare"], "by": "venue"})
    details = [{"topic": t, "label": f"t{t}", "representative_ids": []} for t in range(3)]
    shares, record = describe_changes(
        papers, ["words"] * 90, details, {"first_run": True}, groups, settings, "english"
    )
    assert record["ordered"] is False and not record["comparable"]
    assert not record["trends"]["available"] and not record["bursts"]["available"]
    assert "no order" in record["trends"]["reason"] and "[venue, year]" in record["reason"]
    assert set(shares["period"]) == {"A", "B", "C"} and (shares["by"] == "venue").all()


# ---------------------------------------------------------------- simulation on a real corpus

SIMULATIONS = 200
PLANTED_TOPIC = "Search"  # 66 of the 3,281 papers (2%)
PLANTED_PAPERS = 40


def _ijcai_areas() -> tuple[np.ndarray, dict[int, str]]:
    """The IJCAI corpus's area labels as stand-in topics (the cheap source of topic assignments)."""
    path = require_corpus("ijcai_2020_2024_areas.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        areas = [json.loads(line)["label"] for line in lines]
    names = sorted(set(areas))
    return np.array([names.index(a) for a in areas]), dict(enumerate(names))


def _significant(topic: np.ndarray, venue: np.ndarray, labels: dict[int, str]) -> pd.DataFrame:
    groups = Periods(
        "venue", ["a", "b", "c"], np.arange(len(topic)), np.array(["a", "b", "c"], dtype=object)[venue], 0
    )
    table = compare_groups(topic, np.ones(len(topic), dtype=bool), groups, labels, **GRADING)
    return table[table["grade"] == "significant"]


def test_random_venues_show_no_significant_cell_and_a_planted_topic_is_found_in_its_venue():
    topic, labels = _ijcai_areas()
    rng = np.random.default_rng(2030)
    clean = sum(_significant(topic, rng.integers(0, 3, len(topic)), labels).empty for _ in range(SIMULATIONS))
    assert clean / SIMULATIONS >= 0.95, f"random splits: {clean} of {SIMULATIONS} without a significant cell"

    planted = next(t for t, name in labels.items() if name == PLANTED_TOPIC)
    found = alone = 0
    false_share = []
    for _ in range(SIMULATIONS):
        venue = rng.integers(0, 3, len(topic))
        extra = rng.choice(
            np.flatnonzero(topic == planted), PLANTED_PAPERS
        )  # more papers of the topic, in venue a
        sig = _significant(
            np.concatenate([topic, topic[extra]]),
            np.concatenate([venue, np.zeros(PLANTED_PAPERS, int)]),
            labels,
        )
        hit = ((sig["topic"] == planted) & (sig["venue"] == "a") & (sig["direction"] == "over")).any()
        # The planted topic is then rarer in b and c than elsewhere: those cells are its mirror, not something else.
        others = sig[sig["topic"] != planted]
        found += hit
        alone += hit and others.empty
        false_share.append(len(others) / max(len(sig), 1))
    assert found / SIMULATIONS >= 0.90, f"planted: found in {found} of {SIMULATIONS}"
    # BH controls the false discovery rate: with the planted finding (and its mirror) made, another
    # topic is flagged now and then; measured 92.5% alone on this seed (87.5-92.5% on others), see docs/changes.md.
    assert alone / SIMULATIONS >= 0.85, f"planted: found alone in {alone} of {SIMULATIONS}"
    assert np.mean(false_share) <= 0.05


def test_a_topic_card_draws_no_share_line_across_venues():
    from papertopics.report.topic_cards import _share_line

    series = {"clustered_papers": [3, 5], "papers": [3, 5], "clustered_share": [0.1, 0.2]}
    changes = {"periods": ["ICLR", "ICML"], "period_papers": [30, 25]}
    assert _share_line(series, changes, "#123456", str) is not None
    assert _share_line(series, {**changes, "ordered": False}, "#123456", str) is None


def test_a_fragile_venue_finding_is_marked_in_the_section_and_left_out_of_the_brief():
    from papertopics.report.inputs import with_venue_robustness
    from papertopics.report.venues_section import venues_fragile, venues_none_found

    venue = np.array(["ICML"] * 300 + ["ICLR"] * 300 + ["AAAI"] * 300, dtype=object)
    # ICML holds more of topic 0 and fewer of topic 1, ICLR the other way round, AAAI as many of each.
    topic = np.repeat([0, 1, 2, 0, 1, 2, 0, 1, 2], [150, 50, 100, 50, 150, 100, 100, 100, 100])
    labels = {t: f"t{t}" for t in range(3)}
    table = compare_groups(topic, np.ones(900, bool), _groups(venue.tolist()), labels, **GRADING)
    record = describe_venues(table, _groups(venue.tolist()), {}, GRADING)
    found = table[table["grade"] == "significant"]
    assert sorted(zip(found["topic"], found["venue"], found["direction"], strict=True)) == [
        (0, "ICLR", "under"),
        (0, "ICML", "over"),
        (1, "ICLR", "over"),
        (1, "ICML", "under"),
    ]
    # Every one robust but ICML's topic 0, which held in 3 of 10 resamples.
    held = {
        f"{r.topic}|{r.venue}": {"holds": 9, "replicates": 10, "robustness": "robust"}
        for r in found.itertuples()
    }
    held["0|ICML"] = {"holds": 3, "replicates": 10, "robustness": "fragile"}
    graded = with_venue_robustness(record, {"replicates": 10, "venues": held})
    icml = next(g for g in graded["groups"] if g["venue"] == "ICML")
    assert [(c["topic"], c["robustness"]) for c in icml["over"]] == [(0, "fragile")]
    assert [(line.venue, line.over, line.under) for line in venue_lines(graded)] == [
        ("ICLR", ["t1"], ["t0"]),
        ("ICML", [], ["t1"]),
    ]
    assert venues_fragile(graded) == (
        "1 fragile one (holding in fewer than half of the resamples, or in a topic not to be trusted) under Venues."
    )
    assert venues_none_found(graded) is None
    section = str(venues_section(graded, table))
    assert '<span class="held fragile">(fragile: holds in 3 of 10 resamples)</span>' in section
    assert section.count('<span class="held">(robust: holds in 9 of 10 resamples)</span>') == len(found) - 1
    # Without replicates the record, the brief and the section are as they were.
    assert with_venue_robustness(record, {"replicates": 0, "venues": {}}) is record
    assert venues_fragile(record) is None and "resamples" not in str(venues_section(record, table))
