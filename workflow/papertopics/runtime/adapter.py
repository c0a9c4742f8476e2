"""Run a stage from a Snakemake script: log to the rule's log file and to the console, register the
job (``papertopics.runtime.jobs``), turn input errors and a full disk into one clear message and a
non-zero exit (no traceback), and end a job that succeeded without the interpreter's teardown.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import logging
import multiprocessing
import os
import sys
import threading
import typing
from collections.abc import Callable, Iterator

from papertopics.errors import PipelineInputError, disk_full, disk_full_message
from papertopics.runtime.jobs import register_job

_LOG = logging.getLogger("papertopics")


def run_rule(job, stage: Callable, **extra) -> None:
    """Run ``stage`` for a Snakemake job (a script's ``snakemake`` object), passing the rule's named
    inputs, outputs and params, and ``extra``, as keyword arguments (``stage_arguments``):
    reordering a rule's files cannot swap them, and a rule whose names differ from the stage's
    parameters fails at once.
    """
    # In the rule's order: where no file is named, a full disk is reported in its first output's folder.
    folders = list(dict.fromkeys(os.path.dirname(path) or "." for path in job.output))
    with _logging_to(job.log[0]), _reported_failures(job.rule, folders):
        register_job(job.rule)
        stage(**stage_arguments(stage, {**job.input, **job.output, **job.params, **extra}))
    exit_without_teardown()


def exit_without_teardown() -> None:
    """End this process with status 0 now, its exit handlers run but not the interpreter's teardown.

    Tearing down the modules of torch, transformers and numba costs a job up to 1.7 s of CPU after
    its work is done: in a run on a few dozen abstracts that is a fifth of all the CPU its jobs use.
    The exit handlers still run (the job's registration is removed, its log closed), and every
    file a stage writes is closed when the stage returns. Where a thread or a child process is
    still running (a library's workers), the process is left to exit as usual, which waits for them.
    """
    if multiprocessing.active_children() or any(
        thread is not threading.main_thread() and not thread.daemon for thread in threading.enumerate()
    ):
        return
    atexit._run_exitfuncs()  # noqa: SLF001 (the standard library's one way to run them before os._exit)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def stage_arguments(stage: Callable, named: dict) -> dict:
    """The keyword arguments of ``stage`` from a job's ``named`` files and params: a parameter
    whose type is a dataclass (a stage's inputs or outputs that belong together) gets the named
    values of its fields, every other parameter the value of its name. A name the stage does not
    take, or a field with no value, is an error at once (``TypeError``).
    """
    arguments = dict(named)
    for name, kind in typing.get_type_hints(stage).items():
        if dataclasses.is_dataclass(kind):
            fields = [field.name for field in dataclasses.fields(kind)]
            arguments[name] = kind(**{field: arguments.pop(field) for field in fields if field in arguments})
    return arguments


class _LogFile(logging.FileHandler):
    """The job's log file; once it cannot be written (a full disk), records reach the console only."""

    failed = False

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (logging's name)
        if not self.failed:
            self.failed = True
            sys.stderr.write(
                f"(the log file {self.baseFilename} could not be written: {sys.exc_info()[1]})\n"
            )


@contextlib.contextmanager
def _logging_to(log_path: str) -> Iterator[None]:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    with contextlib.suppress(OSError):  # a full disk: the console still tells
        handlers.append(_LogFile(log_path, mode="w", encoding="utf-8"))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)
    yield


@contextlib.contextmanager
def _reported_failures(rule: str, output_folders: list[str]) -> Iterator[None]:
    """An input error or a full disk ends the process with its message and exit status 1; any other
    error is logged with its traceback.
    """
    try:
        yield
    except PipelineInputError as error:
        _LOG.error("error: %s", error)
        sys.exit(1)
    except Exception as error:
        if not disk_full(error):
            _LOG.exception("stage %s failed", rule)
            raise
        _LOG.error("error: %s", disk_full_message(rule, error, output_folders))
        sys.exit(1)
