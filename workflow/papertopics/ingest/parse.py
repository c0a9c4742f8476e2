"""Parse one abstract dump, of any supported format, into paper records and an accounting.

Every record read ends up in exactly one place: kept as a paper, counted as a duplicate
of an earlier paper in the same dump, or rejected with its reason (``empty``,
``too_short``, ``unparsable``). Publisher boilerplate that ends an abstract ("© 2018 Elsevier Ltd.
All rights reserved.") is cut first, each cut recorded; an export's placeholder for a missing
abstract ("[No abstract available]") is rejected as ``empty``. The formats themselves are read by
:mod:`papertopics.ingest.formats` (and the databases' exports by :mod:`papertopics.ingest.export_formats`).
"""

from __future__ import annotations

import functools
import logging
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from papertopics.errors import PipelineInputError
from papertopics.ingest.formats import RawDump
from papertopics.ingest.reception_fields import RECEPTION_FIELDS
from papertopics.ingest.streaming import read_records
from papertopics.text import (
    clean_for_keywords,
    cut_boilerplate,
    display_name,
    fix_extraction_artefacts,
    is_placeholder,
    paper_id,
    strip_html,
)

# Where a table or JSON dump has no column set in the config, the abstract is the first of
# these that a record has (names compared ignoring case, spaces, hyphens and underscores).
ABSTRACT_FIELDS = ("abstract", "summary", "abstract_text", "paper_abstract", "abstracts")
# Optional fields a paper record keeps under these names; the input's own ``id`` becomes
# ``input_id`` (the pipeline's id is a hash of the abstract, stable across formats).
KNOWN_FIELDS = {
    "title": ("title", "paper_title"),
    "authors": ("authors", "author", "author_names", "creators"),
    "url": ("url", "link", "paper_url", "pdf_url", "html_url"),
    "year": ("year", "publication_year"),
    "label": ("label",),
    "input_id": ("id", "paper_id"),
}
# The field that holds a paper's keywords, kept with its other fields (``extra``): the exports'
# ``keywords`` (papertopics.ingest.export_formats), or a JSON or table dump's of one of these names.
KEYWORD_FIELDS = ("keywords", "keyword", "author_keywords")
REJECTION_REASONS = ("empty", "too_short", "unparsable")
# A long parse says how far it is every this many records.
PROGRESS_EVERY = 100_000
_LOG = logging.getLogger(__name__)


# Asked for every known field of every record, of the same few names.
@functools.lru_cache(maxsize=1024)
def field_key(name: str) -> str:
    """A field name compared without case, spaces, hyphens or underscores."""
    return re.sub(r"[\s_-]+", "", name).casefold()


def find_field(names: list[str], candidates: tuple[str, ...]) -> str | None:
    """The first name in ``names`` matching the earliest possible candidate."""
    by_key = {}
    for name in names:
        by_key.setdefault(field_key(name), name)
    return next((by_key[field_key(c)] for c in candidates if field_key(c) in by_key), None)


# The summary lists this many of each kind of record (duplicates, rejections, boilerplate cuts)
# and says how many more there are; every one of them is in the dump's details file.
SUMMARY_EXAMPLES = 20
# What each kind is called in the summary (and in the details file, as its ``kind``).
DETAIL_KINDS = {
    "duplicates": "duplicate_records",
    "rejected": "rejections",
    "boilerplate": "boilerplate_cuts",
}


@dataclass
class ParsedDump:
    """A dump's kept papers, with the duplicates and rejected records and why.

    Of the duplicates, rejections and boilerplate cuts only the counts and the first
    :data:`SUMMARY_EXAMPLES` of each are held (a dump of a million copies of one paper costs what
    one paper costs); each, as it is found, also goes to ``details`` where one is given.
    """

    name: str
    title: str
    format: str
    encoding: str
    papers: list[dict]
    records_read: int
    duplicates: list[dict] = field(default_factory=list)
    rejected: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    abstract_field: str = "abstract"
    # Publisher boilerplate cut from abstracts: {position, location, cut} per record that had some.
    boilerplate: list[dict] = field(default_factory=list)
    # PDF-extraction artefacts removed from the texts: glyph codes, ligatures, papers touched.
    artefacts: dict = field(default_factory=lambda: {"glyph_codes": 0, "ligatures": 0, "papers": 0})
    # How many of each kind of record there are in all (the lists above hold the first ones).
    totals: Counter = field(default_factory=Counter)
    rejected_by_reason: Counter = field(default_factory=Counter)
    details: Callable[[dict], None] | None = None

    def note(self, kind: str, entry: dict) -> None:
        """Count a record of ``kind`` (``duplicates``, ``rejected``, ``boilerplate``), keeping it
        as an example while there are few, and pass it on to ``details``.
        """
        self.totals[kind] += 1
        if kind == "rejected":
            self.rejected_by_reason[entry["reason"]] += 1
        examples = getattr(self, kind)
        if len(examples) < SUMMARY_EXAMPLES:
            examples.append(entry)
        if self.details is not None:
            self.details({"kind": DETAIL_KINDS[kind], **entry})

    def summary(self) -> dict:
        """The counts of what was read, kept, duplicated and rejected (they must add up), with the
        first examples of each and how many more there are.
        """
        duplicates, rejected, cuts = (self.totals[kind] for kind in ("duplicates", "rejected", "boilerplate"))
        if self.records_read != len(self.papers) + duplicates + rejected:
            raise AssertionError(f"{self.name}: records read do not add up to kept + duplicates + rejected")
        by_reason = self.rejected_by_reason
        return {
            "dump": self.name,
            "title": self.title,
            "format": self.format,
            "encoding": self.encoding,
            "abstract_field": self.abstract_field,
            "records_read": self.records_read,
            "kept": len(self.papers),
            "duplicates": duplicates,
            "rejected": rejected,
            "rejected_by_reason": {
                reason: by_reason[reason] for reason in REJECTION_REASONS if by_reason[reason]
            },
            "placeholders": self.totals["placeholders"],
            "boilerplate_cut": cuts,
            "rejections": self.rejected,
            "duplicate_records": self.duplicates,
            "boilerplate_cuts": self.boilerplate,
            # How many records each list above leaves out (all of them are in the details file).
            "not_listed": {
                DETAIL_KINDS[kind]: self.totals[kind] - len(getattr(self, kind)) for kind in DETAIL_KINDS
            },
            "warnings": self.warnings,
            "extraction_artefacts": self.artefacts,
        }


def dump_name(path: str | Path) -> str:
    """A dump's name is its file name without the format extension(s)."""
    return Path(path).name.split(".", 1)[0]


def abstract_field_of(raw: RawDump, path: Path, abstract_column: str | None) -> str:
    """The field that holds the abstracts: ``abstract_column`` or the first usual name found."""
    if raw.columns is None:
        return "abstract"
    wanted = (abstract_column,) if abstract_column else ABSTRACT_FIELDS
    found = find_field(raw.columns, wanted)
    if found:
        return found
    kind = "column" if raw.format in ("csv", "tsv") else "field"
    seen = ", ".join(raw.columns[:30]) or "(none)"
    if next(iter(raw.records), None) is None:  # a streamed dump's first record read: the run stops here
        hint = f"no records at all ({kind}s: {seen}); a dump needs at least one abstract"
    elif abstract_column:
        hint = f"parse.abstract_column is {abstract_column!r} but no {kind} has that name ({kind}s: {seen})"
    else:
        hint = (
            f"no abstract {kind} ({kind}s: {seen}); name it 'abstract' or set parse.abstract_column "
            "in config.yaml to the one that holds the abstracts"
        )
    raise PipelineInputError(f"{path}: {hint}.")


def paper_fields(fields: dict[str, str], abstract_field: str) -> tuple[dict, dict]:
    """Split a record's fields into the known optional ones and the rest (``extra``)."""
    rest = {name: value for name, value in fields.items() if name != abstract_field}
    known = {}
    for key, candidates in {**KNOWN_FIELDS, **RECEPTION_FIELDS}.items():
        name = find_field(list(rest), candidates)
        if name is not None:
            known[key] = rest.pop(name)
    return known, rest


def parse_dump(
    path: str | Path,
    min_abstract_chars: int,
    abstract_column: str | None = None,
    details: Callable[[dict], None] | None = None,
) -> ParsedDump:
    """Read the dump at ``path`` and decide, for every record, keep, duplicate or reject; each
    duplicate, rejection and boilerplate cut is also passed to ``details`` where given.
    """
    path = Path(path)
    raw = read_records(path)
    name = dump_name(path)
    abstract_field = abstract_field_of(raw, path, abstract_column)
    parsed = ParsedDump(
        name=name,
        title=raw.title or name,
        format=raw.format,
        encoding=raw.encoding,
        papers=[],
        records_read=0,
        warnings=raw.warnings,
        abstract_field=abstract_field,
        details=details,
    )
    first_seen: dict[str, str] = {}
    # Kept papers by the abstract as written (the same string objects the papers hold where nothing
    # was cut): a repetitive dump's copies are told duplicates at the cost of a lookup.
    kept_as: dict[str, tuple[str, str]] = {}
    separator = raw.authors_separator
    for record in raw.records:
        parsed.records_read += 1
        if parsed.records_read % PROGRESS_EVERY == 0:
            _LOG.info("%s: %d records read, %d papers kept", path, parsed.records_read, len(parsed.papers))
        where = {"position": record.position, "location": record.location}
        if record.problem:
            parsed.note("rejected", {**where, "reason": "unparsable", "detail": record.problem})
            continue
        written = record.fields.get(abstract_field, "")
        if written in kept_as:  # a kept paper's very text: decided as it was, without the work again
            identifier, cut = kept_as[written]
            if cut:
                parsed.note("boilerplate", {**where, "cut": cut})
            parsed.note("duplicates", {**where, "id": identifier, "same_as": first_seen[identifier]})
            continue
        abstract, cut = cut_boilerplate(written)
        if cut:
            parsed.note("boilerplate", {**where, "cut": cut})
        text, codes, ligatures = fix_extraction_artefacts(clean_for_keywords(abstract))
        if not text:
            parsed.note("rejected", {**where, "reason": "empty", "detail": f"no text in {abstract_field!r}"})
            continue
        if is_placeholder(text):
            detail = f"{text!r} is an export's placeholder, not an abstract"
            parsed.totals["placeholders"] += 1
            parsed.note("rejected", {**where, "reason": "empty", "detail": detail, "placeholder": True})
            continue
        length = len(strip_html(abstract))
        if length < min_abstract_chars:
            detail = f"{length} characters, fewer than parse.min_abstract_chars = {min_abstract_chars}"
            parsed.note("rejected", {**where, "reason": "too_short", "detail": detail})
            continue
        identifier = paper_id(abstract)
        if identifier in first_seen:
            parsed.note("duplicates", {**where, "id": identifier, "same_as": first_seen[identifier]})
            continue
        first_seen[identifier] = record.location
        kept_as[written] = (identifier, cut)
        if codes or ligatures:
            parsed.artefacts["glyph_codes"] += codes
            parsed.artefacts["ligatures"] += ligatures
            parsed.artefacts["papers"] += 1
        parsed.papers.append(_paper(parsed, record, identifier, abstract, text, separator))
    if not parsed.papers:
        raise PipelineInputError(f"{path}: {_no_abstracts_hint(parsed, raw)}")
    return parsed


def _paper(
    parsed: ParsedDump, record, identifier: str, abstract: str, text: str, separator: str | None
) -> dict:
    """A kept record as a paper: its id, dump, place, display name, abstract, text and fields."""
    known, extra = paper_fields(record.fields, parsed.abstract_field)
    return {
        "id": identifier,
        "dump": parsed.name,
        "dump_title": parsed.title,
        "position": record.position,
        "location": record.location,
        "display_name": display_name(
            text, title=known.get("title"), authors=known.get("authors"), authors_separator=separator
        ),
        "abstract": abstract,
        "text": text,
        **known,
        "extra": extra,
    }


def input_columns(papers: list[dict], reserved: set[str]) -> dict[str, list[str]]:
    """Every input field of the papers as table columns: the known optional fields always
    (empty where a dump lacks them), the reception fields where some paper has them
    (``papertopics.ingest.reception_fields``), then the other fields in order of first appearance,
    renamed ``input_<name>`` where a name is one of the ``reserved`` pipeline columns.
    """
    columns = {key: [paper.get(key, "") for paper in papers] for key in KNOWN_FIELDS}
    for key in RECEPTION_FIELDS:
        if any(key in paper for paper in papers):
            columns[key] = [paper.get(key, "") for paper in papers]
    taken = reserved | set(columns)
    for name in dict.fromkeys(name for paper in papers for name in paper.get("extra", {})):
        column = f"input_{name}" if name in taken else name
        columns[column] = [paper.get("extra", {}).get(name, "") for paper in papers]
        taken.add(column)
    return columns


def paper_keywords(paper: dict) -> list[str]:
    """A paper's keywords as its input gives them (``KEYWORD_FIELDS``): a list, joined by "; " when
    read (``papertopics.ingest.formats.field_text``), or a table's cell of keywords separated by
    ";" or, where it has no ";", by ","; none where it has no such field.
    """
    fields = paper.get("extra", {})
    name = find_field(list(fields), KEYWORD_FIELDS)
    text = fields[name] if name else ""
    separator = ";" if ";" in text else ","
    return [keyword.strip() for keyword in text.split(separator) if keyword.strip()]


def _no_abstracts_hint(parsed: ParsedDump, raw: RawDump) -> str:
    if parsed.rejected:
        reasons = parsed.rejected_by_reason
        first = parsed.rejected[0]
        return (
            f"no abstracts kept: all {parsed.records_read} records were rejected "
            f"({', '.join(f'{n} {reason}' for reason, n in reasons.items())}; first at {first['location']}: "
            f"{first['detail']}). Fix those records, or lower parse.min_abstract_chars if they are real abstracts."
        )
    if raw.format in ("txt", "md"):
        return (
            "no abstracts found after the title line. The first line is the dump's title; put one abstract "
            "per paragraph after it, paragraphs separated by blank lines."
        )
    return "no records found; a dump needs at least one abstract."
