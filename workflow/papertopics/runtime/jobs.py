"""The stage jobs running in a working folder, so that a run finds those an earlier run left behind.

Killing only the Snakemake process (``kill -9`` of its pid) leaves the job it was running alive,
still writing its outputs; a new run would start the same job beside it. So each job registers
itself for as long as it lives: a file named for its host and pid, holding its rule and pid,
on which it holds an OS lock (``flock``) that the kernel drops when it dies, even by SIGKILL. A
run that holds the workflow's lock (so no other run is live here) and finds a registered job
whose lock is still held has found an orphan: it stops it (on this host) or waits for it.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import logging
import os
import signal
import socket
import time
from dataclasses import dataclass
from pathlib import Path

METADATA = ".snakemake"  # Snakemake's folder in the working folder
_HELD = []  # this job's registration, open (and so locked) while the process lives
_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunningJob:
    """A registered job whose process is still alive."""

    rule: str
    pid: int
    host: str
    path: Path

    def __str__(self) -> str:
        """E.g. 'the topics job (pid 123)'."""
        where = "" if self.host == socket.gethostname() else f" on {self.host}"
        return f"the {self.rule} job (pid {self.pid}{where})"


def _registry(metadata_dir: str | os.PathLike) -> Path:
    return Path(metadata_dir) / "papertopics" / "jobs"


def register_job(rule: str, metadata_dir: str | os.PathLike = METADATA) -> None:
    """Register this process as a running job of ``rule`` until it exits."""
    folder = _registry(metadata_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{socket.gethostname()}-{os.getpid()}.json"
    handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 (held open, and so locked, until exit)
    fcntl.flock(handle, fcntl.LOCK_EX)
    json.dump({"rule": rule, "pid": os.getpid(), "host": socket.gethostname()}, handle)
    handle.flush()
    _HELD.append(handle)
    atexit.register(path.unlink, missing_ok=True)


def orphaned_jobs(metadata_dir: str | os.PathLike = METADATA) -> list[RunningJob]:
    """The registered jobs still alive; the registrations of jobs that died are removed."""
    folder = _registry(metadata_dir)
    alive = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if not _held_by_another(path):
            path.unlink(missing_ok=True)
            continue
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # being written by a job that starts right now
        alive.append(RunningJob(record["rule"], int(record["pid"]), record["host"], path))
    return alive


def _held_by_another(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
    except BlockingIOError:
        return True
    except FileNotFoundError:
        return False


def stop_job(job: RunningJob, grace_s: float = 10.0) -> None:
    """Stop an orphaned job and the processes it started: SIGTERM, then SIGKILL after ``grace_s``;
    a job on another host (a cluster node) cannot be signalled from here and is waited for.
    """
    if job.host == socket.gethostname():
        processes = [job.pid, *_descendants(job.pid)]
        _signal(processes, signal.SIGTERM)
        if not _wait_released(job.path, grace_s):
            _signal(processes, signal.SIGKILL)
    _wait_released(job.path, None)
    job.path.unlink(missing_ok=True)


def _signal(pids: list[int], number: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, number)


def _wait_released(path: Path, limit_s: float | None) -> bool:
    deadline = None if limit_s is None else time.monotonic() + limit_s
    while _held_by_another(path):
        if deadline is not None and time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs (from /proc; none where there is no /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            # The parent pid is the second field after the command name, which may hold spaces.
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found
