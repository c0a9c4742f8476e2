"""The workflow on a real (single-node) SLURM cluster, through snakemake-executor-plugin-slurm
and the shipped profile, in one sequence: a job SLURM kills for memory is reported with its rule
and SLURM's reason; the rerun resumes from the finished jobs; every job went through sbatch; and the
results equal a local run's.
"""

from __future__ import annotations

import gzip
import itertools
import os
import re
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    OFFLINE,
    OWN_EMBEDDING_CACHE,
    REPO,
    SEEDS,
    make_workdir,
    planned_jobs,
    require_corpus,
    run_workflow,
    snakemake_command,
)
from papertopics import storage

pytestmark = [pytest.mark.slow, pytest.mark.slurm]

SLICE_SIZE = 200
SHARD_SIZE = 50  # the slice's embedding is four embed_shard jobs
PROFILE = REPO / "profiles" / "slurm"
# The test cluster has no accounting database (so no sacct): job states come from squeue, and
# no account is given. Status checks start after 2 s rather than the plugin's 40.
CLUSTER_OPTIONS = (
    "--slurm-status-command",
    "squeue",
    "--slurm-no-account",
    "--slurm-init-seconds-before-status-checks",
    "2",
)
SUBMITTED = re.compile(r"Job \d+ has been submitted with SLURM jobid (\d+) \(log: .*?/rule_(\w+)/")
# Outputs compared between the local and the SLURM run: every stage's.
COMPARED = (
    "results/corpus/papers.jsonl",
    "results/topics/topics.csv",
    "results/topics/papers.csv",
    "results/metrics.json",
)


@pytest.fixture(scope="module")
def cluster():
    import slurm_cluster

    missing = slurm_cluster.missing_tools()
    if missing:
        pytest.skip(f"SLURM is not installed here (missing {', '.join(missing)}); `make slurm` installs it")
    if os.geteuid() != 0:
        pytest.skip("the single-node SLURM cluster needs root")
    started = slurm_cluster.start_cluster()
    yield started
    started.stop()
    assert not any(slurm_cluster._alive(pid) for pid in started.processes.values())


def run_on_slurm(cluster, workdir: Path, *args: str, check: bool = True):
    import subprocess

    command = snakemake_command(workdir, "--workflow-profile", str(PROFILE), *CLUSTER_OPTIONS, *args)
    env = {**cluster.env, **OFFLINE}
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    if check and result.returncode != 0:
        raise AssertionError(
            f"snakemake --executor slurm failed ({result.returncode}):\n{result.stderr[-8000:]}\n"
            f"slurmctld.log:\n{cluster.log('slurmctld')[-2000:]}"
        )
    return result


def submitted_jobs(output: str) -> dict[str, str]:
    """SLURM job id -> rule, for every job the run submitted."""
    return {job: rule for job, rule in SUBMITTED.findall(output)}


def job_states(cluster, jobs) -> dict[str, str]:
    lines = cluster.command(
        "squeue", "--states=all", "--noheader", "--format=%i|%T", "--jobs", ",".join(jobs)
    )
    return dict(line.split("|") for line in lines.split())


def slice_dump(folder: Path) -> Path:
    corpus = require_corpus("arxiv_cs_daily_2025_2026.jsonl.gz")
    folder.mkdir(parents=True, exist_ok=True)
    dump = folder / "arxiv-slice.jsonl"
    with gzip.open(corpus, "rt", encoding="utf-8") as lines:
        dump.write_text("".join(itertools.islice(lines, SLICE_SIZE)), encoding="utf-8")
    return dump


def workdir_with_slice(root: Path) -> Path:
    dumps = {seed.name: seed.read_bytes() for seed in SEEDS}
    dumps["arxiv-slice.jsonl"] = slice_dump(root.parent / f"{root.name}-slice").read_bytes()
    # Its own embedding cache: with the session's, the SLURM run would read the local run's vectors.
    embedding = {"backend": "onnx", "shard_size": SHARD_SIZE, **OWN_EMBEDDING_CACHE}
    return make_workdir(root, dumps, embedding=embedding)


def test_a_slurm_run_killed_for_memory_resumes_and_equals_a_local_run(cluster, tmp_path):
    local = workdir_with_slice(tmp_path / "local")
    on_slurm = workdir_with_slice(tmp_path / "slurm")
    plan = planned_jobs(on_slurm)
    assert plan["embed_shard"] >= 4, plan

    start = time.perf_counter()
    run_workflow(local)
    local_seconds = time.perf_counter() - start

    # reduce gets 30 MB: far less than a Python process with numpy needs, so SLURM kills it. A
    # --set-resources on the command line replaces the profile's, so the embedding jobs are given
    # the profile's memory again here; the rest get the defaults.
    start = time.perf_counter()
    killed = run_on_slurm(
        cluster,
        on_slurm,
        "--retries",
        "0",
        "--set-resources",
        "reduce:mem_mb=30",
        "embed:mem_mb=3000",
        "embed_shard:mem_mb=3000",
        check=False,
    )
    assert killed.returncode != 0
    first = submitted_jobs(killed.stderr)
    reduce_job = next(job for job, rule in first.items() if rule == "reduce")
    # Killed by slurmstepd's memory polling: FAILED (OUT_OF_MEMORY where cgroups enforce memory).
    state = job_states(cluster, [reduce_job])[reduce_job]
    assert state in ("FAILED", "OUT_OF_MEMORY")
    assert f"SLURM-job '{reduce_job}' failed, SLURM status is: '{state}'" in killed.stderr
    assert f"SLURM killed job {reduce_job} (rule reduce) for memory: " in killed.stderr
    assert "exceeded memory limit" in killed.stderr.split(f"SLURM killed job {reduce_job}")[1].splitlines()[0]
    print(
        f"\n{state}; reported:",
        next(line for line in killed.stderr.splitlines() if "SLURM killed job" in line),
    )
    first_states = job_states(cluster, first)
    finished = [job for job, state in first_states.items() if state == "COMPLETED"]
    upstream = {"parse", "corpus", "embed", "embed_shard", "embed_gather", "neighbours"}
    assert upstream <= {first[job] for job in finished}

    # The profile's own resources: only the killed job, what follows it and what the failure
    # stopped run again; the finished jobs are kept.
    resumed = run_on_slurm(cluster, on_slurm)
    slurm_seconds = time.perf_counter() - start
    second = submitted_jobs(resumed.stderr)
    assert "reduce" in second.values()
    assert not upstream & set(second.values()), second
    second_states = job_states(cluster, second)
    assert set(second_states.values()) == {"COMPLETED"}, second_states

    # Every planned job ran through sbatch, once to completion over the two runs. all and publish
    # run on the login node (local rules): publish puts results/staged/ in place.
    completed = [first[job] for job in finished] + list(second.values())
    # The plan made before parsing cannot name the dumps' text parts (their files are named by a
    # digest parsing records): one text_part job per dump, besides.
    assert {rule: completed.count(rule) for rule in set(completed)} == {
        **{rule: count for rule, count in plan.items() if rule not in ("all", "publish")},
        "text_part": plan["parse"],
    }
    print(f"local run {local_seconds:.1f} s, SLURM runs (killed, resumed) {slurm_seconds:.1f} s:")
    for job, rule in sorted({**first, **second}.items(), key=lambda item: int(item[0])):
        print(f"  {job:>4} {rule:<12} {first_states.get(job) or second_states[job]}")

    for name in COMPARED:
        assert (on_slurm / name).read_bytes() == (local / name).read_bytes(), name
    for name in ("results/reduced/coordinates.npz", "results/reduced/map.npz", "results/clusters/labels.npz"):
        ours, theirs = storage.read_arrays(on_slurm / name), storage.read_arrays(local / name)
        for key in theirs:
            np.testing.assert_array_equal(ours[key], theirs[key], err_msg=f"{name}: {key}")
    assert (on_slurm / "results" / "report" / "index.html").exists()
    assert planned_jobs(on_slurm) == {}
