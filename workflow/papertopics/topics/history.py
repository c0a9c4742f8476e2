"""The history runs keep of each other, in ``results/history/``: what the next run numbers its
topics by, and the shares it shows moved.

Two files, each written by a stage under ``results/staged/history/`` and published with the whole
run (``papertopics.runtime.publish``), so that a failed run leaves history as the last good run
left it:

- ``topics.json`` (the topics stage): the latest run's topics (``TopicSnapshot`` records) and,
  under ``previous``, the record they were matched against: a rerun that finds the same
  partition again (a keyword knob changed, a forced rerun) is matched against that one again;
- ``shares.json`` (the changes stage): the latest run's topic shares per period, and those of the
  run its topics were matched against (under ``previous``), as the CSV of ``dump_shares.csv``.

The stages read them as declared inputs (the rules' input function ``published_history``).
Before a first run, and after ``make reset-topic-ids``, ``start_history`` writes an empty history,
so that those inputs always exist and a run that publishes history does not make the next one
rerun: the inputs a job reads are recorded with its outputs, and a file that appears among them
would rerun it.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

from papertopics import storage
from papertopics.errors import PipelineInputError

HISTORY = "results/history"
TOPICS = "topics.json"
SHARES = "shares.json"
HISTORY_FORMAT = 2
# The history of earlier versions: one record per run (run-0001.json, ...) and share table
# (shares-run-0001.csv, ...); ``start_history`` carries its latest runs over.
_FORMER_RUN = "run-{:04d}.json"
_FORMER_SHARES = "shares-run-{:04d}.csv"
_REMEDY = "restore it from a backup, or run `make reset-topic-ids` to number the topics afresh"


class TopicHistory:
    """The latest run's topic record (``topics.json`` in ``source``, a file or the folder
    holding it; None: no history), and where this run's goes (``staged``; by default the same file).
    """

    def __init__(self, source: str | os.PathLike | None, staged: str | os.PathLike | None = None):
        source = Path(source) if source is not None else None
        if source is not None and (source.is_dir() or not source.suffix):
            source = source / TOPICS
        self.source, self.staged = source, Path(staged) if staged is not None else source
        self._matched: dict | None = None

    def latest(self) -> dict | None:
        """The latest run's record, None before any run; a damaged one is an error naming the
        file and how to go on.
        """
        if self.source is None or not self.source.is_file():
            return None
        record = _read(self.source, "topic history")
        return record if record.get("run") else None

    def baseline(self, digest: str) -> tuple[dict | None, int]:
        """The record to match against and the run number to write this run as.

        A rerun of the topics stage that gives the same partition as the latest record replaces
        that record and is matched against the one it was matched against, so that rerunning
        gives the same ids and the same events.
        """
        latest = self.latest()
        if latest is None:
            self._matched = None
            return None, 1
        if latest["digest"] != digest:
            self._matched = _without_previous(latest)
            return self._matched, latest["run"] + 1
        self._matched = latest.get("previous")
        return self._matched, latest["run"]

    def write(self, run: int, record: dict) -> None:
        """Write this run's record (with the one it was matched against) to ``staged``."""
        storage.write_json(
            self.staged, {"format": HISTORY_FORMAT, "run": run, **record, "previous": self._matched}
        )


def _without_previous(record: dict) -> dict:
    return {key: value for key, value in record.items() if key != "previous"}


def _read(path: Path, what: str) -> dict:
    try:
        record = storage.read_json(path)
    except UnicodeDecodeError as error:
        raise PipelineInputError(f"{path}: not UTF-8 text (byte {error.start}); {_REMEDY}") from None
    except json.JSONDecodeError as error:
        raise PipelineInputError(
            f"{path} line {error.lineno}, column {error.colno}: not a {what} record ({error.msg}); {_REMEDY}"
        ) from None
    found = record.get("format") if isinstance(record, dict) else type(record).__name__
    if found != HISTORY_FORMAT:
        raise PipelineInputError(f"{path}: {what} format {found!r} is not {HISTORY_FORMAT}; {_REMEDY}")
    return record


def earlier_shares(published: list[str], run: int | None):
    """The share table run ``run`` published (a DataFrame, as ``dump_shares.csv`` reads), from
    the published ``shares.json`` (zero or one path); None where history holds none.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    kept = _kept_shares(published, run)
    return None if kept is None else pd.read_csv(io.StringIO(kept["csv"]), keep_default_na=False)


def _kept_shares(published: list[str], run: int | None) -> dict | None:
    record = _read(Path(published[0]), "share history") if published else None
    for kept in (record, (record or {}).get("previous")):
        if run and kept and kept.get("run") == run and kept.get("csv") is not None:
            return {"run": run, "csv": kept["csv"]}
    return None


def stage_shares(staged: str, published: list[str], run: int, previous_run: int | None, table) -> None:
    """Write this run's share ``table`` (run ``run``) to ``staged``, with that of the run its
    topics were matched against (``previous_run``), carried over from the published history.
    """
    storage.write_json(
        staged,
        {
            "format": HISTORY_FORMAT,
            "run": run,
            "csv": table.to_csv(index=False),
            "previous": _kept_shares(published, previous_run),
        },
    )


def start_history(folder: str | os.PathLike = HISTORY) -> list[str]:
    """An empty history where there is none (a first run, ``make reset-topic-ids``), carrying
    over the latest runs of an earlier version's history; returns what the user should hear.
    """
    folder = Path(folder)
    if (folder / TOPICS).is_file() and (folder / SHARES).is_file():
        return []
    runs = sorted(int(p.stem[4:]) for p in folder.glob("run-*.json") if p.stem[4:].isdigit())
    topics, shares = _carried_over(folder, runs[-1]) if runs else (None, None)
    empty = {"format": HISTORY_FORMAT, "run": 0, "previous": None}
    if not (folder / TOPICS).is_file():
        storage.write_json(folder / TOPICS, topics or empty)
    if not (folder / SHARES).is_file():
        storage.write_json(folder / SHARES, shares or {**empty, "csv": None})
    return [f"{folder}: the topic history of run {runs[-1]} carried over to {TOPICS}."] if runs else []


def _carried_over(folder: Path, run: int) -> tuple[dict, dict]:
    """An earlier version's latest run record and share table in this version's files."""

    def former(run: int | None) -> dict | None:
        path = folder / _FORMER_RUN.format(run or 0)
        return {**storage.read_json(path), "format": HISTORY_FORMAT} if run and path.is_file() else None

    def former_shares(run: int | None) -> dict | None:
        path = folder / _FORMER_SHARES.format(run or 0)
        csv = path.read_text(encoding="utf-8") if run and path.is_file() else None
        return {"run": run, "csv": csv} if csv is not None else None

    latest = former(run)
    before = latest.get("matched_against")
    topics = {**latest, "previous": former(before)}
    shares = {"format": HISTORY_FORMAT, **(former_shares(run) or {"run": 0, "csv": None})}
    return topics, {**shares, "previous": former_shares(before)}
