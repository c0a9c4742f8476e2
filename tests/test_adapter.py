"""A rule's named files and params reach its stage by name (papertopics.runtime.adapter): grouped
into a stage's dataclass of files where it takes one, and a name that does not match fails at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from papertopics.runtime.adapter import stage_arguments


@dataclass(frozen=True)
class Reads:
    papers: str
    history: list[str]


@dataclass(frozen=True)
class Writes:
    table: str
    optional: str | None = None


def stage(inputs: Reads, outputs: Writes, knobs: dict) -> tuple:
    return inputs, outputs, knobs


def test_files_are_gathered_by_name_into_the_stages_dataclasses():
    named = {"table": "t.csv", "knobs": {"a": 1}, "history": [], "papers": "p.jsonl"}
    assert stage(**stage_arguments(stage, named)) == (Reads("p.jsonl", []), Writes("t.csv"), {"a": 1})


@pytest.mark.parametrize(
    ("named", "problem"),
    [
        ({"table": "t", "knobs": {}, "history": []}, "papers"),  # a file the stage needs is missing
        ({"table": "t", "knobs": {}, "history": [], "papers": "p", "paper": "p"}, "paper"),  # misnamed
    ],
)
def test_a_name_that_does_not_match_fails_at_once(named, problem):
    with pytest.raises(TypeError, match=problem):
        stage(**stage_arguments(stage, named))
