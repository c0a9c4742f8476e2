"""Split a large dump's embedding into shards (separate jobs) and put the pieces back together.

The number of shards is planned before parsing, from the raw dump's distinct records (read when
Snakemake builds its job graph, in any input format): records the same in every field count
once, so a dump of 60 papers exported, merged and pasted together a thousand times is one job,
whatever its size on disk. Each shard then takes an equal share of the papers that parsing
actually kept, so a count that is a little high (the same abstract with other fields, rejected
records) only changes the shard sizes, never which papers are embedded.

Counting means decoding the whole dump, so counts are kept in a small file keyed by each dump's
size and modification time: Snakemake builds the job graph at every invocation (a dry run, a
no-op rerun, and on a cluster every job), and only a new or changed dump is read again.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from papertopics import storage
from papertopics.errors import PipelineInputError
from papertopics.ingest.streaming import read_records

RECORD_COUNTS = "results/cache/record-counts.json"


def count_records(dump_path: str | Path) -> int | None:
    """Distinct records in the dump as read (before parsing decides on each): those the same in
    every field counted once; None if it cannot be read.
    """
    # A plain-text dump is read as a stream, and only each record's hash is kept: counting a big
    # dump takes little memory in Snakemake's own process.
    try:
        return len({hash(tuple(sorted(record.fields.items()))) for record in read_records(dump_path).records})
    except PipelineInputError:
        return None  # the parse job reports what is wrong with the file


class RecordCounts:
    """Distinct-record counts of dumps, remembered in ``path`` while a dump's size and mtime stay the same."""

    def __init__(self, path: str | Path = RECORD_COUNTS):
        self.path = Path(path)
        try:
            entries = storage.read_json(self.path)
        except (OSError, ValueError):  # absent, or damaged: counted again
            entries = {}
        self.entries = entries if isinstance(entries, dict) else {}
        self.changed = False

    def count(self, dump_path: str | Path) -> int | None:
        """The dump's record count: remembered while its size and modification time are unchanged."""
        status = os.stat(dump_path)
        stamp = [status.st_size, status.st_mtime_ns]
        entry = self.entries.get(str(dump_path))
        # Entries of "records" (every record, counted before duplicates were told apart) are counted again.
        if isinstance(entry, dict) and entry.get("stamp") == stamp and "distinct_records" in entry:
            return entry["distinct_records"]
        records = count_records(dump_path)
        self.entries[str(dump_path)] = {"stamp": stamp, "distinct_records": records}
        self.changed = True
        return records

    def save(self) -> None:
        """Write the counts if any was new; a read-only folder only costs the recount next time."""
        if not self.changed:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            storage.write_json(self.path, self.entries)
        except OSError:
            return
        self.changed = False


def planned_shards(dump_path: str | Path, shard_size: int, counts: RecordCounts | None = None) -> int:
    """How many embedding jobs a dump gets: one per ``shard_size`` distinct records (at least one)."""
    records = count_records(dump_path) if counts is None else counts.count(dump_path)
    return max(1, math.ceil((records or 0) / shard_size))


def shard_bounds(n_items: int, index: int, count: int) -> tuple[int, int]:
    """Start and end of shard ``index`` (0-based) of ``count`` near-equal contiguous shards."""
    if not 0 <= index < count:
        raise ValueError(f"shard {index} does not exist among {count} shards")
    return index * n_items // count, (index + 1) * n_items // count
