"""Nothing lost when a run fails: after a good run, a full disk, a stage that raises, or ``kill -9``
of the job, at the topics and at the report stage, leave the published report, topic tables and
metrics byte-identical and complete, with a message that says what happened; the next run, with
the fault gone, completes (the faults that need no root follow one another in one folder, and one
run completes after them all). And the cases around them: a killed Snakemake whose job lives on, two
runs at once, a results folder another user made.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import (
    AS_NOBODY,
    OFFLINE,
    REPO,
    good_run,
    published_files,
    run_workflow,
    snakemake_command,
    start_workflow,
    wait_for_job,
    write_config,
)

pytestmark = pytest.mark.slow

FAULTS = REPO / "tests" / "faults"  # sitecustomize.py: faults injected into one rule's jobs


def fill(folder: Path) -> Path:
    """Fill the file system that holds ``folder``; returns the file that fills it."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as stream:
        for size in (1 << 20, 1 << 12, 1):
            try:
                while True:
                    stream.write(b"\0" * size)
                    stream.flush()
            except OSError as error:
                assert error.errno == errno.ENOSPC
    return filler


def mount_small_disk(folder: Path, size_mb: int) -> None:
    """A tmpfs of ``size_mb`` over ``folder``, holding what ``folder`` held; skips where it cannot."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root; the injected full disk stands in")
    on_disk = folder.with_name(f"{folder.name}-on-disk")
    folder.rename(on_disk)
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        folder.rmdir()
        on_disk.rename(folder)
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip()}); the injected full disk stands in")
    shutil.copytree(on_disk, folder, symlinks=True, dirs_exist_ok=True)


# Where each stage's first file goes: the topics stage writes its own tables under results/assigned
# (the robustness stage writes the published ones), the report under results/staged.
FIRST_WRITE = {"topics": "results/assigned", "report": "results/staged/report"}


class Fault:
    """One way a run fails at ``stage``; ``clear`` takes it away again."""

    def __init__(self, kind: str, workdir: Path, stage: str):
        self.kind, self.workdir, self.stage = kind, workdir, stage
        self.env: dict[str, str] = {}
        self.filler: Path | None = None
        self.history: tuple[Path, bytes] | None = None
        if kind == "full-disk":
            mount_small_disk(workdir / "results", 16)
        elif kind == "injected-full-disk":
            self.env = {
                "PYTHONPATH": f"{FAULTS}{os.pathsep}{REPO / 'workflow'}",
                "PAPERTOPICS_TEST_FAULT": f"{stage}:enospc",
            }
        elif kind == "raises" and stage == "topics":
            # A damaged record of the previous run's topics: the topics stage stops on it.
            newest = workdir / "results" / "history" / "topics.json"
            self.history = (newest, newest.read_bytes())
            newest.write_text('{"format": 0}', encoding="utf-8")
        elif kind == "raises":
            self.env = {
                "PYTHONPATH": f"{FAULTS}{os.pathsep}{REPO / 'workflow'}",
                "PAPERTOPICS_TEST_FAULT": f"{stage}:raise",
            }

    def strike(self, run: subprocess.Popen) -> None:
        """Once the stage's job runs: fill the disk, or kill the job."""
        if self.kind == "full-disk":
            wait_for_job(self.workdir, self.stage, run)
            self.filler = fill(self.workdir / "results")
        elif self.kind == "kill-9":
            os.kill(wait_for_job(self.workdir, self.stage, run), signal.SIGKILL)

    def expected(self) -> str:
        if "full-disk" in self.kind:
            return (
                f"error: the {self.stage} stage ran out of disk space writing to {FIRST_WRITE[self.stage]} ("
            )
        if self.kind == "raises" and self.stage == "topics":
            return "topic history format 0 is not 2"
        if self.kind == "raises":
            return f"RuntimeError: a fault injected into the {self.stage} stage"
        return f"Error in rule {self.stage}:"

    def clear(self) -> None:
        if self.filler:
            self.filler.unlink()
        if self.history:
            self.history[0].write_bytes(self.history[1])

    def close(self) -> None:
        if self.kind == "full-disk":
            subprocess.run(["umount", "--lazy", str(self.workdir / "results")], check=True)


def fails_and_keeps_the_last_good_results(fault: Fault, rerun: tuple[str, ...], before: dict) -> None:
    """A run with ``fault`` fails, says what happened and that nothing was published, and leaves
    the published files as ``before``.
    """
    run = start_workflow(fault.workdir, *rerun, env=fault.env)
    fault.strike(run)
    output = run.communicate(timeout=900)[0]
    assert run.returncode != 0, f"{fault.kind}: {output[-4000:]}"
    assert fault.expected() in output, f"{fault.kind}: {output[-6000:]}"
    if "full-disk" in fault.kind:
        assert "The last good results were kept" in output
        assert "--- Logging error ---" not in output and "Traceback" not in output
    assert (
        "Nothing was published: results/fit/, results/history/, results/metrics.json, results/report/ and "
        "results/topics/ still hold" in output
    ), f"{fault.kind}: {output[-6000:]}"
    kept = published_files(fault.workdir)
    if fault.history:  # the damage the fault itself did to the published history
        kept[str(fault.history[0].relative_to(fault.workdir))] = fault.history[1]
    assert kept == before, f"{fault.kind}: the last good results must stay as they were"


def completes(workdir: Path, stage: str, rerun: tuple[str, ...], before: dict) -> None:
    """The next run, with the faults gone, completes and publishes."""
    run_workflow(workdir, *rerun)
    after = published_files(workdir)
    if stage == "report":
        assert "After the fault" in after["results/report/index.html"].decode("utf-8")
        assert {k: v for k, v in after.items() if "report" not in k} == {
            k: v for k, v in before.items() if "report" not in k
        }
    else:  # the same input and settings give the same topics
        assert after["results/topics/papers.csv"] == before["results/topics/papers.csv"]
        assert after["results/topics/topics.csv"] == before["results/topics/topics.csv"]
    assert not (workdir / "results" / ".publishing").exists()


def failing_at(stage: str, seed_run: Path, tmp_path: Path) -> tuple[Path, tuple[str, ...], dict]:
    """A copy of the seed run set to rerun ``stage`` (and what follows it): the folder, the run's
    arguments, and the published files before any fault.
    """
    workdir = good_run(seed_run, tmp_path)
    before = published_files(workdir)
    assert {"results/report/index.html", "results/topics/topics.csv", "results/metrics.json"} <= set(before)
    if stage == "report":
        write_config(workdir, report={"title": "After the fault"})
    return workdir, ("--forcerun", "topics") if stage == "topics" else (), before


# The faults any machine can make, one after another in one folder: each failed run is checked on
# its own, and the run after the last one, which meets what every fault left behind, completes.
FAULTS_IN_TURN = ("injected-full-disk", "raises", "kill-9")


@pytest.mark.parametrize("stage", ["topics", "report"])
def test_failed_runs_keep_the_last_good_results_and_the_next_run_completes(seed_run, tmp_path, stage):
    workdir, rerun, before = failing_at(stage, seed_run, tmp_path)
    for kind in FAULTS_IN_TURN:
        fault = Fault(kind, workdir, stage)
        fails_and_keeps_the_last_good_results(fault, rerun, before)
        fault.clear()
    completes(workdir, stage, rerun, before)


@pytest.mark.parametrize("stage", ["topics", "report"])
def test_a_full_disk_keeps_the_last_good_results_and_the_next_run_completes(seed_run, tmp_path, stage):
    workdir, rerun, before = failing_at(stage, seed_run, tmp_path)
    fault = Fault("full-disk", workdir, stage)  # a small file system mounted over results/
    try:
        fails_and_keeps_the_last_good_results(fault, rerun, before)
        fault.clear()
        completes(workdir, stage, rerun, before)
    finally:
        fault.close()


def held_topics_job(release: Path) -> dict[str, str]:
    """The environment of a run whose topics job waits for the test, until ``release`` exists: a
    run of 38 papers could end before the test's checks.
    """
    return {
        "PYTHONPATH": f"{FAULTS}{os.pathsep}{REPO / 'workflow'}",
        "PAPERTOPICS_TEST_FAULT": "topics:hold",
        "PAPERTOPICS_TEST_RELEASE": str(release),
    }


def test_a_job_left_running_by_a_killed_snakemake_is_stopped_by_the_next_run(seed_run, tmp_path):
    workdir = good_run(seed_run, tmp_path)
    before = published_files(workdir)
    # Never released: the next run must stop it.
    run = start_workflow(workdir, "--forcerun", "topics", env=held_topics_job(tmp_path / "release"))
    job = wait_for_job(workdir, "topics", run)
    os.kill(run.pid, signal.SIGKILL)  # Snakemake only: its topics job lives on
    run.wait()
    os.kill(job, 0)  # still alive, about to write the topics stage's outputs

    resumed = run_workflow(workdir)
    output = resumed.stdout + resumed.stderr
    assert (
        f"Stopped the topics job (pid {job}) of an earlier run that was killed: it would write the files "
        "this run writes." in output
    )
    with pytest.raises(ProcessLookupError):
        os.kill(job, 0)
    assert published_files(workdir) == before  # byte-identical: the same input and settings
    assert not list((workdir / "results" / "staged" / "topics").glob(".model.*.part"))


def test_a_second_run_beside_a_live_one_is_refused_with_its_pid(seed_run, tmp_path):
    workdir = good_run(seed_run, tmp_path)
    release = tmp_path / "release"
    first = start_workflow(workdir, "--forcerun", "topics", env=held_topics_job(release))
    try:
        wait_for_job(workdir, "topics", first)
        second = run_workflow(workdir, check=False)
        assert second.returncode == 1
        assert second.stderr.splitlines()[0] == (
            f"error: A run is in progress in this folder (pid {first.pid}, started "
            + second.stderr.split("started ", 1)[1].split(")", 1)[0]
            + f"). Wait for it to end, or stop it (kill {first.pid}) and run again. Do not use --unlock: "
            "it would let two runs write the same files."
        )
        unlock = run_workflow(workdir, "--unlock", check=False)
        assert unlock.returncode == 1 and "Do not use --unlock" in unlock.stderr
        dry = run_workflow(workdir, "--dry-run", check=False)
        assert dry.returncode == 0, dry.stdout + dry.stderr
        assert "A run is in progress in this folder" in dry.stdout + dry.stderr
    finally:
        release.touch()
        output = first.communicate(timeout=900)[0]
    assert first.returncode == 0, output[-4000:]


def test_results_another_user_made_are_named_with_the_user(seed_run, open_folder):
    workdir = open_folder / "run"
    shutil.copytree(seed_run, workdir, symlinks=True)
    workdir.chmod(0o755)  # a clone others may read (pytest's folders are private to root)
    home = open_folder / "home"
    home.mkdir()
    os.chown(home, 65534, 65534)
    result = subprocess.run(
        [*AS_NOBODY, *snakemake_command(workdir, "--cores", "1")],
        capture_output=True,
        text=True,
        env={**os.environ, **OFFLINE, "HOME": str(home)},
    )
    assert result.returncode == 1
    # Snakemake's own first line, where .snakemake/ is not writable either: it cannot open its log.
    errors = [line for line in result.stderr.splitlines() if not line.startswith("Failed to setup log file")]
    assert errors[0] == (
        "error: results/ is not writable by user nobody (uid 65534): results belongs to user root (uid 0) "
        "(drwxr-xr-x). Run as root, or, as root, give it to nobody: chown -R nobody results/"
    ), result.stderr
