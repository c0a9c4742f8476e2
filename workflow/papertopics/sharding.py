"""Split a large dump's embedding into shards (separate jobs) and put the pieces back together.

The number of shards is planned before parsing, from the raw dump's paragraph count (cheap,
and known when Snakemake builds its job graph); each shard then takes an equal share of the
papers that parsing actually kept, so an estimate that is a little off only changes the
shard sizes, never which papers are embedded.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

_PARAGRAPH_BREAK = re.compile(rb"\n[ \t\f\v\r]*\n\s*")


def planned_shards(dump_path: str | Path, shard_size: int) -> int:
    """How many embedding jobs a dump gets: one per ``shard_size`` paragraphs (at least one)."""
    raw = Path(dump_path).read_bytes().replace(b"\r\n", b"\n").strip()
    paragraphs = len(_PARAGRAPH_BREAK.split(raw)) - 1  # the first block holds the title line
    return max(1, math.ceil(paragraphs / shard_size))


def shard_bounds(n_items: int, index: int, count: int) -> tuple[int, int]:
    """Start and end of shard ``index`` (0-based) of ``count`` near-equal contiguous shards."""
    if not 0 <= index < count:
        raise ValueError(f"shard {index} does not exist among {count} shards")
    return index * n_items // count, (index + 1) * n_items // count
