"""Read a dump as a stream of records, in memory that does not grow with the file.

:func:`papertopics.ingest.readers.read_dump` holds the whole file (its bytes, its text, its lines
and its records at once: about four times a dump's size). A dump of a line- or record-oriented
format (plain text, Markdown, JSON Lines, CSV and TSV and the exports built on them, RIS, MEDLINE,
Web of Science plain text) in clean UTF-8, or UTF-16 or UTF-32 with a byte-order mark, is instead
read as a stream: once to check it as ``read_dump`` checks every file (valid text, not binary,
not empty) and to keep its head, from which its reader is picked as ``read_dump`` picks it; then
record by record, by that same reader. Every other file is read by ``read_dump``: a JSON document
or BibTeX (which the libraries we use parse only whole), another encoding, a file that fails a
check (``read_dump`` reports the problem, or reads it as another encoding), or one whose head
cannot pick the reader. So the records are the same whichever way they are read. A problem in a
record of a streamed dump stops the run when the record is reached, with ``read_dump``'s message
(of a file with several problems, the one reported may be another).
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from pathlib import Path

from papertopics.ingest.export_formats import is_wos_plain_text, starts_as_wos_plain_text
from papertopics.ingest.export_records import SNIFFED_CHARACTERS
from papertopics.ingest.formats import (
    _BINARY_SIGNATURES,
    _BYTE_ORDER_MARKS,
    _MAX_CONTROL_SHARE,
    COMPRESSED_SUFFIX,
    RawDump,
    Source,
    dump_format,
)
from papertopics.ingest.readers import PLAIN_READERS, WHOLE_TEXT_FORMATS, export_reader, read_dump
from papertopics.text import CONTROL_CHARACTER, is_blank

# What is kept of a file to pick its reader (every export is recognised by its first line, and a
# JSON one by its first SNIFFED_CHARACTERS), and what is read at a time to check the rest.
_HEAD_CHARACTERS = 1 << 20
_CHUNK_CHARACTERS = 1 << 20
# Enough of a file's start to tell it by its signature (a PDF's is 5 bytes).
_SIGNATURE_BYTES = max(len(signature) for signature, _ in _BINARY_SIGNATURES)


def read_records(path: str | Path) -> RawDump:
    """The dump at ``path``: its ``records`` an iterator read as they are asked for where the file
    is a clean dump (UTF-8, or marked UTF-16 or UTF-32) of a format read line by line, else a list, as :func:`read_dump` reads it.
    """
    path = Path(path)
    extension = dump_format(path)
    checked = None if extension in WHOLE_TEXT_FORMATS else _checked(path)
    if checked is None:
        return read_dump(path)
    encoding, head, whole = checked
    if not whole and not _head_decides(head, extension):
        return read_dump(path)
    reader = export_reader(head, extension) or PLAIN_READERS[extension]
    dump = reader(Source(lambda: _lines(path, encoding)), path)
    dump.encoding = encoding
    return dump


def _head_decides(head: str, extension: str) -> bool:
    """Whether a file's head (its first complete lines) picks the reader its whole text would: it
    holds the first non-blank line and the characters a JSON export is sniffed by, and a Web of
    Science plain-text export's first line comes with the line that confirms it.
    """
    if not head.strip() or len(head) < SNIFFED_CHARACTERS:
        return False
    return not (extension == ".txt" and starts_as_wos_plain_text(head) and not is_wos_plain_text(head))


def _open_binary(path: Path) -> io.BufferedIOBase:
    """The file's bytes, gunzipped where its name ends in ``.gz``."""
    return gzip.open(path, "rb") if path.name.lower().endswith(COMPRESSED_SUFFIX) else open(path, "rb")


def _open_text(path: Path, encoding: str) -> io.TextIOWrapper:
    """The file as text, CRLF and CR read as LF."""
    return io.TextIOWrapper(_open_binary(path), encoding=encoding, newline=None)


def _checked(path: Path) -> tuple[str, str, bool] | None:
    """``(encoding, head, whole)`` where the file passes read_dump's checks in UTF-8, or in the
    encoding its byte-order mark names (as read_dump names it: ``utf-8-sig``, ``utf-16``,
    ``utf-32``): its head cut after its last complete line, unless ``whole``, the whole text;
    None where read_dump must read it (another encoding, a check failed).
    """
    try:
        with _open_binary(path) as stream:
            start = stream.read(_SIGNATURE_BYTES)
        if not start or any(start.startswith(signature) for signature, _ in _BINARY_SIGNATURES):
            return None
        encoding = next((name for mark, name in _BYTE_ORDER_MARKS if start.startswith(mark)), "utf-8")
        length = controls = chunks = 0
        visible = False
        with _open_text(path, encoding) as stream:
            head = stream.read(_HEAD_CHARACTERS)
            chunk = head
            while chunk:
                if "\x00" in chunk:
                    return None
                chunks += 1
                length += len(chunk)
                controls += len(CONTROL_CHARACTER.findall(chunk))
                visible = visible or not is_blank(chunk)
                chunk = stream.read(_CHUNK_CHARACTERS)
    except (UnicodeDecodeError, OSError, EOFError, zlib.error):
        return None
    if not visible or controls > _MAX_CONTROL_SHARE * length:
        return None
    head = head.lstrip("\ufeff")
    whole = chunks == 1
    if not whole:
        head = head[: head.rfind("\n") + 1]
    return encoding, head, whole


def _lines(path: Path, encoding: str) -> Iterator[str]:
    """The file's lines with their LF line ends, a byte-order mark left at its start dropped."""
    with _open_text(path, encoding) as stream:
        for number, line in enumerate(stream):
            yield line.lstrip("\ufeff") if number == 0 else line
