"""Read a plain-text dump as a stream of records, in memory that does not grow with the file.

:func:`papertopics.ingest.readers.read_dump` holds the whole file (its bytes, its text, its lines and
its records at once: about four times a dump's size). A plain-text ``.txt`` dump that is clean
UTF-8 is instead read twice as a stream: once to check it as ``read_dump`` checks every file
(valid UTF-8, not binary, not empty), then record by record. Every other file, and one that fails
a check, is read by ``read_dump`` (which reports the problem, or reads it as another encoding),
so the records are the same whichever reader gives them.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Iterator
from pathlib import Path

from papertopics.ingest.formats import (
    _BINARY_SIGNATURES,
    _MAX_CONTROL_SHARE,
    COMPRESSED_SUFFIX,
    RawDump,
    Record,
    _title_warnings,
    dump_format,
    iter_blocks,
)
from papertopics.ingest.readers import export_reader, read_dump
from papertopics.text import CONTROL_CHARACTER, is_blank, normalise_text

# What is read of a file to decide its format (every export is recognised by its first line).
_HEAD_CHARACTERS = 65536
_CHUNK_CHARACTERS = 1 << 20
_WOS_FIRST_RECORD = re.compile(r"^PT [A-Z]\s*$")


def read_records(path: str | Path) -> RawDump:
    """The dump at ``path``: its ``records`` an iterator read as they are asked for where the file
    is a clean UTF-8 plain-text dump, else a list, as :func:`read_dump` reads it.
    """
    path = Path(path)
    encoding = _streamable_encoding(path)
    if encoding is None:
        return read_dump(path)
    blocks = iter_blocks(_lines(path, encoding))
    title_line, first_block = next(blocks)  # the checks found a visible character: there is one
    title = normalise_text(first_block[0])
    rest = [(title_line + 1, first_block[1:])] if len(first_block) > 1 else []
    records = _text_records(rest, blocks)
    return RawDump(
        title=title, records=records, format="txt", encoding=encoding, warnings=_title_warnings(title, path)
    )


def _open_binary(path: Path) -> io.BufferedIOBase:
    """The file's bytes, gunzipped where its name ends in ``.gz``."""
    return gzip.open(path, "rb") if path.name.lower().endswith(COMPRESSED_SUFFIX) else open(path, "rb")


def _open_text(path: Path, encoding: str) -> io.TextIOWrapper:
    """The file as text, CRLF and CR read as LF."""
    return io.TextIOWrapper(_open_binary(path), encoding=encoding, newline=None)


def _streamable_encoding(path: Path) -> str | None:
    """``utf-8`` (``utf-8-sig`` with a byte-order mark) where the file is a plain-text dump that
    passes read_dump's checks; None where read_dump must read it.
    """
    if dump_format(path) != ".txt":
        return None

    try:
        with _open_binary(path) as stream:
            start = stream.read(4)
        if not start or any(start.startswith(signature) for signature, _ in _BINARY_SIGNATURES):
            return None
        encoding = "utf-8-sig" if start.startswith(b"\xef\xbb\xbf") else "utf-8"
        if start.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00")):
            return None
        length = controls = 0
        visible = False
        with _open_text(path, encoding) as stream:
            head = stream.read(_HEAD_CHARACTERS)
            chunk = head
            while chunk:
                if "\x00" in chunk:
                    return None
                length += len(chunk)
                controls += len(CONTROL_CHARACTER.findall(chunk))
                visible = visible or not is_blank(chunk)
                chunk = stream.read(_CHUNK_CHARACTERS)
    except (UnicodeDecodeError, OSError, EOFError, zlib.error):
        return None
    head = head.lstrip("\ufeff")
    if not visible or controls > _MAX_CONTROL_SHARE * length or export_reader(head, ".txt") is not None:
        return None
    first_line = next((line for line in head.split("\n") if line.strip()), "")
    return None if _WOS_FIRST_RECORD.match(first_line) else encoding


def _lines(path: Path, encoding: str) -> Iterator[str]:
    """The file's lines without their line ends, a byte-order mark left at its start dropped."""
    with _open_text(path, encoding) as stream:
        for number, line in enumerate(stream):
            line = line.removesuffix("\n")
            yield line.lstrip("\ufeff") if number == 0 else line


def _text_records(
    first: list[tuple[int, list[str]]], blocks: Iterator[tuple[int, list[str]]]
) -> Iterator[Record]:
    position = 0
    for blocks_part in (first, blocks):
        for start, lines in blocks_part:
            yield Record(position, f"line {start}", {"abstract": normalise_text(" ".join(lines))})
            position += 1
