"""The ingest stages, file to file: one dump parsed, the parsed dumps merged into the corpus.

Each function is what one Snakemake rule runs. Its parameters are named as the rule's inputs,
outputs and params (paths first), because the rule's script passes them by name; heavy libraries
are imported inside the functions, only when the stage that needs them runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from collections.abc import Iterable
from pathlib import Path

from papertopics import storage
from papertopics.ingest.corpus import identifier_conflict_note, merge_dumps
from papertopics.ingest.parse import field_key, parse_dump
from papertopics.ingest.reception_fields import RECEPTION_FIELDS
from papertopics.settings import ParseSettings

_LOG = logging.getLogger(__name__)


def parse(dump: str, papers: str, summary: str, knobs: dict, details: str | None = None) -> None:
    """Read one dump file into its papers (JSON Lines), a summary of what was kept and rejected
    (counts, and the first few of each kind) and, where ``details`` is given, every duplicate,
    rejection and boilerplate cut there (gzipped JSON Lines); ``knobs``:
    ``papertopics.settings.ParseSettings``'s fields.
    """
    settings = ParseSettings(**knobs)
    with contextlib.ExitStack() as stack:
        write_detail = stack.enter_context(storage.gzip_lines_writer(details)) if details else None
        parsed = parse_dump(
            dump,
            min_abstract_chars=settings.min_abstract_chars,
            abstract_column=settings.abstract_column,
            details=write_detail,
        )
    with open(dump, "rb") as stream:
        sha256 = hashlib.file_digest(stream, "sha256").hexdigest()
    record = {**parsed.summary(), "source": str(dump), "sha256": sha256}
    record["reception_fields"] = list(settings.reception_fields())
    record["text_digest"] = text_digest(parsed.papers, record)
    for warning in parsed.warnings:
        _LOG.warning("%s", warning)
    if parsed.artefacts["papers"]:
        _LOG.info(
            "%s: PDF-extraction artefacts removed from %d papers' text: %d glyph codes like (cid:173), "
            "%d ligatures like \ufb01 folded to letters",
            dump,
            parsed.artefacts["papers"],
            parsed.artefacts["glyph_codes"],
            parsed.artefacts["ligatures"],
        )
    for rejection in parsed.rejected:
        _LOG.info(
            "%s %s: rejected (%s): %s",
            dump,
            rejection["location"],
            rejection["reason"],
            rejection["detail"],
        )
    for cut in parsed.boilerplate:
        _LOG.info("%s %s: publisher boilerplate cut from the abstract: %r", dump, cut["location"], cut["cut"])
    for kind, more in record["not_listed"].items():
        if more:
            _LOG.info(
                "%s: %d more %s than listed here%s",
                dump,
                more,
                kind.replace("_", " "),
                f", each in {details}" if details else "",
            )
    storage.write_jsonl(papers, parsed.papers)
    storage.write_json(summary, record)
    _LOG.info(
        "%s (%s, %s): %d records read = %d kept + %d duplicates + %d rejected %s%s%s",
        dump,
        record["format"],
        record["encoding"],
        record["records_read"],
        record["kept"],
        record["duplicates"],
        record["rejected"],
        record["rejected_by_reason"] or "",
        f"; {record['placeholders']} placeholder abstracts rejected as empty"
        if record["placeholders"]
        else "",
        f"; publisher boilerplate cut from {record['boilerplate_cut']} abstracts"
        if record["boilerplate_cut"]
        else "",
    )


# The summary's fields that are not part of the text part: the file's hash changes with any edit,
# and the fields config names as the decision, ratings or citations change the text part only where
# a paper has them.
_NOT_TEXT = ("sha256", "reception_fields", "text_digest")


def text_summary(summary: dict) -> dict:
    """A parse summary as the stages before reception read it: without the dump file's hash."""
    return {key: value for key, value in summary.items() if key not in _NOT_TEXT}


# Every name an export gives a reception field, compared as parsing compares names: a record keeps
# those it did not read as its decision, ratings or citations (an OpenReview mean "rating" beside
# the "ratings" list) among its other fields.
_RECEPTION_KEYS = frozenset(field_key(name) for names in RECEPTION_FIELDS.values() for name in names)


def without_reception(paper: dict, keys: frozenset[str]) -> dict:
    """``paper`` without what says how it was received: its decision, ratings and citations, and
    its other fields whose names (``field_key``) are among ``keys`` (``_reception_keys``). The part
    the stages before the reception stage read.
    """
    kept = {key: value for key, value in paper.items() if key not in RECEPTION_FIELDS}
    extra = paper.get("extra") or {}
    dropped = [name for name in extra if field_key(name) in keys]
    if dropped:
        kept["extra"] = {name: value for name, value in extra.items() if name not in dropped}
    return kept


def _reception_keys(summary: dict) -> frozenset[str]:
    """The field names a paper's text part leaves out: every name an export gives a reception
    field, and those config gives (the parse summary's ``reception_fields``).
    """
    return _RECEPTION_KEYS | {field_key(name) for name in summary["reception_fields"]}


def _json_line(record: dict) -> bytes:
    return (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def text_digest(papers: Iterable[dict], summary: dict) -> str:
    """The digest of a parsed dump's text part (its papers ``without_reception`` of the fields the
    ``summary`` names, and its ``text_summary``): it names the text part's files, so that a dump
    edited only in how its papers were received gives the same files and reruns nothing before
    the reception stage.
    """
    keys = _reception_keys(summary)
    digest = hashlib.sha256(_json_line(text_summary(summary)))
    for paper in papers:
        digest.update(_json_line(without_reception(paper, keys)))
    return digest.hexdigest()[:16]


def text_part(papers: str, summary: str, text_papers: str, text_summary_file: str) -> None:
    """Write a parsed dump's text part (``text_digest``) into the files its digest names, and
    remove the files of the dump's earlier text parts beside them. The fields to leave out are
    the parse summary's, so that this job has no knob of its own to rerun it.
    """
    record = storage.read_json(summary)
    records = storage.read_jsonl(papers)
    digest = text_digest(records, record)
    if Path(text_papers).stem != digest or record["text_digest"] != digest:
        raise RuntimeError(
            f"{papers}: its text part's digest is {digest}, not {record['text_digest']} as parsing "
            f"recorded, nor {Path(text_papers).stem}: parse it again (--forcerun parse)."
        )
    keys = _reception_keys(record)
    storage.write_jsonl(text_papers, (without_reception(paper, keys) for paper in records))
    storage.write_json(text_summary_file, text_summary(record))
    for earlier in Path(text_papers).parent.iterdir():
        if not earlier.name.startswith(digest):
            earlier.unlink()


def corpus(parsed: list[str], summaries: list[str], papers: str, summary: str) -> None:
    """Merge the parsed dumps (in order) into the corpus: one record per paper, with the dumps it is in."""
    dumps = [
        (storage.read_json(dump_summary), storage.read_jsonl(dump_papers))
        for dump_papers, dump_summary in zip(parsed, summaries, strict=True)
    ]
    merged, record = merge_dumps(dumps)
    storage.write_jsonl(papers, merged)
    storage.write_json(summary, record)
    _LOG.info("corpus: %d papers from %d dumps", record["papers"], len(dumps))
    conflicts = identifier_conflict_note(record)
    if conflicts:
        _LOG.warning("corpus: %s", conflicts)
