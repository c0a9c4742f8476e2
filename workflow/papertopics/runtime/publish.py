"""Publishing: the results users read change only when a whole run has succeeded.

Snakemake deletes a job's outputs before the job runs and again when it fails, so a failed or
killed run would take the last good report and topic tables with it if they were job outputs.
They are not: the stages write them under ``results/staged/``, and the run's last job, the
``publish`` rule, puts each entry there (a folder such as ``topics/``, a file such as
``metrics.json``) in place of ``results/<entry>`` — only once every stage has finished:

1. prepare: the new version of each entry is built complete in a folder of its own beside the
   published ones (``results/.publishing/<token>/new``), from hard links to the staged files
   (copies where the file system has none). A full disk or a kill here changes nothing users read;
2. commit: a plan naming each new entry is written there, atomically; from then on the
   publication is completed even if this process dies: each entry is swapped into place with one
   rename (a folder is exchanged with the old one in one step where Linux offers it), and the
   next run finishes a commit that a kill interrupted (``finish_interrupted``) before doing
   anything else;
3. the displaced versions are deleted with the token's folder.

What is published is every output the rules declare under ``results/staged/``: a rule that gains
an output there has it published without any change here.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import logging
import os
import secrets
import shutil
import time
from collections.abc import Iterable
from pathlib import Path

from papertopics import storage

STAGED = "results/staged"
PUBLISHED = "results"
# Beside the published entries (one file system, so renames suffice), one folder per publish job.
PUBLISHING = ".publishing"
PLAN = "plan.json"
# Snakemake's own bookkeeping inside a directory output, not a result.
_SNAKEMAKE_FILES = {".snakemake_timestamp"}
_LOG = logging.getLogger(__name__)


def published_entries(staged: Iterable[str], staged_root: str = STAGED) -> list[str]:
    """The entries of ``published_root`` that publishing ``staged`` replaces (``topics``, ``metrics.json``)."""
    return sorted({Path(os.path.relpath(path, staged_root)).parts[0] for path in staged})


def publish(
    staged: list[str], record: str, staged_root: str = STAGED, published_root: str = PUBLISHED
) -> None:
    """Publish the staged outputs ``staged`` (files, or folders published with all they hold), and
    write ``record``: what was published, how many files, and how long it took.
    """
    finish_interrupted(published_root)
    started = time.perf_counter()
    pending = Path(published_root) / PUBLISHING / secrets.token_hex(6)
    try:
        files, linked = _prepare(staged, staged_root, pending / "new")
        entries = {
            name: os.lstat(pending / "new" / name).st_ino for name in published_entries(staged, staged_root)
        }
        storage.write_json(pending / PLAN, {"entries": entries})
    except BaseException:  # nothing published yet: nothing to finish later either
        shutil.rmtree(pending, ignore_errors=True)
        raise
    _commit(pending, published_root)
    shutil.rmtree(pending)
    with contextlib.suppress(OSError):
        pending.parent.rmdir()
    seconds = time.perf_counter() - started
    storage.write_json(
        record,
        {
            "published": [os.path.join(published_root, name) for name in entries],
            "files": files,
            "hard_linked": linked,
            "seconds": round(seconds, 3),
        },
    )
    _LOG.info(
        "published %s (%d files, %s) in %.2f s",
        ", ".join(os.path.join(published_root, name) for name in entries),
        files,
        "hard links" if linked == files else f"{files - linked} copied",
        seconds,
    )


def finish_interrupted(published_root: str = PUBLISHED) -> list[str]:
    """Complete a publication whose commit was interrupted (its plan is there), and delete what
    an interrupted preparation left; returns the entries published now. Call it only while no
    publish job of another run can be running (the workflow's startup makes sure of that).
    """
    folder = Path(published_root) / PUBLISHING
    finished = []
    for pending in sorted(folder.glob("*")) if folder.is_dir() else []:
        if (pending / PLAN).is_file():
            finished += _commit(pending, published_root)
        shutil.rmtree(pending, ignore_errors=True)
    with contextlib.suppress(OSError):
        folder.rmdir()
    return finished


def _prepare(staged: list[str], staged_root: str, new: Path) -> tuple[int, int]:
    """Build each entry's new version under ``new``: returns (files, of which hard-linked)."""
    files = linked = 0
    for path in staged:
        for source in _files(Path(path)):
            target = new / os.path.relpath(source, staged_root)
            target.parent.mkdir(parents=True, exist_ok=True)
            linked += _link_or_copy(source, target)
            files += 1
        if Path(path).is_dir():  # an empty folder is published empty
            (new / os.path.relpath(path, staged_root)).mkdir(parents=True, exist_ok=True)
    return files, linked


def _files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.name not in _SNAKEMAKE_FILES)


def _link_or_copy(source: Path, target: Path) -> bool:
    """A hard link (no data written; every writer replaces a staged file by a new one, never
    rewrites it in place), else a copy; returns whether it linked.
    """
    try:
        os.link(source, target)
        return True
    except OSError as error:
        if error.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EACCES):
            raise
    shutil.copy2(source, target)
    return False


def _commit(pending: Path, published_root: str) -> list[str]:
    """Put each planned entry in place; safe to repeat after a kill at any point (an entry whose
    published inode is the planned one is in place already).
    """
    entries = storage.read_json(pending / PLAN)["entries"]
    for name, inode in entries.items():
        new, destination, old = pending / "new" / name, Path(published_root) / name, pending / "old" / name
        if os.path.lexists(destination) and os.lstat(destination).st_ino == inode:
            continue
        if new.is_dir() and destination.is_dir() and _exchange(new, destination):
            continue
        if os.path.lexists(destination) and (new.is_dir() or destination.is_dir()):
            old.parent.mkdir(parents=True, exist_ok=True)
            os.replace(destination, old)
        os.replace(new, destination)  # a file replaces a file in one step
    return list(entries)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2`` with ``RENAME_EXCHANGE``), so that the
    published folder never is absent; False where the system or file system cannot.
    """
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    at_current_folder, rename_exchange = -100, 2
    if (
        renameat2(
            at_current_folder, os.fsencode(first), at_current_folder, os.fsencode(second), rename_exchange
        )
        == 0
    ):
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(first), None, str(second))
