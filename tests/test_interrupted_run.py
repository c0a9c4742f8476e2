"""A run killed during embed, started again the README's way (on one core), finishes with the
results of the seed run, which was never interrupted and ran on two: the same topics, and every
published file the same byte for byte. One run stands for three guarantees, each its own assertion:
a killed run resumes, the same input and config give the same topics, and the core count changes
nothing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from conftest import (
    OFFLINE,
    OWN_EMBEDDING_CACHE,
    make_workdir,
    published_files,
    run_workflow,
    snakemake_command,
)


def wait_for(condition, process: subprocess.Popen, limit_s: float = 900) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        if process.poll() is not None:
            raise AssertionError(f"the run ended ({process.returncode}) before embed started")
        if time.monotonic() > deadline:
            raise AssertionError("embed did not start")
        time.sleep(0.2)


@pytest.mark.slow
def test_run_killed_during_embed_resumes_on_one_core_to_the_seed_runs_results(seed_run, tmp_path):
    # Its own embedding cache: with the session's, the seeds' vectors are there and embed has nothing to do.
    workdir = make_workdir(tmp_path, embedding=OWN_EMBEDDING_CACHE)
    command = snakemake_command(workdir, "--cores", "2", "--rerun-incomplete")
    env = {**os.environ, **OFFLINE}
    run = subprocess.Popen(
        command, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    embed_log = workdir / "results" / "logs" / "embed.log"
    try:
        wait_for(embed_log.is_file, run)
        time.sleep(2)  # well inside the embed job: loading the model or encoding
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert not (workdir / "results" / "report" / "index.html").exists()
    assert list((workdir / ".snakemake" / "locks").glob("*.lock")), "the killed run should leave its locks"

    # Every job from embed on runs again here, each on one core.
    resumed = run_workflow(workdir, "--cores", "1")
    assert "Removed the locks of an earlier run that was killed" in resumed.stdout + resumed.stderr

    for table in ("topics.csv", "papers.csv"):
        assert (workdir / "results" / "topics" / table).read_bytes() == (
            seed_run / "results" / "topics" / table
        ).read_bytes(), f"the same input and config must give the same topics ({table})"
    assert published_files(workdir) == published_files(seed_run), (
        "one core must give the published results of two, byte for byte, report included"
    )
