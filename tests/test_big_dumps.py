"""Big, repetitive dumps cost what their distinct papers cost: the parse summary stays small (counts
and the first examples, every record in the details file beside it), and embedding is planned
from the distinct papers kept, not from the records in the file.
"""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

import pytest
from conftest import IJCAI, make_workdir, planned_jobs, require_corpus
from papertopics import storage
from papertopics.embed.sharding import planned_shards
from papertopics.ingest import stages as ingest_stages
from papertopics.ingest.parse import SUMMARY_EXAMPLES
from papertopics.text import paper_id

PARSE_KNOBS = {"min_abstract_chars": 20, "abstract_column": None}


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
