"""A rule's named files and params reach its stage by name (papertopics.runtime.adapter): grouped
into a stage's dataclass of files where it takes one, and a name that does not match fails at once.
A job that succeeded ends without the interpreter's teardown, unless a worker of its still runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

import pytest
from conftest import REPO
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


# A job's script, run as Snakemake runs one: its own process, in the working folder, its files in
# Snakemake's named lists. The stage writes its table; an object tells when the interpreter tears
# the modules down; optionally a thread (a library's worker) is still writing when the stage returns.
JOB_SCRIPT = """
import sys, threading, time
from pathlib import Path
from types import SimpleNamespace
from snakemake.iocontainers import Namedlist
from papertopics.runtime.adapter import run_rule

class TornDown:
    def __del__(self):
        Path("torn-down").write_text("yes")

witness = TornDown()

def worker():
    time.sleep(0.5)
    Path("worker.txt").write_text("done")

def stage(table: str) -> None:
    Path(table).write_text("written")
    if sys.argv[1] == "worker":
        threading.Thread(target=worker).start()

job = SimpleNamespace(
    rule="demo",
    input=Namedlist(),
    output=Namedlist(fromdict={"table": "table.txt"}),
    params=Namedlist(),
    log=["demo.log"],
)
run_rule(job, stage)
"""


@pytest.mark.parametrize("running", ["nothing", "worker"])
def test_a_job_that_succeeded_exits_at_once_unless_a_worker_still_runs(tmp_path, running):
    (tmp_path / "job.py").write_text(JOB_SCRIPT, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "job.py", running],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO / "workflow")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "table.txt").read_text() == "written"
    assert (tmp_path / "demo.log").exists()
    assert not list((tmp_path / ".snakemake" / "papertopics" / "jobs").iterdir()), (
        "the job's registration is removed by its exit handler"
    )
    if running == "nothing":
        assert not (tmp_path / "torn-down").exists(), "no teardown after the stage succeeded"
    else:
        assert (tmp_path / "worker.txt").read_text() == "done", "the process waits for its worker"
        assert (tmp_path / "torn-down").exists()
