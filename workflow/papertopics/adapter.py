"""Run a stage from a Snakemake script: log to the rule's log file and to the console,
and turn input errors into one clear message and a non-zero exit (no traceback).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from papertopics.errors import PipelineInputError


def run_rule(job, stage: Callable, **extra) -> None:
    """Run ``stage`` for a Snakemake job (a script's ``snakemake`` object), passing the rule's named
    inputs, outputs and params, and ``extra``, as keyword arguments: reordering a rule's files cannot
    swap them, and a rule whose names differ from the stage's parameters fails at once.
    """
    run_stage(job.log[0], stage, **job.input, **job.output, **job.params, **extra)


def run_stage(log_path: str, stage: Callable, *args, **kwargs) -> None:
    """Run ``stage(*args, **kwargs)`` logging to ``log_path`` and the console; an input error ends the
    process with its message and exit status 1, any other error is logged with its traceback.
    """
    handlers = [logging.FileHandler(log_path, mode="w", encoding="utf-8"), logging.StreamHandler(sys.stderr)]
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)
    try:
        stage(*args, **kwargs)
    except PipelineInputError as error:
        logging.getLogger("papertopics").error("error: %s", error)
        sys.exit(1)
    except Exception:
        logging.getLogger("papertopics").exception("stage %s failed", getattr(stage, "__name__", stage))
        raise
