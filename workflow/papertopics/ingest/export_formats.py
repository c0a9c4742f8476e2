"""Read the exports of bibliographic databases as they come, each into records of the fields the
pipeline knows: ``title``, ``abstract``, ``authors``, ``year``, ``venue``, ``keywords``, ``doi``,
``url``, ``id`` and ``citations`` (Web of Science ``TC``, Scopus ``Cited by``, OpenAlex
``cited_by_count``).

Which reader a file gets is decided by its content as well as its extension
(:func:`export_reader`): a Web of Science export ends in ``.txt`` like a plain-text dump, and a
Scopus export in ``.csv`` like any table. Here: Web of Science plain text and tab-delimited,
Scopus CSV and PubMed MEDLINE (``.nbib``); BibTeX, RIS, OpenAlex works and the arXiv metadata
snapshot are in :mod:`papertopics.ingest.export_records`. A record an export cuts short or garbles stops
the run with one line naming the file, the record and the problem; nothing is read half-way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from papertopics.errors import PipelineInputError
from papertopics.ingest.affiliations import (
    medline_affiliations,
    scopus_affiliations,
    split_wos_addresses,
    wos_affiliations,
)
from papertopics.ingest.formats import RawDump, Record, Source, bare_lines, read_table
from papertopics.text import normalise_text

# The fields every export is mapped onto, in the order papers.csv gets them.
EXPORT_FIELDS = ("title", "abstract", "authors", "year", "venue", "keywords", "doi", "url", "id", "citations")
# Each author's institution and country where the export says (papertopics.ingest.affiliations);
# an archive's subject categories (arXiv's "cs.LG"), kept apart from keywords: they are no names
# its authors gave the paper, and keywords are the labels' first candidates.
EXPORT_FIELDS += ("affiliations", "countries", "categories")
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
_DOI = re.compile(r"10\.\d{4,9}/\S+")


def export_dump(records: Iterable[Record], format_name: str) -> RawDump:
    """The records of an export as a dump whose columns are :data:`EXPORT_FIELDS`."""
    return RawDump(
        title=None,
        records=records,
        format=format_name,
        encoding="",
        columns=list(EXPORT_FIELDS),
        authors_separator=";",
    )


def paper_record(position: int, location: str, **values) -> Record:
    """A record of the known fields, each as one line of text; lists are joined by "; ".

    ``year`` keeps its four digits only; ``doi`` is the bare DOI (``10.1000/xyz``), and ``url``,
    where the export gives none, its ``https://doi.org/`` link.
    """
    fields = {}
    for name in EXPORT_FIELDS:
        value = values.get(name)
        if isinstance(value, (list, tuple)):
            value = "; ".join(part for part in (normalise_text(str(v)) for v in value) if part)
        text = normalise_text(str(value)) if value is not None else ""
        if name == "year":
            found = _YEAR.search(text)
            text = found.group(1) if found else ""
        elif name == "doi":
            found = _DOI.search(text)
            text = found.group().rstrip(".,;") if found else ""
        if text:
            fields[name] = text
    if "url" not in fields and "doi" in fields:
        fields["url"] = f"https://doi.org/{fields['doi']}"
    return Record(position, location, fields)


def split_list(text: str | None, separators: str = ";") -> list[str]:
    """``"a; b;c"`` → ``["a", "b", "c"]``, blanks dropped."""
    if not text:
        return []
    return [part.strip() for part in re.split(f"[{re.escape(separators)}]", text) if part.strip()]


# --- tagged text: Web of Science plain text, PubMed MEDLINE ------------------------------

_WOS_TAG = re.compile(r"^([A-Z][A-Z0-9]) (.*)$|^([A-Z][A-Z0-9])$")
_WOS_LISTS = {"AU", "AF", "CA", "BE", "C1", "CR"}  # one value per line, continuation lines included
_MEDLINE_TAG = re.compile(r"^([A-Z][A-Z0-9]{0,3}) *- (.*)$|^([A-Z][A-Z0-9]{0,3}) *-$")
_MEDLINE_LISTS = {"FAU", "AU", "OT", "MH", "LID", "AID", "PT"}


def _first_line(text: str) -> str:
    return next((line for line in text.split("\n") if line.strip()), "")


_WOS_HEADER = re.compile(r"^(?:\ufeff)?(?:FN|VR) ")
_WOS_FIRST_RECORD = re.compile(r"^PT [A-Z]\s*$")


def is_wos_plain_text(text: str) -> bool:
    """A Web of Science plain-text export: the ``FN``/``VR`` header, or records from ``PT`` to ``ER``.

    A seed-style dump whose first abstract begins "AB ..." is none: its first line is its title,
    and no line of it is a lone ``ER``. Nor is one titled "FN ...": the header counts only with
    the version line that follows it in every export, or with a record's closing ``ER``.
    """
    first = _first_line(text)
    closes_a_record = re.search(r"^ER\s*$", text, re.MULTILINE) is not None
    if _WOS_HEADER.match(first):
        return closes_a_record or re.search(r"^VR \d", text, re.MULTILINE) is not None
    return bool(_WOS_FIRST_RECORD.match(first)) and closes_a_record


def starts_as_wos_plain_text(text: str) -> bool:
    """Whether the first line is one a Web of Science plain-text export starts with; whether the
    file is one also depends on lines further on (:func:`is_wos_plain_text`), which a streamed
    dump's head may not reach.
    """
    first = _first_line(text)
    return bool(_WOS_HEADER.match(first) or _WOS_FIRST_RECORD.match(first))


def _wos_value(tag: str, values: dict[str, list[str]]) -> str | None:
    parts = values.get(tag)
    if not parts:
        return None
    return "; ".join(parts) if tag in _WOS_LISTS else " ".join(parts)


def read_wos_plain_text(source: Source, path: Path) -> RawDump:
    """A Web of Science plain-text export (``savedrecs.txt``): tagged lines, continuation lines
    indented three spaces, each record from ``PT`` to ``ER``, the file ending in ``EF``.
    """
    return export_dump(_wos_records(source, path), "wos")


def _wos_records(source: Source, path: Path) -> Iterator[Record]:
    """The records of a Web of Science plain-text export, each as its ``ER`` is read."""
    count = 0
    values: dict[str, list[str]] | None = None
    start = tag = None
    for number, line in enumerate(bare_lines(source), start=1):
        if not line.strip():
            continue
        match = _WOS_TAG.match(line.rstrip())
        if line.startswith("   ") and values is not None and tag is not None:
            values[tag].append(line.strip())
            continue
        if match is None:
            where = f"record {count + 1} (line {start})" if values is not None else f"line {number}"
            raise PipelineInputError(
                f"{path}: line {number} ({where} of this Web of Science export) is neither a field tag nor "
                f"an indented continuation: {line[:60]!r}. Export the records again."
            )
        tag, value = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), "")
        if tag in ("FN", "VR", "EF") and values is None:
            tag = None
            continue
        if tag == "ER":
            if values is None:
                raise PipelineInputError(f"{path}: line {number}: ER with no record open (no PT before it).")
            yield _wos_record(count, start, values)
            count += 1
            values, tag = None, None
            continue
        if values is None:
            values, start = {}, number
        elif tag == "PT":
            raise PipelineInputError(
                f"{path}: record {count + 1} (line {start}) has no ER before the next record starts at "
                f"line {number}; the export is damaged. Export the records again."
            )
        values.setdefault(tag, []).append(value.strip())
    if values is not None:
        raise PipelineInputError(
            f"{path}: record {count + 1} (line {start}) ends without ER: the file is cut short. "
            "Export the records again."
        )


def _wos_record(position: int, start: int, values: dict[str, list[str]]) -> Record:
    institutions, countries = wos_affiliations(
        values.get("AF") or values.get("AU") or [], values.get("C1") or []
    )
    return paper_record(
        position,
        f"record {position + 1} (line {start})",
        title=_wos_value("TI", values),
        abstract=_wos_value("AB", values),
        authors=values.get("AF") or values.get("AU"),
        year=_wos_value("PY", values) or _wos_value("EA", values),
        venue=_wos_value("SO", values),
        keywords=split_list(_wos_value("DE", values)),
        doi=_wos_value("DI", values),
        id=_wos_value("UT", values),
        affiliations=institutions,
        countries=countries,
        citations=_wos_value("TC", values),
    )


def is_medline(text: str) -> bool:
    """A PubMed MEDLINE export: records start with ``PMID- `` and the PubMed id. The id is
    required: a plain-text dump may be titled "PMID-" (hypothesis found one).
    """
    return re.fullmatch(r"PMID- *\d+\s*", _first_line(text)) is not None


def read_medline(source: Source, path: Path) -> RawDump:
    """A PubMed MEDLINE (``.nbib``) export: ``TAG - value`` lines, continuation lines indented six
    spaces, a blank line between records, each starting with ``PMID-``.
    """
    return export_dump(_medline_records(source, path), "medline")


def _medline_records(source: Source, path: Path) -> Iterator[Record]:
    """The records of a MEDLINE export, each as the blank line (or the end) after it is read."""
    count = 0
    values: dict[str, list[str]] | None = None
    start = tag = None
    for number, line in enumerate(bare_lines(source), start=1):
        if not line.strip():
            if values is not None:
                yield _medline_record(count, start, values)
                count += 1
            values, tag = None, None
            continue
        if line.startswith("      ") and values is not None and tag is not None:
            values[tag][-1] += " " + line.strip()
            continue
        match = _MEDLINE_TAG.match(line.rstrip())
        if match is None:
            raise PipelineInputError(
                f"{path}: line {number} (record {count + 1}) of this MEDLINE export is neither a "
                f"'TAG - value' line nor an indented continuation: {line[:60]!r}. Export the records again."
            )
        tag, value = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), "")
        if values is None:
            if tag != "PMID":
                raise PipelineInputError(
                    f"{path}: record {count + 1} (line {number}) does not start with PMID- "
                    f"(it starts with {tag}); records must be separated by one blank line."
                )
            values, start = {}, number
        values.setdefault(tag, []).append(value.strip())
        if tag == "AD":  # whose address: the author named last (FAU, then AU, then their ADs)
            values.setdefault("AD author", []).append(str(len(values.get("AU") or values.get("FAU") or [])))
    if values is not None:
        yield _medline_record(count, start, values)


def _medline_record(position: int, start: int, values: dict[str, list[str]]) -> Record:
    def one(tag: str) -> str | None:
        return " ".join(values[tag]) if tag in values else None

    dois = [v for tag in ("LID", "AID") for v in values.get(tag, []) if v.endswith("[doi]")]
    keywords = values.get("OT") or [term.lstrip("*").split("/")[0] for term in values.get("MH", [])]
    pmid = one("PMID")
    first_address: dict[str, str] = {}
    for author, address in zip(values.get("AD author", []), values.get("AD", []), strict=True):
        first_address.setdefault(author, address)
    institutions, countries = medline_affiliations(list(first_address.values()))
    return paper_record(
        position,
        f"record {position + 1} (line {start})",
        title=one("TI"),
        abstract=one("AB"),
        authors=values.get("FAU") or values.get("AU"),
        year=one("DP"),
        venue=one("JT") or one("TA"),
        keywords=keywords,
        doi=dois[0] if dois else None,
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else None,
        id=pmid,
        affiliations=institutions,
        countries=countries,
    )


# --- tables: Web of Science tab-delimited, Scopus CSV --------------------------------------

_WOS_COLUMNS = {
    "title": "TI",
    "abstract": "AB",
    "year": "PY",
    "venue": "SO",
    "doi": "DI",
    "id": "UT",
    "citations": "TC",
}
_SCOPUS_COLUMNS = {
    "title": "Title",
    "abstract": "Abstract",
    "year": "Year",
    "venue": "Source title",
    "doi": "DOI",
    "url": "Link",
    "id": "EID",
    "citations": "Cited by",
}
# Columns only a Scopus export has (one is enough beside Title and Abstract).
_SCOPUS_MARKS = ("Source title", "Author Keywords", "EID", "Author(s) ID", "Author full names")


def _header_cells(text: str, delimiter: str) -> list[str]:
    return [cell.strip().strip('"') for cell in _first_line(text).split(delimiter)]


def is_wos_tab_delimited(text: str) -> bool:
    """A Web of Science tab-delimited export: a header of two-letter tags with ``PT``/``UT`` and ``TI`` or ``AB``."""
    cells = _header_cells(text, "\t")
    tags = [cell for cell in cells if re.fullmatch(r"[A-Z][A-Z0-9]", cell)]
    return len(tags) >= 5 and ("PT" in cells or "UT" in cells) and ("TI" in cells or "AB" in cells)


def is_scopus_csv(text: str) -> bool:
    """A Scopus CSV export: ``Title`` and ``Abstract`` columns and one only Scopus has (``Source title``, ``EID``)."""
    cells = _header_cells(text, ",")
    return "Title" in cells and "Abstract" in cells and any(mark in cells for mark in _SCOPUS_MARKS)


def read_wos_tab_delimited(source: Source, path: Path) -> RawDump:
    """A Web of Science tab-delimited export: a header of field tags, then one record per line,
    fields separated by tabs and never quoted (an abstract's quotation marks are its own).
    """
    lines = bare_lines(source)
    header = [cell.strip() for cell in next(lines).split("\t")]
    while header and not header[-1]:
        header.pop()  # Web of Science ends every line with a tab
    numbered = ((number, line) for number, line in enumerate(lines, start=2) if line.strip())
    records = (
        _wos_tab_record(position, number, line, header) for position, (number, line) in enumerate(numbered)
    )
    return export_dump(records, "wos-tab")


def _wos_tab_record(position: int, number: int, line: str, header: list[str]) -> Record:
    cells = line.split("\t")
    while len(cells) > len(header) and not cells[-1].strip():
        cells.pop()
    location = f"line {number}"
    if len(cells) != len(header):
        problem = f"unparsable: {len(cells)} fields where the header has {len(header)}"
        return Record(position, location, {}, problem=problem)
    row = dict(zip(header, cells, strict=True))
    mapped = {name: row.get(tag) for name, tag in _WOS_COLUMNS.items()}
    authors = split_list(row.get("AF") or row.get("AU"))
    institutions, countries = wos_affiliations(authors, split_wos_addresses(row.get("C1")))
    return paper_record(
        position,
        location,
        **mapped,
        authors=authors,
        keywords=split_list(row.get("DE")),
        affiliations=institutions,
        countries=countries,
    )


def read_scopus_csv(source: Source, path: Path) -> RawDump:
    """A Scopus CSV export: its columns mapped (``Source title`` → venue, ``Author Keywords`` →
    keywords, ``Authors`` or ``Author full names`` → authors), rows as any CSV's.
    """
    table = read_table(source, path, ",")
    return export_dump((_scopus_record(record) for record in table.records), "scopus")


def _scopus_record(record: Record) -> Record:
    if record.problem:
        return record
    row = record.fields
    mapped = {name: row.get(column) for name, column in _SCOPUS_COLUMNS.items()}
    full_names = [re.sub(r"\s*\(\d+\)$", "", name) for name in split_list(row.get("Author full names"))]
    authors = full_names or split_list(row.get("Authors"), ";" if ";" in row.get("Authors", "") else ",")
    keywords = split_list(row.get("Author Keywords"))
    institutions, countries = scopus_affiliations(row.get("Authors with affiliations"))
    return paper_record(
        record.position,
        record.location,
        **mapped,
        authors=authors,
        keywords=keywords,
        affiliations=institutions,
        countries=countries,
    )
