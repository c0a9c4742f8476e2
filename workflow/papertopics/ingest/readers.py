"""Which reader a dump gets, and the dump read with it: a database's export where its content is
one (Web of Science, Scopus, PubMed in ``export_formats``; BibTeX, RIS, OpenAlex, arXiv in
``export_records``), else the reader its extension names (``formats``). Above the three, so that
none of them imports another's readers back.
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
from papertopics.ingest.formats import PLAIN_READERS, RawDump, decode, dump_format, read_bytes


def read_dump(path: str | Path) -> RawDump:
    """Read the dump at ``path`` with the reader its content and extension call for: a database's
    export where the content is one (:func:`export_reader`), else the
    reader its extension names.
    """
    path = Path(path)
    extension = dump_format(path)
    text, encoding, warnings = decode(read_bytes(path), path)
    reader = export_reader(text, extension) or PLAIN_READERS[extension]
    dump = reader(text, path)
    dump.encoding = encoding
    dump.warnings = warnings + dump.warnings
    return dump


def export_reader(text: str, extension: str) -> Callable[[str, Path], RawDump] | None:
    """The export reader a dump's content and extension call for; None for the plain formats."""
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
