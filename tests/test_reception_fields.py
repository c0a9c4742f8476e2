"""Each export format carries a paper's decision, reviewers' ratings and citations through to the
columns papers.csv gets (``input_columns``) and on to the values the reception stage reads:
real-shaped records of Web of Science (plain text and tab-delimited, ``TC``), Scopus (``Cited
by``), OpenAlex (``cited_by_count``), OpenReview-style JSON Lines and JSON (decision or status,
ratings or rating), and a plain CSV; a malformed value is counted as missing and said once, a
column none of whose values can be read stops the run with one line.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import PARSE_KNOBS, require_corpus
from papertopics.errors import PipelineInputError
from papertopics.ingest import stages as ingest_stages
from papertopics.ingest.parse import input_columns, parse_dump
from papertopics.reception.values import paper_ratings, read_values

SAMPLES = Path(__file__).parent / "data" / "exports"
ABSTRACT = (
    "We study how reviewers rate papers on robot learning and report a benchmark of forty tasks "
    "with a policy that transfers between simulated and real arms without fine-tuning."
)


def columns_of(path: Path) -> dict[str, list[str]]:
    """The columns papers.csv gets from the dump at ``path``, with dump and location."""
    papers = parse_dump(path, 20).papers
    return {
        "dump": [p["dump"] for p in papers],
        "location": [p["location"] for p in papers],
        **input_columns(papers, reserved={"id", "dump", "location"}),
    }


def values_of(path: Path):
    import pandas as pd

    return read_values(pd.DataFrame(columns_of(path)), "decision", "ratings", "citations")


def test_wos_plain_text_times_cited(tmp_path):
    text = (SAMPLES / "wos_savedrecs.txt").read_text(encoding="utf-8")
    # Times cited as Web of Science writes it: TC (its core collection), Z9 (all databases).
    text = text.replace("PY 2019\n", "PY 2019\nTC 37\nZ9 41\n").replace("PY 2020\n", "PY 2020\nTC 0\nZ9 0\n")
    (tmp_path / "savedrecs.txt").write_text(text, encoding="utf-8")
    columns = columns_of(tmp_path / "savedrecs.txt")
    assert columns["citations"][:3] == ["37", "0", ""]
    assert "decision" not in columns and "ratings" not in columns  # absent fields are simply absent
    values = values_of(tmp_path / "savedrecs.txt")
    assert values.citations[:2].tolist() == [37.0, 0.0] and np.isnan(values.citations[2])


def test_wos_tab_delimited_times_cited(tmp_path):
    raw = (SAMPLES / "wos_tab_delimited.txt").read_bytes()
    lines = raw[2:].decode("utf-16-le").split("\n")
    lines[0] = lines[0].rstrip("\r\t") + "\tTC\t"  # each line ends in a tab, as Web of Science's do
    lines[1:4] = [line.rstrip("\r\t") + f"\t{n}\t" for line, n in zip(lines[1:4], (12, 3, 0), strict=True)]
    (tmp_path / "tab.txt").write_text("\n".join(lines), encoding="utf-8")
    assert columns_of(tmp_path / "tab.txt")["citations"] == ["12", "3", "0"]


def test_scopus_cited_by(tmp_path):
    import csv
    import io

    rows = list(csv.reader(io.StringIO((SAMPLES / "scopus.csv").read_text(encoding="utf-8-sig"))))
    rows[0].append("Cited by")
    for row, count in zip(rows[1:], ("25", "", "4", "1"), strict=True):
        row.append(count)
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    (tmp_path / "scopus.csv").write_text(buffer.getvalue(), encoding="utf-8")
    columns = columns_of(tmp_path / "scopus.csv")
    assert columns["citations"][:2] == ["25", ""]  # Scopus leaves the cell empty when none cite it yet


def test_openalex_cited_by_count():
    columns = columns_of(SAMPLES / "openalex_works.json")
    assert columns["citations"][0] == "210"


def openreview_records(count: int) -> list[dict]:
    """The first papers of the shared OpenReview metadata corpus (COLM, CoRL), as its source gives them."""
    path = require_corpus("openreview_metadata.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for _, line in zip(range(count), lines, strict=False)]


def test_openreview_jsonl_decision_ratings_and_citations(tmp_path):
    records = openreview_records(40)
    fields = ("title", "abstract", "venue", "year", "decision", "rating", "ratings", "citations")
    (tmp_path / "colm2024.jsonl").write_text(
        "".join(json.dumps({key: r[key] for key in fields}) + "\n" for r in records), encoding="utf-8"
    )
    columns = columns_of(tmp_path / "colm2024.jsonl")
    assert columns["decision"] == [r["decision"] for r in records]
    assert columns["rating"][0] == "6.5"  # the mean stays a column of its own: the list is read
    values = values_of(tmp_path / "colm2024.jsonl")
    for record, mean, spread, cited in zip(
        records, values.rating, values.rating_spread, values.citations, strict=True
    ):
        if record["ratings"]:
            assert mean == pytest.approx(np.mean(record["ratings"]))
            assert spread == pytest.approx(np.std(record["ratings"], ddof=1))
        else:
            assert np.isnan(mean)
        assert cited == record["citations"] if record["citations"] is not None else np.isnan(cited)


def test_paper_lists_json_status_rating_and_scholar_citations(tmp_path):
    # The layout of a paper list (status, ratings joined by ";", Google Scholar's count).
    papers = [
        {"title": "A", "abstract": ABSTRACT, "status": "Oral", "rating": "7;8;6", "gs_citation": 12},
        {
            "title": "B",
            "abstract": ABSTRACT + " Again.",
            "status": "Poster",
            "rating": "5;6",
            "gs_citation": -1,
        },
    ]
    (tmp_path / "corl2023.json").write_text(json.dumps(papers), encoding="utf-8")
    columns = columns_of(tmp_path / "corl2023.json")
    assert (columns["decision"], columns["ratings"]) == (["Oral", "Poster"], ["7;8;6", "5;6"])
    values = values_of(tmp_path / "corl2023.json")
    assert values.rating.tolist() == [7.0, 5.5]
    assert values.citations[0] == 12 and np.isnan(values.citations[1])  # -1: no count, said once
    assert values.notes == (
        "citations: 1 value(s) could not be read as numbers and count as missing "
        "(first: dump corl2023, record 2: citations '-1')",
    )


def test_csv_with_a_malformed_rating_counts_it_missing_and_says_so_once(tmp_path):
    rows = ["title,abstract,Decision,Rating,Citations"]
    rows += [f'P{i},"{ABSTRACT} {i}",Accept (Poster),{5 + i % 3},{i}' for i in range(4)]
    rows += [f'Q,"{ABSTRACT} q",Reject,n/a,3', f'R,"{ABSTRACT} r",Reject,"6: marginally above",']
    (tmp_path / "iclr.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    values = values_of(tmp_path / "iclr.csv")
    assert values.decision.tolist()[-2:] == ["Reject", "Reject"]
    assert np.isnan(values.rating[4]) and values.rating[5] == 6.0
    [note] = values.notes
    assert note.startswith("ratings: 1 value(s) could not be read") and "line 6" in note and "'n/a'" in note


def test_a_column_of_no_numbers_stops_with_one_line(tmp_path):
    rows = ["title,abstract,citations"] + [f'P{i},"{ABSTRACT} {i}",many' for i in range(3)]
    (tmp_path / "odd.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(PipelineInputError) as caught:
        values_of(tmp_path / "odd.csv")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("dump odd, line 2: citations 'many'")
    assert "none of the 3 values of 'citations' is a number" in message


@pytest.mark.parametrize(
    ("text", "ratings"),
    [
        ("5; 7; 7", [5, 7, 7]),
        ("6.5", [6.5]),
        ("3, 4", [3, 4]),
        ("8: accept, 6: marginal", [8, 6]),
        ("x", None),
    ],
)
def test_ratings_as_exports_write_them(text, ratings):
    assert paper_ratings(text) == ratings


def _parse_jsonl(records: list[dict], folder: Path, knobs: dict) -> dict:
    """``records`` as a JSON Lines dump parsed by the parse stage; its summary."""
    (folder / "colm2024.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    ingest_stages.parse(
        str(folder / "colm2024.jsonl"), str(folder / "papers.jsonl"), str(folder / "summary.json"), knobs
    )
    return json.loads((folder / "summary.json").read_text(encoding="utf-8"))


def test_a_dump_edited_only_in_how_papers_were_received_keeps_its_text_part(tmp_path):
    knobs = {**PARSE_KNOBS, "decision_field": "Final call"}  # a decision column config names
    fields = ("title", "abstract", "venue", "year", "decision", "rating", "ratings", "citations")
    records = [{**{key: r[key] for key in fields}, "Final call": "Accept"} for r in openreview_records(40)]
    first = _parse_jsonl(records, tmp_path, knobs)
    text_part = tmp_path / "text" / f"{first['text_digest']}.jsonl"
    ingest_stages.text_part(
        str(tmp_path / "papers.jsonl"),
        str(tmp_path / "summary.json"),
        str(text_part),
        str(tmp_path / "text" / f"{first['text_digest']}.summary.json"),
    )
    kept = [json.loads(line) for line in text_part.read_text(encoding="utf-8").splitlines()]
    assert len(kept) == 40 and all(set(p) >= {"title", "abstract", "year"} for p in kept)
    assert not any({"decision", "ratings", "citations"} & set(p) for p in kept)
    # The mean rating an export gives beside the list, and the column config names, go too.
    assert not any({"rating", "Final call"} & set(p.get("extra", {})) for p in kept)

    for record in records[::3]:
        record.update(decision="Reject", ratings=[1, 2], rating=1.5, citations=0)
        record["Final call"] = "Reject"
    edited = _parse_jsonl(records, tmp_path, knobs)
    assert edited["sha256"] != first["sha256"] and edited["text_digest"] == first["text_digest"]

    records[5]["abstract"] += " We release the code."
    rewritten = _parse_jsonl(records, tmp_path, knobs)
    assert rewritten["text_digest"] != first["text_digest"]
    ingest_stages.text_part(
        str(tmp_path / "papers.jsonl"),
        str(tmp_path / "summary.json"),
        str(tmp_path / "text" / f"{rewritten['text_digest']}.jsonl"),
        str(tmp_path / "text" / f"{rewritten['text_digest']}.summary.json"),
    )
    # The earlier text part is removed: only the current digest's two files are left.
    assert sorted(p.name for p in (tmp_path / "text").iterdir()) == [
        f"{rewritten['text_digest']}.jsonl",
        f"{rewritten['text_digest']}.summary.json",
    ]
