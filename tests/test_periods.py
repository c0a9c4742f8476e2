"""Each paper's period and group, decided once by the periods stage and read back by the others."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from papertopics import storage
from papertopics.errors import PipelineInputError
from papertopics.ingest.parse import parse_dump
from papertopics.periods.assign import (
    group_key,
    group_names,
    groups_record,
    load_groups,
    paper_groups,
    paper_periods,
    read_compare_by,
)

EXPORTS = Path(__file__).parent / "data" / "exports"


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


def test_one_venue_written_as_each_database_writes_it_is_one_group_named_by_its_most_common_form():
    wos = [p["extra"]["venue"] for p in parse_dump(EXPORTS / "wos_savedrecs.txt", 20).papers]
    assert "REMOTE SENSING OF ENVIRONMENT" in wos  # Web of Science writes source titles in capitals
    written = wos + [
        "Remote Sensing of Environment",  # Scopus, BibTeX
        "Remote  Sensing of Environment.",  # trailing punctuation, a doubled space
        "Proceedings of the AAAI Conference on Artificial Intelligence",
        "AAAI Conference on Artificial Intelligence",
        "aaai conference on artificial intelligence",
        "Data & Knowledge Engineering",
        "Data and Knowledge Engineering",  # "and" is not "&": two names, two groups
        "J. Mach. Learn. Res.",
        "Journal of Machine Learning Research",  # an abbreviation is not its name
        "",
    ]
    papers = pd.DataFrame({"id": [f"p{i}" for i in range(len(written))], "dumps": "d", "venue": written})
    groups = paper_groups(papers, "venue", ["d"])[1]
    group_of = dict(zip(groups.rows.tolist(), groups.period.tolist(), strict=True))
    named = {value: group_of.get(i, "") for i, value in enumerate(written)}
    # Two forms of three written "Remote Sensing of Environment" once each: the tie goes to mixed case.
    assert named["REMOTE SENSING OF ENVIRONMENT"] == named["Remote  Sensing of Environment."]
    assert named["REMOTE SENSING OF ENVIRONMENT"] == "Remote Sensing of Environment"
    aaai = {named[v] for v in written if "aaai" in v.casefold()}
    assert aaai == {"AAAI Conference on Artificial Intelligence"}  # tie: code-point order after case
    assert named["Data & Knowledge Engineering"] != named["Data and Knowledge Engineering"]
    assert named["J. Mach. Learn. Res."] == "J. Mach. Learn. Res."
    assert groups.left_out == 1 and len(groups.names) == len(set(groups.names))
    # The export's venues, AAAI, the two Data … Engineering and the two JMLR names.
    assert len(groups.names) == len(set(wos)) + 5


def test_a_venue_written_most_often_in_capitals_is_named_so_and_ties_are_broken_the_same_every_time():
    forms = pd.Series(["WATER RESEARCH", "WATER RESEARCH", "Water Research", "Water research"])
    assert set(group_names(forms)) == {"WATER RESEARCH"}
    for order in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
        tied = pd.Series(["water research", "WATER RESEARCH", "Water Research"]).iloc[order]
        assert set(group_names(tied)) == {"Water Research"}
    assert group_key("Proceedings of Interspeech 2021") == group_key("INTERSPEECH 2021")
    assert group_key("Interspeech 2021") != group_key("Interspeech 2022")
