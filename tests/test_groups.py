"""Each paper's period and group, decided once by the groups stage and read back by the others."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from papertopics import storage
from papertopics.errors import PipelineInputError
from papertopics.groups import groups_record, load_groups, paper_groups, paper_periods, read_compare_by


def _papers() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": ["p0", "p1", "p2", "p3", "p4"],
            "dumps": ["icml", "iclr;icml", "iclr", "neurips", "icml"],
            "year": ["2021", "2022", "", "2021.0", "2023"],
            "venue": ["ICML", " ICLR ", "ICLR", "", "ICML"],
        }
    )


def test_a_field_gives_unordered_groups_sorted_by_name_and_counts_the_papers_without_one():
    periods, groups = paper_groups(_papers(), "venue", ["icml", "iclr", "neurips"])
    assert groups is periods  # a field alone: its groups are what is compared
    assert (groups.by, groups.names, groups.ordered, groups.left_out) == ("venue", ["ICLR", "ICML"], False, 1)
    assert groups.rows.tolist() == [0, 1, 2, 4] and groups.period.tolist() == ["ICML", "ICLR", "ICLR", "ICML"]


def test_a_field_and_a_period_choice_give_both_the_periods_ordered():
    periods, groups = paper_groups(_papers(), ["venue", "year"], ["icml", "iclr", "neurips"])
    assert (periods.by, periods.names, periods.ordered, periods.left_out) == (
        "year",
        ["2021", "2022", "2023"],
        True,
        1,
    )
    assert groups.by == "venue" and not groups.ordered
    assert paper_groups(_papers(), "dump", ["icml", "iclr", "neurips"])[1] is None


@pytest.mark.parametrize("value", [["venue", "track"], ["year", "dump"], []])
def test_a_compare_by_of_two_fields_or_two_period_choices_is_refused_naming_the_key(value):
    with pytest.raises(PipelineInputError, match=r"^compare\.by is .*\[venue, year\]"):
        read_compare_by(value)


def test_a_field_no_paper_carries_stops_naming_it_and_the_fields_there_are():
    with pytest.raises(PipelineInputError, match=r"compare\.by names 'track'.*carry: year, venue\)"):
        paper_groups(_papers(), "track", ["icml"])
    with pytest.raises(PipelineInputError, match="no paper carries a 'venue'"):
        paper_groups(_papers().assign(venue=""), "venue", ["icml"])


@pytest.mark.parametrize("by", ["dump", "year", "auto", "venue", ["venue", "dump"]])
def test_the_stage_output_read_back_in_another_paper_order_is_what_paper_periods_gives(tmp_path, by):
    papers = _papers()
    dump_order = ["icml", "iclr", "neurips"]
    periods, groups = paper_groups(papers, by, dump_order)
    table, record = groups_record(papers["id"].tolist(), periods, groups)
    storage.write_csv(tmp_path / "papers.csv", table)
    storage.write_json(tmp_path / "groups.json", record)
    order = [4, 2, 0, 3, 1]  # another stage's paper table, in another order
    reordered = papers.iloc[order].reset_index(drop=True)
    read, read_groups = load_groups(
        tmp_path / "papers.csv", tmp_path / "groups.json", reordered["id"].tolist()
    )
    expected, expected_groups = paper_groups(reordered, by, dump_order)
    for got, want in ((read, expected), (read_groups, expected_groups)):
        if want is None:
            assert got is None
            continue
        assert (got.by, got.names, got.left_out, got.note, got.ordered) == (
            want.by,
            want.names,
            want.left_out,
            want.note,
            want.ordered,
        )
        assert got.rows.tolist() == want.rows.tolist() and got.period.tolist() == want.period.tolist()


def test_a_paper_missing_from_the_stage_output_is_an_error_naming_the_file(tmp_path):
    papers = _papers()
    table, record = groups_record(papers["id"].tolist(), paper_periods(papers, "dump", ["icml"]), None)
    storage.write_csv(tmp_path / "papers.csv", table)
    storage.write_json(tmp_path / "groups.json", record)
    with pytest.raises(RuntimeError, match=r"papers\.csv lacks 1 papers \(first p9\)"):
        load_groups(tmp_path / "papers.csv", tmp_path / "groups.json", ["p0", "p9"])
    assert np.array_equal(
        load_groups(tmp_path / "papers.csv", tmp_path / "groups.json", ["p1"])[0].period, ["iclr", "icml"]
    )
