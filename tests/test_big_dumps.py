"""Big, repetitive dumps cost what their distinct papers cost: a dump of a line- or record-oriented
format is parsed as a stream (the same records as read whole, in memory that does not grow with
the file, progress in the log), the parse summary stays small (counts and the first examples, every record in the details file
beside it), and embedding is planned from the distinct records, not from all of them.
"""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import IJCAI, PARSE_KNOBS, REPO, SEEDS, make_workdir, planned_jobs, require_corpus
from papertopics import storage
from papertopics.embed.sharding import planned_shards
from papertopics.errors import PipelineInputError
from papertopics.ingest import parse as parse_module
from papertopics.ingest import stages as ingest_stages
from papertopics.ingest.parse import SUMMARY_EXAMPLES
from papertopics.ingest.readers import read_dump
from papertopics.ingest.streaming import read_records
from papertopics.text import paper_id

# A fresh interpreter that imports the package from this checkout.
CHILD_ENV = {**os.environ, "PYTHONPATH": str(REPO / "workflow")}


@pytest.fixture(scope="module")
def ijcai_abstracts() -> list[str]:
    require_corpus(IJCAI.name)
    with gzip.open(IJCAI, "rt", encoding="utf-8") as lines:
        return [json.loads(line)["abstract"] for _, line in zip(range(5), lines, strict=False)]


def repetitive_dump(folder: Path, abstracts: list[str], copies: int, too_short: int) -> Path:
    """A plain-text dump: ``copies`` rounds of the abstracts, then ``too_short`` short paragraphs."""
    paragraphs = abstracts * copies + [f"Too short {index}." for index in range(too_short)]
    path = folder / "exports.txt"
    path.write_text("Merged exports\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return path


def test_summary_lists_the_first_examples_and_the_details_file_every_record(
    tmp_path, ijcai_abstracts, caplog
):
    caplog.set_level(logging.INFO)
    dump = repetitive_dump(tmp_path, ijcai_abstracts, copies=300, too_short=45)
    paths = {name: tmp_path / name for name in ("papers.jsonl", "summary.json", "details.jsonl.gz")}
    ingest_stages.parse(
        str(dump),
        str(paths["papers.jsonl"]),
        str(paths["summary.json"]),
        PARSE_KNOBS,
        str(paths["details.jsonl.gz"]),
    )
    summary = storage.read_json(paths["summary.json"])
    duplicates = 5 * 299
    assert (summary["records_read"], summary["kept"], summary["duplicates"], summary["rejected"]) == (
        5 * 300 + 45,
        5,
        duplicates,
        45,
    )
    assert summary["rejected_by_reason"] == {"too_short": 45}
    assert len(summary["duplicate_records"]) == len(summary["rejections"]) == SUMMARY_EXAMPLES
    assert summary["not_listed"] == {
        "duplicate_records": duplicates - SUMMARY_EXAMPLES,
        "rejections": 45 - SUMMARY_EXAMPLES,
        "boilerplate_cuts": 0,
    }
    # The first examples, in the dump's order: the second round's copies of the first round.
    first = summary["duplicate_records"][0]
    assert (first["id"], first["location"], first["same_as"]) == (
        paper_id(ijcai_abstracts[0]),
        "line 13",
        "line 3",
    )
    assert paths["summary.json"].stat().st_size < 20_000
    with gzip.open(paths["details.jsonl.gz"], "rt", encoding="utf-8") as lines:
        details = [json.loads(line) for line in lines]
    kinds = [detail["kind"] for detail in details]
    assert kinds.count("duplicate_records") == duplicates and kinds.count("rejections") == 45
    listed = [
        {k: v for k, v in d.items() if k != "kind"} for d in details if d["kind"] == "duplicate_records"
    ]
    assert listed[:SUMMARY_EXAMPLES] == summary["duplicate_records"]
    # The log names the first rejections and says how many more there are, and where.
    assert caplog.text.count("rejected (too_short)") == SUMMARY_EXAMPLES
    assert (
        f"{45 - SUMMARY_EXAMPLES} more rejections than listed here, each in {paths['details.jsonl.gz']}"
        in caplog.text
    )


def test_details_file_is_the_same_bytes_for_the_same_dump(tmp_path, ijcai_abstracts):
    dump = repetitive_dump(tmp_path, ijcai_abstracts, copies=3, too_short=2)
    written = []
    for run in ("a", "b"):
        details = tmp_path / f"{run}.jsonl.gz"
        ingest_stages.parse(
            str(dump),
            str(tmp_path / f"{run}.jsonl"),
            str(tmp_path / f"{run}.json"),
            PARSE_KNOBS,
            str(details),
        )
        written.append(details.read_bytes())
    assert written[0] == written[1]


def test_embedding_is_planned_from_the_distinct_records(tmp_path, ijcai_abstracts):
    dump = repetitive_dump(tmp_path, ijcai_abstracts, copies=300, too_short=0)
    # 1,500 records of 5 abstracts: one job at a shard size of 10 (counted record by record, 150).
    assert planned_shards(dump, shard_size=10) == 1
    assert planned_shards(dump, shard_size=2) == 3


def test_a_big_repetitive_dump_is_one_embed_job_in_the_workflow(tmp_path, ijcai_abstracts):
    dumps = {
        "merged.txt": "Merged exports\n\n" + "\n\n".join(ijcai_abstracts * 400) + "\n",
        "other.txt": "Other\n\n" + "\n\n".join(ijcai_abstracts[:2]) + "\n",
    }
    workdir = make_workdir(tmp_path, dumps, embedding={"backend": "onnx", "shard_size": 100})
    plan = planned_jobs(workdir)
    assert (plan["parse"], plan["embed"]) == (2, 1) and "embed_shard" not in plan


def plain_text_variants(folder: Path, abstracts: list[str]) -> list[Path]:
    """Plain-text dumps that read_dump reads in each of its ways: a title block with an abstract under
    it, CRLF and CR line ends, a byte-order mark, blank lines first, gzip, control characters.
    """
    body = "\n\n".join(abstracts)
    variants = {
        "seedlike.txt": f"Title\n\n{body}\n".encode(),
        "title_block.txt": f"\n\n  \nTitle\n{abstracts[0]}\nwrapped line\n\n\n{body}".encode(),
        "crlf.txt": f"Title\r\n\r\n{body}\r\n".replace("\n\n", "\r\n\r\n").encode(),
        "cr.txt": f"Title\r\r{abstracts[1]}\r\r{abstracts[2]}\r".encode(),
        "bom.txt": b"\xef\xbb\xbf" + f"Title\n\n{body}\n".encode(),
        "controls.txt": f"Title\n\n{abstracts[0]}\x0b{abstracts[1]}\u200b\n\n{abstracts[2]}".encode(),
        "cp1252.txt": f"Title\n\n{abstracts[0]} caf\u00e9\n".encode("cp1252"),
        "compressed.txt.gz": gzip.compress(f"Title\n\n{body}\n".encode(), mtime=0),
    }
    for name, content in variants.items():
        (folder / name).write_bytes(content)
    return [folder / name for name in variants]


def test_streamed_records_are_those_read_dump_reads(tmp_path, ijcai_abstracts):
    for path in [*plain_text_variants(tmp_path, ijcai_abstracts), *SEEDS]:
        streamed, whole = read_records(path), read_dump(path)
        assert (streamed.title, streamed.format, streamed.encoding, streamed.warnings) == (
            whole.title,
            whole.format,
            whole.encoding,
            whole.warnings,
        ), path.name
        assert list(streamed.records) == whole.records, path.name
    # A clean UTF-8 plain-text dump is streamed; one in cp1252 is read whole (with read_dump's warning).
    assert not isinstance(read_records(tmp_path / "seedlike.txt").records, list)
    assert isinstance(read_records(tmp_path / "cp1252.txt").records, list)


def test_a_long_parse_says_how_far_it_is(tmp_path, ijcai_abstracts, caplog, monkeypatch):
    monkeypatch.setattr(parse_module, "PROGRESS_EVERY", 100)
    caplog.set_level(logging.INFO)
    dump = repetitive_dump(tmp_path, ijcai_abstracts, copies=50, too_short=0)
    parse_module.parse_dump(dump, min_abstract_chars=20)
    assert f"{dump}: 200 records read, 5 papers kept" in caplog.text
    assert caplog.text.count("records read") == 2


def repetitive_table_and_lines(folder: Path, abstracts: list[str], copies: int) -> list[Path]:
    """The same repetitive dump as a CSV table and as JSON Lines (a title and an abstract a record)."""
    rows = [{"title": f"Paper {index}", "abstract": a} for index, a in enumerate(abstracts)] * copies
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=["title", "abstract"])
    writer.writeheader()
    writer.writerows(rows)
    (folder / "exports.csv").write_text(table.getvalue(), encoding="utf-8")
    lines = "".join(json.dumps(row) + "\n" for row in rows)
    (folder / "exports.jsonl").write_text(lines, encoding="utf-8")
    return [folder / "exports.csv", folder / "exports.jsonl"]


@pytest.mark.parametrize("kind", ["txt", "csv", "jsonl"])
def test_parse_memory_does_not_grow_with_a_repetitive_dump(tmp_path, ijcai_abstracts, kind):
    # 20 MB of 5 abstracts: read whole, the file's text, lines and records took about 70 MB more.
    if kind == "txt":
        dump = repetitive_dump(tmp_path, ijcai_abstracts, copies=3000, too_short=0)
    else:
        dump = tmp_path / f"exports.{kind}"
        repetitive_table_and_lines(tmp_path, ijcai_abstracts, copies=3000)
    assert dump.stat().st_size > 15_000_000
    code = (
        "import resource\n"
        "from papertopics.ingest.parse import parse_dump\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        f"parsed = parse_dump({str(dump)!r}, min_abstract_chars=20)\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(len(parsed.papers), parsed.records_read, (after - before) // 1024)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=CHILD_ENV
    )
    kept, read, grown_mib = map(int, result.stdout.split())
    assert (kept, read) == (5, 5 * 3000)
    assert grown_mib < 10


def test_copies_of_a_kept_abstract_are_decided_as_it_was(tmp_path, ijcai_abstracts):
    copyrighted = ijcai_abstracts[0] + " © 2020 Elsevier B.V. All rights reserved."
    dump = tmp_path / "copies.txt"
    dump.write_text("Copies\n\n" + "\n\n".join([copyrighted] * 3) + "\n", encoding="utf-8")
    parsed = parse_module.parse_dump(dump, min_abstract_chars=20)
    assert [paper["abstract"] for paper in parsed.papers] == [ijcai_abstracts[0]]
    assert [cut["location"] for cut in parsed.boilerplate] == ["line 3", "line 5", "line 7"]
    assert [(d["id"], d["same_as"]) for d in parsed.duplicates] == [(parsed.papers[0]["id"], "line 3")] * 2


def broken_at_the_end(folder: Path, abstracts: list[str]) -> dict[str, Path]:
    """A dump of each format read line by line, 2,000 records and then one its reader stops at."""
    records = [(f"Paper {index}", abstracts[index % len(abstracts)]) for index in range(2000)]
    ris = "".join(f"TY  - JOUR\nTI  - {t}\nAB  - {a}\nER  - \n\n" for t, a in records)
    medline = "".join(f"PMID- {i}\nTI  - {t}\nAB  - {a}\n\n" for i, (t, a) in enumerate(records))
    wos = "".join(f"PT J\nTI {t}\nAB {a}\nER\n\n" for t, a in records)
    table = "".join(f'"{t}","{a}"\n' for t, a in records)
    works = "".join(
        json.dumps({"title": t, "abstract_inverted_index": {w: [i] for i, w in enumerate(a.split()[:1])}})
        + "\n"
        for t, a in records
    )
    texts = {
        "dump.ris": ris + "TY  - JOUR\nAB  - cut short\n",
        "dump.nbib": medline + "PMID- 0\nnot a tag\n",
        "savedrecs.txt": "FN Clarivate Analytics Web of Science\nVR 1.0\n" + wos + "PT J\nAB cut short\n",
        "dump.csv": "title,abstract\n" + table + '"never closed,\n',
        "dump.tsv": "title\tabstract\n" + table.replace('","', "\t").replace('"', "") + 'x\t"never closed\n',
        "works.jsonl": works + "{not json\n",
    }
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return {name: folder / name for name in texts}


def test_each_line_format_is_read_as_its_records_are_asked_for(tmp_path, ijcai_abstracts):
    # Read whole, each dump stops at its broken last record before giving any; streamed, the first
    # records come without the rest being read.
    for name, path in broken_at_the_end(tmp_path, ijcai_abstracts).items():
        dump = read_records(path)
        first = list(itertools.islice(dump.records, 3))
        assert [record.position for record in first] == [0, 1, 2], name
        assert all(record.fields.get("title") == f"Paper {n}" for n, record in enumerate(first)), name
        with pytest.raises(PipelineInputError):
            list(dump.records)
        with pytest.raises(PipelineInputError):
            read_dump(path)
