"""Parsing's output is pinned on real dumps, so that speed work on the parser cannot change it.

The digests were computed by the parser before its speed-ups (regular expressions run only
where their first character occurs, cached field names, one HTML pass per abstract); a
deliberate change to what parsing produces updates them, naming the change in its commit.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path

import pytest
from conftest import SEEDS, require_corpus
from papertopics.ingest.parse import parse_dump
from papertopics.text import collapse_whitespace, is_blank, normalise_text

# Records of each corpus in the slice parsed here (the first ones of the file).
CORPUS_SLICE = 2000
PINNED_FIELDS = ("id", "text", "display_name")

DIGESTS = {
    "000_5d7e815e42406a37.txt": {
        "id": "be59dc32d9e7d4fb",
        "text": "516dd964dd28a4f2",
        "display_name": "f16f5020114fbc7c",
        "all": "14d7390b634365bb",
        "title": "c37caafd89123662",
    },
    "002_085cfd287f8e6010.txt": {
        "id": "eab303db0c6f2a7f",
        "text": "968cb5f596930633",
        "display_name": "420f25b5996a85da",
        "all": "2ffc7d31ad0fffd7",
        "title": "df8ed64d70da1e39",
    },
    "arxiv_cs_daily_2025_2026.jsonl": {
        "id": "aee2f866c53ada22",
        "text": "dbf66b73416d5f39",
        "display_name": "4646cf09fbb19063",
        "all": "77c57a253c592e7e",
        "title": "1ca1e112121b5124",
    },
    "arxiv_cs_daily_2025_2026.txt": {
        "id": "aee2f866c53ada22",
        "text": "dbf66b73416d5f39",
        "display_name": "834912fa2db0dfc7",
        "all": "66d1296206853cd3",
        "title": "1ca1e112121b5124",
    },
    "ijcai_2020_2024_areas.jsonl": {
        "id": "4ad1483f1d17b443",
        "text": "eabfb3c3e3ba3b55",
        "display_name": "2c0e571c43c7a095",
        "all": "b2269e5e51390879",
        "title": "a407d136b11d9477",
    },
    "ijcai_2020_2024_areas.txt": {
        "id": "4ad1483f1d17b443",
        "text": "eabfb3c3e3ba3b55",
        "display_name": "489759e8d571016b",
        "all": "8f9fcad64f3e767d",
        "title": "a407d136b11d9477",
    },
}


def digests(path: Path) -> dict[str, str]:
    """Short digests of the fields most worth naming in a failure, and of everything parsed."""
    parsed = parse_dump(path, min_abstract_chars=20)

    def digest(value) -> str:
        return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]

    pinned = {field: digest([paper.get(field) for paper in parsed.papers]) for field in PINNED_FIELDS}
    everything = {"papers": parsed.papers, "duplicates": parsed.duplicates, "rejected": parsed.rejected}
    return {**pinned, "all": digest(everything), "title": digest(parsed.title)}


def corpus_slice_dumps(corpus: Path, folder: Path) -> list[Path]:
    """The corpus's first records as a JSON Lines dump (titles and all) and as a .txt dump (abstracts only)."""
    with gzip.open(corpus, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for _, line in zip(range(CORPUS_SLICE), lines, strict=False)]
    stem = corpus.name.split(".")[0]
    as_jsonl = folder / f"{stem}.jsonl"
    as_jsonl.write_text(
        "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8"
    )
    as_txt = folder / f"{stem}.txt"
    as_txt.write_text(
        f"{stem}\n\n" + "\n\n".join(record["abstract"] for record in records) + "\n", encoding="utf-8"
    )
    return [as_jsonl, as_txt]


@pytest.mark.parametrize("seed", SEEDS, ids=lambda path: path.name)
def test_seed_dumps_parse_as_before(seed):
    assert digests(seed) == DIGESTS[seed.name]


@pytest.mark.parametrize("corpus", ["arxiv_cs_daily_2025_2026.jsonl.gz", "ijcai_2020_2024_areas.jsonl.gz"])
def test_corpus_slices_parse_as_before(corpus, tmp_path):
    for dump in corpus_slice_dumps(require_corpus(corpus), tmp_path):
        assert digests(dump) == DIGESTS[dump.name], dump.name


def test_the_unicode_facts_the_fast_paths_rely_on():
    characters = [chr(code) for code in range(sys.maxunicode + 1)]
    # collapse_whitespace: printable text has no whitespace but the plain space.
    assert [c for c in characters if c.isspace() and c.isprintable()] == [" "]
    # is_blank finds exactly the characters normalise_text drops or turns into spaces, and
    # normalise_text may skip its substitutions on printable text: all of those but the space are non-printable.
    blank = [c for c in characters if is_blank(c)]
    assert blank == [c for c in characters if normalise_text(c) == ""]
    assert [c for c in blank if c.isprintable()] == [" "]


def test_collapse_whitespace_keeps_collapsed_text_and_collapses_the_rest():
    assert collapse_whitespace("a b c") == "a b c"
    assert collapse_whitespace(" a  b\u00a0\u3000c\n") == "a b c"
    assert collapse_whitespace("a\u2028b") == "a b"
