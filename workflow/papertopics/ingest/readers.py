"""Which reader a dump gets, and the dump read with it: a database's export where its content is
one (Web of Science, Scopus, PubMed in ``export_formats``; BibTeX, RIS, OpenAlex, arXiv in
``export_records``), else the reader its extension names (``formats``, ``json_formats``). Above
them, so that none of them imports another's readers back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from papertopics.ingest import export_records
from papertopics.ingest.export_formats import (
    is_medline,
    is_scopus_csv,
    is_wos_plain_text,
    is_wos_tab_delimited,
    read_medline,
    read_scopus_csv,
    read_wos_plain_text,
    read_wos_tab_delimited,
)
from papertopics.ingest.formats import (
    RawDump,
    Source,
    decode,
    dump_format,
    read_bytes,
    read_markdown,
    read_table,
    read_text,
    text_source,
)
from papertopics.ingest.json_formats import read_json, read_json_lines

Reader = Callable[[Source, Path], RawDump]

# The readers of the plain formats, by extension (an export's reader is picked first).
PLAIN_READERS: dict[str, Reader] = {
    ".txt": read_text,
    ".md": read_markdown,
    ".jsonl": read_json_lines,
    ".json": read_json,
    ".csv": lambda source, path: read_table(source, path, ","),
    ".tsv": lambda source, path: read_table(source, path, "\t"),
}
# The formats whose readers need the whole text (no library we use parses them as a stream); every
# other format is read line by line.
WHOLE_TEXT_FORMATS = (".json", ".bib")


def read_dump(path: str | Path) -> RawDump:
    """Read the dump at ``path`` whole, with the reader its content and extension call for: a
    database's export where the content is one (:func:`export_reader`), else the reader its
    extension names. Its records are a list, every problem in the file found before it returns.
    """
    path = Path(path)
    extension = dump_format(path)
    text, encoding, warnings = decode(read_bytes(path), path)
    reader = export_reader(text, extension) or PLAIN_READERS[extension]
    dump = reader(text_source(text), path)
    dump.records = list(dump.records)
    dump.encoding = encoding
    dump.warnings = warnings + dump.warnings
    return dump


def export_reader(text: str, extension: str) -> Reader | None:
    """The export reader a dump's content and extension call for; None for the plain formats.
    ``text`` is the whole text, or for a format read line by line the file's head as
    :mod:`papertopics.ingest.streaming` reads it (every check here but Web of Science plain text's
    looks only at the first line and the first characters).
    """
    if extension == ".bib":
        return export_records.read_bibtex
    if extension == ".ris" or (extension == ".txt" and export_records.is_ris(text)):
        return export_records.read_ris
    if extension == ".nbib" or (extension == ".txt" and is_medline(text)):
        return read_medline
    if extension == ".txt" and is_wos_plain_text(text):
        return read_wos_plain_text
    if extension in (".txt", ".tsv") and is_wos_tab_delimited(text):
        return read_wos_tab_delimited
    if extension == ".csv" and is_scopus_csv(text):
        return read_scopus_csv
    if extension in (".json", ".jsonl"):
        return export_records.json_export_reader(text, extension)
    return None
