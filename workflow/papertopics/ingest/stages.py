"""The ingest stages, file to file: one dump parsed, the parsed dumps merged into the corpus.

Each function is what one Snakemake rule runs. Its parameters are named as the rule's inputs,
outputs and params (paths first), because the rule's script passes them by name; heavy libraries
are imported inside the functions, only when the stage that needs them runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging

from papertopics import storage
from papertopics.ingest.corpus import merge_dumps
from papertopics.ingest.parse import parse_dump
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
