"""Faults the tests inject into one rule's jobs.

With this folder on PYTHONPATH, Python runs this file at start-up in every process, and
``PAPERTOPICS_TEST_FAULT=<rule>:<fault>`` names the job (Snakemake runs a rule's script as
``.snakemake/scripts/tmp<random>.<rule>.py``) and the fault:

- ``enospc``: every file the job opens for writing under results/ fails to write, as on a full
  disk (for where the tests cannot mount a small file system);
- ``raise``: the job's stage fails at once with a RuntimeError, as a stage with a bug would;
- ``hold``: the job waits, before its stage runs, until the file ``PAPERTOPICS_TEST_RELEASE``
  names exists (so that a test acts while the job is surely alive, however fast the stage).
"""

import builtins
import errno
import functools
import io
import os
import sys
import time

_RULE, _, _FAULT = os.environ.get("PAPERTOPICS_TEST_FAULT", "").partition(":")


class _FullDisk:
    """A file open for writing on a disk with no space left: writing and flushing fail."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, *data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    flush = writelines = write

    def __getattr__(self, name):
        return getattr(self._stream, name)

    def __enter__(self):
        return self

    def __exit__(self, *failure):
        self._stream.close()


def _open_on_a_full_disk(real_open):
    results = os.path.abspath("results") + os.sep

    def opened(file, mode="r", *args, **kwargs):
        stream = real_open(file, mode, *args, **kwargs)
        writing = any(flag in mode for flag in "wax+")
        if writing and isinstance(file, str | os.PathLike) and os.path.abspath(file).startswith(results):
            return _FullDisk(stream)
        return stream

    return opened


if _RULE and sys.argv and sys.argv[0].endswith(f".{_RULE}.py"):
    if _FAULT == "enospc":
        builtins.open = io.open = _open_on_a_full_disk(io.open)
    elif _FAULT == "raise":
        from papertopics.runtime import adapter

        def _failing_stage(**arguments):
            raise RuntimeError(f"a fault injected into the {_RULE} stage")

        _real_run_rule = adapter.run_rule
        adapter.run_rule = lambda job, stage, **extra: _real_run_rule(job, _failing_stage)
    elif _FAULT == "hold":
        from papertopics.runtime import adapter

        def _held_stage(stage):
            # Wrapped, so that the adapter reads the stage's parameters (its groups of files) through it.
            @functools.wraps(stage)
            def held(**arguments):
                release = os.environ["PAPERTOPICS_TEST_RELEASE"]
                deadline = time.monotonic() + 900
                while not os.path.exists(release) and time.monotonic() < deadline:
                    time.sleep(0.1)
                return stage(**arguments)

            return held

        _real_run_rule = adapter.run_rule
        adapter.run_rule = lambda job, stage, **extra: _real_run_rule(job, _held_stage(stage), **extra)
