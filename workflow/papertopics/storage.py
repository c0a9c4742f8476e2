"""Atomic writes and the small file formats shared by the stages.

Every output is written to a temporary file beside its destination and renamed into
place, so that a killed or failed job never leaves a half-written file behind.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np


def _new_temporary(destination: str) -> tuple[int, str]:
    """A new empty file beside ``destination``, open for writing: (descriptor, path)."""
    folder, name = os.path.split(destination)
    while True:
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.part")
        try:
            # Exclusive creation: never another writer's file. Mode 0o666 less the umask: the
            # usual permissions of a new file (mkstemp would make it private).
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temporary
        except FileExistsError:
            continue


@contextlib.contextmanager
def atomic_path(destination: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``destination``; rename it there on success."""
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = _new_temporary(str(destination))
    os.close(handle)
    temporary = Path(temporary)
    try:
        yield temporary
        os.replace(temporary, destination)
    finally:
        temporary.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_folder(destination: str | os.PathLike) -> Iterator[Path]:
    """Yield a new, empty folder beside ``destination``, named for this writer alone; on success it
    replaces ``destination``, whole.
    """
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    while True:
        temporary = destination.with_name(f".{destination.name}.{secrets.token_hex(6)}.part")
        try:
            temporary.mkdir()  # exclusive, like a file's O_EXCL: never another writer's folder
            break
        except FileExistsError:
            continue
    try:
        yield temporary
        shutil.rmtree(destination, ignore_errors=True)
        os.replace(temporary, destination)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def write_bytes(destination: str, data: bytes) -> None:
    """Write ``data`` to ``destination`` atomically, as atomic_path does, in a folder that exists.

    Lighter than atomic_path (one open, no folder check), for the many small entries of a cache.
    """
    handle, temporary = _new_temporary(destination)
    try:
        with open(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, destination)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def write_text(destination: str | os.PathLike, text: str) -> None:
    """Write UTF-8 text atomically."""
    with atomic_path(destination) as temporary:
        temporary.write_text(text, encoding="utf-8")


def write_json(destination: str | os.PathLike, data) -> None:
    """Write indented JSON atomically."""
    write_text(destination, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_json(source: str | os.PathLike):
    """Read a JSON file."""
    return json.loads(Path(source).read_text(encoding="utf-8"))


def write_jsonl(destination: str | os.PathLike, records: Iterable[dict]) -> None:
    """Write one JSON object per line, atomically, line by line: joined first, the corpus of 100,000
    papers was one string of 280 million characters, most of the corpus job's time.
    """
    with atomic_path(destination) as temporary, open(temporary, "w", encoding="utf-8") as stream:
        stream.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


@contextlib.contextmanager
def gzip_lines_writer(destination: str | os.PathLike) -> Iterator:
    """Yield a function that writes one record as a JSON line of ``destination``, gzip-compressed,
    atomically (on success); byte for byte the same for the same records (no time in the header).
    """
    with (
        atomic_path(destination) as temporary,
        open(temporary, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as compressed,
    ):

        def write(record: dict) -> None:
            compressed.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))

        yield write


def read_jsonl(source: str | os.PathLike) -> list[dict]:
    """Read a JSON Lines file, skipping blank lines."""
    with open(source, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def write_csv(destination: str | os.PathLike, frame) -> None:
    """Write a pandas DataFrame as CSV (without its index)."""
    with atomic_path(destination) as temporary:
        frame.to_csv(temporary, index=False)


def write_arrays(destination: str | os.PathLike, **arrays: np.ndarray) -> None:
    """Save named arrays as an uncompressed ``.npz`` (no pickled objects)."""
    with atomic_path(destination) as temporary, open(temporary, "wb") as stream:
        np.savez(stream, **arrays)


def read_arrays(source: str | os.PathLike) -> dict[str, np.ndarray]:
    """The named arrays of an ``.npz`` file (no pickled objects)."""
    with np.load(source, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def flag_column(column) -> np.ndarray:
    """A true/false column of ``papers.csv`` (``outlier``, ``placed``) as booleans, whether read
    as booleans or as text.
    """
    return np.char.lower(np.asarray(column, dtype=str)) == "true"
