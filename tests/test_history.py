"""The published history (papertopics.topics.history): its files always exist for the stages that
read them, an earlier version's history is carried over, and the share history holds the run the
topics were matched against.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from papertopics import storage
from papertopics.errors import PipelineInputError
from papertopics.topics.history import (
    SHARES,
    TOPICS,
    TopicHistory,
    earlier_shares,
    stage_shares,
    start_history,
)


def _shares(share: float) -> pd.DataFrame:
    return pd.DataFrame({"by": ["dump"], "topic": [0], "period": ["a"], "share": [share]})


def test_a_missing_history_is_started_empty_and_reads_as_none(tmp_path):
    folder = tmp_path / "history"
    assert start_history(folder) == []
    assert sorted(p.name for p in folder.iterdir()) == [SHARES, TOPICS]
    assert TopicHistory(folder / TOPICS).baseline("any digest") == (None, 1)
    assert earlier_shares([str(folder / SHARES)], 1) is None
    # Once there, nothing is written again.
    before = (folder / TOPICS).stat().st_mtime_ns
    assert start_history(folder) == [] and (folder / TOPICS).stat().st_mtime_ns == before


def test_an_earlier_versions_history_is_carried_over(tmp_path):
    folder = tmp_path / "history"
    folder.mkdir()
    for run, matched in ((1, None), (2, 1)):
        record = {"format": 1, "run": run, "matched_against": matched, "digest": f"d{run}", "next_id": 3}
        storage.write_json(folder / f"run-{run:04d}.json", {**record, "topics": []})
        storage.write_csv(folder / f"shares-run-{run:04d}.csv", _shares(run / 10))
    assert start_history(folder) == [f"{folder}: the topic history of run 2 carried over to {TOPICS}."]
    history = TopicHistory(folder)
    # The same partition as run 2: matched against run 1 again, written as run 2.
    baseline, run = history.baseline("d2")
    assert (baseline["run"], run) == (1, 2)
    assert TopicHistory(folder).baseline("another")[0]["run"] == 2
    assert earlier_shares([str(folder / SHARES)], 2)["share"].tolist() == [0.2]
    assert earlier_shares([str(folder / SHARES)], 1)["share"].tolist() == [0.1]


def test_the_staged_record_keeps_what_it_was_matched_against_and_nothing_published_changes(tmp_path):
    published, staged = tmp_path / "history", tmp_path / "staged" / TOPICS
    start_history(published)
    history = TopicHistory(published / TOPICS, staged=staged)
    baseline, run = history.baseline("d1")
    history.write(run, {"matched_against": None, "digest": "d1", "next_id": 1, "topics": []})
    assert json.loads((published / TOPICS).read_text())["run"] == 0  # only publish writes history
    storage.write_json(published / TOPICS, storage.read_json(staged))  # as publishing does
    again = TopicHistory(published / TOPICS, staged=staged)
    baseline, run = again.baseline("d2")
    again.write(run, {"matched_against": 1, "digest": "d2", "next_id": 2, "topics": []})
    record = storage.read_json(staged)
    assert (record["run"], record["previous"]["run"], record["previous"]["digest"]) == (2, 1, "d1")
    assert "previous" not in record["previous"]


def test_the_share_history_carries_the_shares_the_next_comparison_needs(tmp_path):
    published, staged = tmp_path / "shares.json", tmp_path / "staged.json"
    stage_shares(str(published), [], 1, None, _shares(0.1))
    stage_shares(str(staged), [str(published)], 2, 1, _shares(0.2))
    record = storage.read_json(staged)
    assert (record["run"], record["previous"]["run"]) == (2, 1)
    assert earlier_shares([str(staged)], 1)["share"].tolist() == [0.1]
    assert earlier_shares([str(staged)], 3) is None


def test_a_damaged_share_history_names_the_file(tmp_path):
    damaged = tmp_path / SHARES
    damaged.write_text('{"format": 1}', encoding="utf-8")
    with pytest.raises(PipelineInputError, match="share history format 1 is not 2"):
        earlier_shares([str(damaged)], 1)
