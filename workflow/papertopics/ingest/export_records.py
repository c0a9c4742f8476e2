"""Exports read with a parser library or from JSON: BibTeX (bibtexparser, LaTeX decoded by
pylatexenc), RIS (rispy), OpenAlex works and the arXiv metadata snapshot. Each is mapped onto the
fields of :data:`papertopics.ingest.export_formats.EXPORT_FIELDS`; which reader a file gets is decided
in :func:`papertopics.ingest.readers.export_reader`. RIS and JSON Lines are read record by record;
BibTeX and a JSON document whole (bibtexparser and the standard library's parser read only whole).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from papertopics.errors import PipelineInputError
from papertopics.ingest.affiliations import openalex_affiliations
from papertopics.ingest.export_formats import export_dump, paper_record, split_list
from papertopics.ingest.formats import RawDump, Record, Source, bare_lines
from papertopics.ingest.json_formats import json_lines, json_list, json_record

# --- BibTeX -------------------------------------------------------------------------------

_VENUE_FIELDS = ("journal", "journaltitle", "booktitle", "series", "howpublished", "school", "institution")


def read_bibtex(source: Source, path: Path) -> RawDump:
    r"""A BibTeX file (Zotero, Mendeley, Google Scholar): one record per entry, LaTeX accents and
    escapes decoded (``M{\"u}ller`` → ``Müller``, ``50\%`` → ``50%``), ``@string`` macros resolved.
    """
    # A format's parser loads only for a dump of that format.
    import bibtexparser
    from bibtexparser import middlewares
    from bibtexparser.model import DuplicateBlockKeyBlock

    decoder = _latex_decoder()

    def parse(source: str):
        decoding = middlewares.LatexDecodingMiddleware(decoder=decoder)
        return bibtexparser.parse_string(
            source, append_middleware=[middlewares.SeparateCoAuthors(), decoding]
        )

    # bibtexparser logs each failed block as a warning of its own; the error below says it once.
    parser_log = logging.getLogger("bibtexparser")
    level = parser_log.level
    parser_log.setLevel(logging.ERROR)
    try:
        library = parse(source.text)
    finally:
        parser_log.setLevel(level)
    entries = list(library.entries)
    for block in library.failed_blocks:
        line = block.start_line + 1
        key = f" {block.key!r}" if getattr(block, "key", None) else ""
        if isinstance(block, DuplicateBlockKeyBlock):  # read all the same: papers are told apart by abstract
            entries.extend(parse(block.raw).entries)
            continue
        entry = re.match(r"\s*@\s*(\w+)\s*[{(]\s*([^,\s]*)", block.raw)
        name = f"@{entry.group(1)}{{{entry.group(2)}" if entry else block.raw.strip()[:40]
        raise PipelineInputError(
            f"{path}: the BibTeX entry{key or ''} at line {line} ({name}…) cannot be read: "
            f"{_bibtex_problem(block)}. Fix that entry (most often a brace or quote never closed)."
        )
    entries.sort(key=lambda entry: entry.start_line)
    records = [_bibtex_record(position, entry, decoder) for position, entry in enumerate(entries)]
    return export_dump(records, "bibtex")


def _latex_decoder():
    r"""The LaTeX-to-text decoder (pylatexenc) as bibtexparser sets it up (maths kept as written, URLs
    bare), with ``\copyright`` written as ``©`` (pylatexenc drops it) so that the copyright
    line it starts is recognised and cut, and ``\href{url}{text}`` read as its text.
    """
    # A format's parser loads only for a dump of that format.
    from pylatexenc import latexwalker, macrospec
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    context.add_context_category(
        "papertopics-bibtex",
        prepend=True,
        macros=[
            MacroTextSpec("url", simplify_repl="%s"),
            MacroTextSpec("copyright", simplify_repl="©"),
            MacroTextSpec("href", simplify_repl="%(2)s"),
        ],
    )
    # pylatexenc's parser knows no arguments of \href, and its text writer then fails on the macro
    # ("list index out of range"): the parser is told \href takes two.
    arguments = latexwalker.get_default_latex_context_db()
    arguments.add_context_category(
        "papertopics-bibtex", prepend=True, macros=[macrospec.MacroSpec("href", "{{")]
    )

    class Decoder(LatexNodes2Text):
        def latex_to_text(self, latex, **parse_flags):
            return super().latex_to_text(latex, latex_context=arguments, **parse_flags)

    return Decoder(latex_context=context, math_mode="verbatim")


def _bibtex_problem(block) -> str:
    error = getattr(block, "error", None)
    reason = str(getattr(error, "abort_reason", "") or error or "").strip()
    return reason.split("\n", 1)[0].rstrip(".") if reason else "the entry does not parse"


def _bibtex_record(position: int, entry, decoder) -> Record:
    fields = {key.lower(): field.value for key, field in entry.fields_dict.items()}
    authors = fields.get("author") or fields.get("editor") or []
    if isinstance(authors, str):
        authors = [authors]
    venue = next((fields[name] for name in _VENUE_FIELDS if fields.get(name)), None)
    return paper_record(
        position,
        f"entry {entry.key!r} (line {entry.start_line + 1})",
        title=fields.get("title"),
        abstract=fields.get("abstract"),
        authors=[decoder.latex_to_text(name) for name in authors],
        year=fields.get("year") or fields.get("date"),
        venue=venue,
        keywords=split_list(fields.get("keywords") or fields.get("keyword"), ",;"),
        doi=fields.get("doi"),
        url=fields.get("url"),
        id=entry.key,
    )


# --- RIS ----------------------------------------------------------------------------------

_RIS_LINE = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")


def is_ris(text: str) -> bool:
    """A RIS export (EndNote, Zotero): the first line is a ``TY  - `` line."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    return first.startswith("TY  -")


def read_ris(source: Source, path: Path) -> RawDump:
    """A RIS file: records from ``TY  -`` to ``ER  -``, each read by rispy once its structure is
    checked (rispy drops a record with no ``ER`` without a word).
    """
    return export_dump(_ris_records(source, path), "ris")


def _ris_records(source: Source, path: Path) -> Iterator[Record]:
    """Each record of a RIS file as its ``ER`` is read: its lines (with those since the record
    before, which rispy skips up to the ``TY`` as it does in a whole file) given to rispy.
    """
    # A format's parser loads only for a dump of that format.
    import rispy

    parser = rispy.RisParser()
    count = 0
    open_at = None
    lines: list[str] = []
    for number, line in enumerate(bare_lines(source), start=1):
        lines.append(line)
        match = _RIS_LINE.match(line.rstrip())
        if match is None:
            continue
        if match.group(1) == "TY":
            if open_at is not None:
                raise PipelineInputError(
                    f"{path}: record {count + 1} (line {open_at}) has no ER before the next TY at line {number}; "
                    "the export is damaged. Export the records again."
                )
            open_at = number
        elif match.group(1) == "ER":
            if open_at is None:
                raise PipelineInputError(f"{path}: line {number}: ER with no record open (no TY before it).")
            yield _ris_record(count, f"record {count + 1} (line {open_at})", _ris_entry(parser, lines, path))
            count += 1
            open_at, lines = None, []
    if open_at is not None:
        raise PipelineInputError(
            f"{path}: record {count + 1} (line {open_at}) ends without ER: the file is cut short. "
            "Export the records again."
        )


def _ris_entry(parser, lines: list[str], path: Path) -> dict:
    """The one entry rispy reads from a record's lines."""
    try:
        entries = parser.parse_lines(iter(lines))
    except Exception as error:  # rispy's own errors name no file
        raise PipelineInputError(f"{path}: not a readable RIS file ({error}).") from None
    if len(entries) != 1:
        raise PipelineInputError(
            f"{path}: a record starting with TY gave {len(entries)} records to rispy; check the tags."
        )
    return entries[0]


def _first(entry: dict, *names: str):
    return next((entry[name] for name in names if entry.get(name)), None)


def _ris_record(position: int, location: str, entry: dict) -> Record:
    urls = entry.get("urls") or []
    return paper_record(
        position,
        location,
        title=_first(entry, "title", "primary_title", "translated_title"),
        abstract=_first(entry, "abstract", "notes_abstract"),
        authors=_first(entry, "authors", "first_authors") or [],
        year=_first(entry, "year", "publication_year", "date"),
        venue=_first(entry, "secondary_title", "journal_name", "alternate_title3", "alternate_title1"),
        keywords=entry.get("keywords") or [],
        doi=entry.get("doi"),
        url=urls[0] if urls else None,
        id=_first(entry, "id", "accession_number"),
    )


# --- OpenAlex works and the arXiv metadata snapshot -----------------------------------------


def _openalex_like(item) -> bool:
    return isinstance(item, dict) and "abstract_inverted_index" in item


def _arxiv_like(item) -> bool:
    return isinstance(item, dict) and "versions" in item and "abstract" in item and "categories" in item


# What of a JSON dump is looked at for the marks of a works export.
SNIFFED_CHARACTERS = 200_000


def json_export_reader(text: str, extension: str) -> Callable[[Source, Path], RawDump] | None:
    """The OpenAlex or arXiv-snapshot reader where the first record looks like one; else None.
    For ``.jsonl``, ``text`` may be the file's head: its first :data:`SNIFFED_CHARACTERS` and
    first line are all that is read of it.
    """
    sniffed = text[:SNIFFED_CHARACTERS]
    if "abstract_inverted_index" not in sniffed and '"versions"' not in sniffed:
        return None
    if extension == ".jsonl":
        first_line = next((line for line in text.split("\n") if line.strip()), "")
        try:
            first = json.loads(first_line)
        except json.JSONDecodeError:
            return None  # the plain reader names the line
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return None
        items = data.get("results") if isinstance(data, dict) else data
        first = items[0] if isinstance(items, list) and items else None
    if _openalex_like(first):
        return lambda source, path: _read_works(source, path, extension, "openalex", _openalex_record)
    if _arxiv_like(first):
        return lambda source, path: _read_works(source, path, extension, "arxiv", _arxiv_record)
    return None


def _read_works(source: Source, path: Path, extension: str, format_name: str, mapping) -> RawDump:
    """JSON Lines (read line by line), a JSON list or an API page (``{"meta": …, "results": […]}``)
    of works, mapped.
    """
    if extension == ".json":
        data = json.loads(source.text)  # it parsed when the reader was picked
        if isinstance(data, dict) and isinstance(data.get("results"), list):
            data = data["results"]  # an API page: its results are the works (beside meta, group_by)
        numbered = (
            (position, f"record {position + 1}", item) for position, item in enumerate(json_list(data, path))
        )
    else:
        numbered = ((position, f"line {number}", item) for position, number, item in json_lines(source, path))
    return export_dump(_works(numbered, path, mapping), format_name)


def _works(numbered: Iterable[tuple[int, str, object]], path: Path, mapping) -> Iterator[Record]:
    """Each work mapped; a value that is no JSON object is the record that says so."""
    for position, location, item in numbered:
        record = json_record(position, location, item)
        yield record if record.problem else mapping(position, location, item, path)


def abstract_from_inverted_index(index, where: str) -> str | None:
    """The abstract an OpenAlex inverted index (``{"word": [positions]}``) holds, words in order.

    ``where`` names the record in the error raised for an index that is not one: a value that is
    not a list of positions, a position given twice, or positions with gaps.
    """
    if index is None:
        return None
    if not isinstance(index, dict):
        raise PipelineInputError(
            f"{where}: abstract_inverted_index is {type(index).__name__}, not an object."
        )
    at: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(positions, list) or not all(isinstance(p, int) and p >= 0 for p in positions):
            raise PipelineInputError(
                f"{where}: abstract_inverted_index gives {word!r} the positions {json.dumps(positions)[:40]}, "
                "not a list of word positions; export the works again."
            )
        for position in positions:
            if position in at:
                raise PipelineInputError(
                    f"{where}: abstract_inverted_index puts both {at[position]!r} and {word!r} at position "
                    f"{position}; export the works again."
                )
            at[position] = word
    if at and len(at) != max(at) + 1:
        missing = next(p for p in range(max(at) + 1) if p not in at)
        raise PipelineInputError(
            f"{where}: abstract_inverted_index has no word at position {missing} (of 0–{max(at)}); "
            "the abstract cannot be rebuilt. Export the works again."
        )
    return " ".join(at[position] for position in sorted(at))


def _get(item: dict, *keys):
    for key in keys:
        item = item.get(key) if isinstance(item, dict) else None
    return item


def _openalex_record(position: int, location: str, work: dict, path: Path) -> Record:
    abstract = abstract_from_inverted_index(work.get("abstract_inverted_index"), f"{path}: {location}")
    authors = [_get(a, "author", "display_name") for a in work.get("authorships") or []]
    keywords = [k.get("display_name") if isinstance(k, dict) else k for k in work.get("keywords") or []]
    institutions, countries = openalex_affiliations(work.get("authorships"))
    return paper_record(
        position,
        location,
        title=work.get("title") or work.get("display_name"),
        abstract=abstract,
        authors=[name for name in authors if name],
        year=work.get("publication_year"),
        venue=_get(work, "primary_location", "source", "display_name"),
        keywords=[k for k in keywords if k],
        doi=work.get("doi"),
        url=work.get("doi") or _get(work, "primary_location", "landing_page_url"),
        id=work.get("id"),
        affiliations=institutions,
        countries=countries,
        citations=work.get("cited_by_count"),
    )


def _arxiv_record(position: int, location: str, paper: dict, path: Path) -> Record:
    parsed = paper.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        authors = [" ".join(part for part in (name[1:2] + name[:1] + name[2:3]) if part) for name in parsed]
    else:
        authors = re.split(r",\s*|\s+and\s+", paper.get("authors") or "")
    versions = paper.get("versions") or []
    created = _get(versions[0], "created") if versions and isinstance(versions[0], dict) else None
    identifier = paper.get("id")
    return paper_record(
        position,
        location,
        title=paper.get("title"),
        abstract=paper.get("abstract"),
        authors=authors,
        year=paper.get("year") or created or paper.get("update_date"),
        venue=paper.get("journal-ref"),
        categories=split_list(paper.get("categories"), " "),
        doi=paper.get("doi"),
        url=f"https://arxiv.org/abs/{identifier}" if identifier else None,
        id=identifier,
    )
