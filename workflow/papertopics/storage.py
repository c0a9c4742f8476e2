"""Atomic writes and the small file formats shared by the stages.

Every output is written to a temporary file beside its destination and renamed into
place, so that a killed or failed job never leaves a half-written file behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np


@contextlib.contextmanager
def atomic_path(destination: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``destination``; rename it there on success."""
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{destination.name}.", suffix=".part", dir=destination.parent
    )
    os.close(handle)
    temporary = Path(temporary)
    # mkstemp creates the file private (0600); outputs get the usual permissions instead.
    umask = os.umask(0)
    os.umask(umask)
    temporary.chmod(0o666 & ~umask)
    try:
        yield temporary
        os.replace(temporary, destination)
    finally:
        temporary.unlink(missing_ok=True)


def write_text(destination: str | os.PathLike, text: str) -> None:
    with atomic_path(destination) as temporary:
        temporary.write_text(text, encoding="utf-8")


def write_json(destination: str | os.PathLike, data) -> None:
    write_text(destination, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_json(source: str | os.PathLike):
    return json.loads(Path(source).read_text(encoding="utf-8"))


def write_jsonl(destination: str | os.PathLike, records: Iterable[dict]) -> None:
    lines = (json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    write_text(destination, "".join(lines))


def read_jsonl(source: str | os.PathLike) -> list[dict]:
    with open(source, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def write_csv(destination: str | os.PathLike, frame) -> None:
    """Write a pandas DataFrame as CSV (without its index)."""
    with atomic_path(destination) as temporary:
        frame.to_csv(temporary, index=False)


def write_arrays(destination: str | os.PathLike, **arrays: np.ndarray) -> None:
    """Save named arrays as an uncompressed ``.npz`` (no pickled objects)."""
    with atomic_path(destination) as temporary:
        with open(temporary, "wb") as stream:
            np.savez(stream, **arrays)


def read_arrays(source: str | os.PathLike) -> dict[str, np.ndarray]:
    with np.load(source, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}
