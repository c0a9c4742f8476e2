"""Split a large dump's embedding into shards (separate jobs) and put the pieces back together.

The number of shards is planned before parsing, from the raw dump's record count (read when
Snakemake builds its job graph, in any input format); each shard then takes an equal share of
the papers that parsing actually kept, so a count that is a little off (duplicates, rejected
records) only changes the shard sizes, never which papers are embedded.
"""

from __future__ import annotations

import math
from pathlib import Path

from papertopics.errors import PipelineInputError
from papertopics.formats import read_dump


def planned_shards(dump_path: str | Path, shard_size: int) -> int:
    """How many embedding jobs a dump gets: one per ``shard_size`` records (at least one)."""
    try:
        records = len(read_dump(dump_path).records)
    except PipelineInputError:
        return 1  # the parse job reports what is wrong with the file
    return max(1, math.ceil(records / shard_size))


def shard_bounds(n_items: int, index: int, count: int) -> tuple[int, int]:
    """Start and end of shard ``index`` (0-based) of ``count`` near-equal contiguous shards."""
    if not 0 <= index < count:
        raise ValueError(f"shard {index} does not exist among {count} shards")
    return index * n_items // count, (index + 1) * n_items // count
