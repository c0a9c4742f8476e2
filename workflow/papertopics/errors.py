"""Errors that the pipeline reports to the user as plain messages (no traceback)."""

from __future__ import annotations

import errno
import os
import shutil


class PipelineInputError(Exception):
    """Bad input or configuration: the message names the file or key and what to fix."""


_FULL = (errno.ENOSPC, errno.EDQUOT)
# How libraries that wrap the system's error (safetensors, for one) still name it.
_FULL_TEXT = ("No space left on device", "Disk quota exceeded", "StorageFull")


def disk_full(error: BaseException) -> bool:
    """Whether ``error``, or an error it was raised from, is a full disk or an exceeded quota."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in _FULL:
            return True
        if any(text in str(error) for text in _FULL_TEXT):
            return True
        error = error.__cause__ or error.__context__
    return False


def disk_full_message(stage: str, error: BaseException, output_folders: list[str]) -> str:
    """What a user needs to hear when ``stage`` ran out of disk space: where, and that nothing was lost."""
    named = getattr(error, "filename", None)
    folder = os.path.dirname(str(named)) if named else (output_folders[0] if output_folders else ".")
    free = _free_mb(folder)
    return (
        f"the {stage} stage ran out of disk space writing to {folder or '.'}"
        + (f" ({free:.1f} MB free there)" if free is not None else "")
        + ". The last good results were kept: the report, topic tables and metrics in results/ change "
        "only when a whole run succeeds. Free some space and run again."
    )


def _free_mb(folder: str) -> float | None:
    """Free space, in MB, of the file system that holds ``folder`` (or its nearest existing parent)."""
    path = os.path.abspath(folder)
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        return shutil.disk_usage(path).free / 1e6
    except OSError:
        return None
