"""Read an abstract dump of any supported format into raw records of one shape.

The format is picked by the file's extension, optionally followed by ``.gz``:

- ``.txt``: the first non-blank line is the dump's title, then one abstract per paragraph
  (paragraphs separated by blank lines, line breaks inside a paragraph joined).
- ``.md``: as ``.txt``; a heading line (``## ...``) is the title of the paragraph after it,
  and thematic breaks (``---``) only separate.
- ``.jsonl`` and ``.json``: read by :mod:`papertopics.ingest.json_formats`.
- ``.csv`` / ``.tsv``: a header row, then one paper per row.
- The exports of bibliographic databases (Web of Science, Scopus, BibTeX ``.bib``, RIS ``.ris``,
  OpenAlex, PubMed ``.nbib``, the arXiv snapshot), recognised by their content as well as their
  extension, are read by :mod:`papertopics.ingest.export_formats`.

Text is decoded from UTF-8 (with or without a byte-order mark), UTF-16 or UTF-32 with a
byte-order mark, or, failing UTF-8, cp1252/latin-1 with a warning; line endings LF, CRLF
and CR are all read as LF. Readers only read: which field holds the abstract, and what
is kept or rejected, is decided in :mod:`papertopics.ingest.parse`.

Every reader takes a :class:`Source`: the text's lines, which the line- and record-oriented
formats read one at a time (their records then come as they are asked for, so a dump read from
its file, :mod:`papertopics.ingest.streaming`, is never held whole), or the whole text, which a
JSON document and BibTeX need.
"""

from __future__ import annotations

import csv
import gzip
import itertools
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from papertopics.errors import PipelineInputError
from papertopics.text import CONTROL_CHARACTER, is_blank, normalise_text

SUPPORTED_EXTENSIONS = (".txt", ".md", ".jsonl", ".json", ".csv", ".tsv", ".bib", ".ris", ".nbib")
COMPRESSED_SUFFIX = ".gz"

_BYTE_ORDER_MARKS = (  # UTF-32 first: its little-endian mark begins with UTF-16's
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_BINARY_SIGNATURES = (
    (b"\x1f\x8b", "gzip-compressed; name it with a .gz ending (e.g. dump.txt.gz)"),
    (b"%PDF-", "a PDF document; extract its text into a .txt dump first"),
    (b"PK\x03\x04", "a ZIP archive (or an .xlsx/.docx file); export the sheet as CSV or the text as .txt"),
    (b"\xd0\xcf\x11\xe0", "an old Office document (.xls/.doc); export the sheet as CSV or the text as .txt"),
    (b"\x89PNG", "a PNG image, not a text dump"),
    (b"\xff\xd8\xff", "a JPEG image, not a text dump"),
)
# More control characters than this share of the text means the file is not text.
_MAX_CONTROL_SHARE = 0.01
# A .txt/.md title line longer than this is more likely an abstract.
_LONGEST_LIKELY_TITLE = 150
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")


@dataclass
class Record:
    """One record of a dump as read, before any decision about it."""

    position: int  # 0-based order in the dump
    location: str  # where to find it in the file: "line 12", "record 3"
    fields: dict[str, str]  # every field the record has, as text
    problem: str | None = None  # set when the record could not be read


@dataclass
class Source:
    """A dump's decoded text as a reader takes it: ``lines()`` gives its lines afresh, each with
    its LF line end (a byte-order mark at the start dropped), read from the file as they are asked
    for where the dump is streamed; ``text``, the whole text, is there only where it was read whole,
    and only the formats parsed whole (a JSON document, BibTeX) use it.
    """

    lines: Callable[[], Iterator[str]]
    text: str | None = None


def text_source(text: str) -> Source:
    """A text read whole as a source; its lines are cut from it one at a time, not all at once."""
    return Source(lambda: _text_lines(text), text)


def _text_lines(text: str) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = text.find("\n", start) + 1 or len(text)
        yield text[start:end]
        start = end


def bare_lines(source: Source) -> Iterator[str]:
    """The source's lines without their line ends."""
    return (line.removesuffix("\n") for line in source.lines())


@dataclass
class RawDump:
    """A dump file's records before parsing, with its title, format, encoding and field names."""

    title: str | None  # from the file itself (title line), or None
    # A list where the dump was read whole; an iterator, read as it is consumed, where it is streamed.
    records: Iterable[Record]
    format: str
    encoding: str
    warnings: list[str] = field(default_factory=list)
    # Field names of a table's header or, for JSON, of all records in order of first
    # appearance; None for .txt/.md, whose records name their abstract "abstract".
    columns: list[str] | None = None
    # What separates the names in ``authors`` where the reader joined them itself (the exports'
    # "; ", so that "Turing, Alan" stays one name); None: guessed from the text.
    authors_separator: str | None = None


def dump_format(path: str | Path) -> str:
    """The format extension of a dump (``.csv`` for ``x.csv.gz``), checked to be supported."""
    name = Path(path).name.lower()
    stem = name[: -len(COMPRESSED_SUFFIX)] if name.endswith(COMPRESSED_SUFFIX) else name
    extension = Path(stem).suffix
    if extension not in SUPPORTED_EXTENSIONS:
        supported = ", ".join(SUPPORTED_EXTENSIONS)
        raise PipelineInputError(
            f"{path}: unsupported file type {extension or '(no extension)'!r}; dumps must end in one of "
            f"{supported} (each optionally followed by .gz). Convert the file, or change 'inputs' in config.yaml."
        )
    return extension


def read_bytes(path: Path) -> bytes:
    """The file's bytes, gunzipped when its name ends in ``.gz``."""
    raw = path.read_bytes()
    if not path.name.lower().endswith(COMPRESSED_SUFFIX):
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as error:
        raise PipelineInputError(
            f"{path}: not a readable gzip file ({error}); recompress it with gzip, or drop the .gz ending "
            "if it is not compressed."
        ) from None


def _empty_file(path) -> PipelineInputError:
    return PipelineInputError(f"{path}: the file is empty; put abstracts in it or remove it from data/raw.")


def decode(raw: bytes, path: Path) -> tuple[str, str, list[str]]:
    """Return (text with LF line endings, encoding used, warnings)."""
    if not raw.strip():
        raise _empty_file(path)
    for signature, what in _BINARY_SIGNATURES:
        if raw.startswith(signature):
            raise PipelineInputError(f"{path}: this is {what}.")
    warnings = []
    encoding = next((name for mark, name in _BYTE_ORDER_MARKS if raw.startswith(mark)), None)
    if encoding is None and b"\x00" in raw:
        encoding = _utf16_without_mark(raw)
    if encoding is None and b"\x00" in raw:
        raise PipelineInputError(
            f"{path}: this looks like a binary file (it contains NUL bytes), not a text dump; if it is "
            "UTF-16 text without a byte-order mark, save it as UTF-8."
        )
    if encoding is None:
        try:
            text, encoding = raw.decode("utf-8"), "utf-8"
        except UnicodeDecodeError as error:
            line = raw[: error.start].count(b"\n") + 1
            try:
                text, encoding = raw.decode("cp1252"), "cp1252"
            except UnicodeDecodeError:
                text, encoding = raw.decode("latin-1"), "latin-1"
            warnings.append(
                f"{path}: not valid UTF-8 (first at line {line}); read as {encoding}. Check accented "
                "characters in the report, or save the file as UTF-8."
            )
    else:
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as error:
            raise PipelineInputError(
                f"{path}: starts with a {encoding.upper()} byte-order mark but byte {error.start} is not valid "
                f"{encoding.upper()} ({error.reason}); save the file as UTF-8."
            ) from None
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    controls = len(CONTROL_CHARACTER.findall(text))
    if controls > _MAX_CONTROL_SHARE * len(text):
        raise PipelineInputError(
            f"{path}: this looks like a binary file ({controls} control characters in {len(text)}), not a text dump."
        )
    if is_blank(text):
        raise _empty_file(path)
    return text, encoding, warnings


def _utf16_without_mark(raw: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` for UTF-16 text saved without a byte-order mark (as Web of
    Science's tab-delimited export can be): mostly Latin text, so nearly every other byte is 0.
    """
    if len(raw) % 2 or len(raw) < 4:
        return None
    half = len(raw) // 2
    for zeros, name in ((raw[1::2], "utf-16-le"), (raw[0::2], "utf-16-be")):
        if zeros.count(0) >= 0.9 * half:
            try:
                raw.decode(name)
            except UnicodeDecodeError:
                return None
            return name
    return None


def iter_blocks(lines: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """Runs of non-blank lines, each with its first line's 1-based number; ``lines`` may be a
    stream, so nothing is held but the current run.
    """
    current: list[str] = []
    start = 0
    for number, line in enumerate(lines, start=1):
        if not is_blank(line):
            if not current:
                start = number
            current.append(line)
        elif current:
            yield start, current
            current = []
    if current:
        yield start, current


def _title_warnings(title: str, path: Path) -> list[str]:
    """A first line as long as an abstract probably is one: say so rather than lose it quietly."""
    if len(title) <= _LONGEST_LIKELY_TITLE:
        return []
    return [
        f"{path}: the first line ({len(title)} characters) is taken as the dump's title, not as an abstract; "
        "if it is an abstract, add a title line above it."
    ]


def read_text(source: Source, path: Path) -> RawDump:
    """A plain-text dump: a title line, then one abstract per paragraph (blank-line separated)."""
    blocks = iter_blocks(bare_lines(source))
    title_line, first_block = next(blocks)  # decoding found a visible character: there is a block
    title = normalise_text(first_block[0])
    rest = [(title_line + 1, first_block[1:])] if len(first_block) > 1 else []
    records = (
        Record(position, f"line {start}", {"abstract": normalise_text(" ".join(lines))})
        for position, (start, lines) in enumerate(itertools.chain(rest, blocks))
    )
    return RawDump(
        title=title, records=records, format="txt", encoding="", warnings=_title_warnings(title, path)
    )


def read_markdown(source: Source, path: Path) -> RawDump:
    """A Markdown dump: a ``#`` title, then each paper as a heading and its paragraph."""
    numbered = enumerate(bare_lines(source), start=1)
    dump_title = None
    for _, line in numbered:
        stripped = normalise_text(line)
        if stripped:
            match = _HEADING.match(line)
            dump_title = normalise_text(match.group(1) or "") if match else stripped
            break
    warnings = _title_warnings(dump_title, path)
    records = _markdown_records(numbered)
    return RawDump(title=dump_title, records=records, format="md", encoding="", warnings=warnings)


def _markdown_records(numbered: Iterator[tuple[int, str]]) -> Iterator[Record]:
    """The papers after a Markdown dump's title line: each heading with the paragraph under it (a
    heading with none is an empty record, counted), or a paragraph alone.
    """
    position = 0
    heading: tuple[int, str] | None = None  # (line, title) waiting for its paragraph
    paragraph: list[str] = []
    paragraph_start = 0

    def record(start: int, title: str | None, abstract: str | None) -> Record:
        nonlocal position
        fields = {"title": title} if title else {}
        if abstract:
            fields["abstract"] = abstract
        position += 1
        return Record(position - 1, f"line {start}", fields)

    def flushed() -> Record | None:
        nonlocal heading, paragraph
        if not paragraph:
            return None
        start = heading[0] if heading else paragraph_start
        done = record(start, heading[1] if heading else None, normalise_text(" ".join(paragraph)))
        heading, paragraph = None, []
        return done

    for number, line in numbered:
        stripped = normalise_text(line)
        heading_match = _HEADING.match(line)
        if heading_match or not stripped or _THEMATIC_BREAK.match(line):
            if paragraph_record := flushed():
                yield paragraph_record
            if heading_match:
                if heading:
                    yield record(heading[0], heading[1], None)
                heading = (number, normalise_text(heading_match.group(1) or ""))
        else:
            if not paragraph:
                paragraph_start = number
            paragraph.append(line)
    if paragraph_record := flushed():
        yield paragraph_record
    if heading:
        yield record(heading[0], heading[1], None)


def _unique_names(header: list[str]) -> list[str]:
    """Header cells cleaned; a repeated name gets a suffix (``name_2``) so no column is lost."""
    names: list[str] = []
    for position, cell in enumerate(header, start=1):
        name = normalise_text(cell) or f"column_{position}"
        candidate, count = name, 1
        while candidate in names:
            count += 1
            candidate = f"{name}_{count}"
        names.append(candidate)
    return names


def read_table(source: Source, path: Path, delimiter: str) -> RawDump:
    """A CSV or TSV dump with a header row; a row whose field count differs is rejected."""
    rows = _table_rows(source, path, delimiter)
    first = next(rows, None)
    if first is None:
        raise PipelineInputError(f"{path}: no header row; the first row must name the columns.")
    header = _unique_names(first[1])
    records = (_table_record(position, start, row, header) for position, (start, row) in enumerate(rows))
    return RawDump(
        title=None, records=records, format="tsv" if delimiter == "\t" else "csv", encoding="", columns=header
    )


def _table_rows(source: Source, path: Path, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """A table's rows but blank lines, each with the line it starts on; a row the csv module cannot
    read stops the run, named.
    """
    reader = csv.reader(source.lines(), delimiter=delimiter, strict=True)
    next_line = 1
    try:
        for row in reader:
            start, next_line = next_line, reader.line_num + 1
            if len(row) <= 1 and not "".join(row).strip():
                continue  # a blank line is not a record (a row of empty cells is, and is rejected)
            yield start, row
    except csv.Error as error:
        raise PipelineInputError(
            f"{path}: the row starting at line {next_line} cannot be read ({error}); most often a quote "
            "that is never closed. Fix the quoting, or re-export the sheet."
        ) from None


def _table_record(position: int, start: int, row: list[str], header: list[str]) -> Record:
    location = f"line {start}"
    if len(row) != len(header):
        problem = f"unparsable: {len(row)} fields where the header has {len(header)}"
        return Record(position, location, {}, problem=problem)
    cells = {name: normalise_text(cell) for name, cell in zip(header, row, strict=True)}
    return Record(position, location, {k: v for k, v in cells.items() if v})
