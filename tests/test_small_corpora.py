"""Whole runs on 1, 2, 5 and 38 abstracts, in several formats: each ends in a report; too few
abstracts to cluster give one topic and a note instead of a crash.
"""

from __future__ import annotations

import csv
import gzip
import html
import io
import json

import pandas as pd
import pytest
from conftest import SEEDS, make_workdir, run_workflow


def seed_abstracts(count: int) -> list[str]:
    paragraphs = SEEDS[0].read_text(encoding="utf-8").split("\n\n")[1:]
    return [p.strip() for p in paragraphs[:count]]


def report_of(workdir) -> str:
    return (workdir / "results" / "report" / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_one_abstract_txt(tmp_path):
    workdir = make_workdir(tmp_path, {"one.txt": "One Paper\n\n" + seed_abstracts(1)[0] + "\n"})
    run_workflow(workdir)
    topics = pd.read_csv(workdir / "results" / "topics" / "topics.csv")
    assert topics["id"].tolist() == [0] and topics["size"].tolist() == [1]
    assert "1 abstracts are too few to split into topics" in report_of(workdir)


@pytest.mark.slow
def test_two_abstracts_jsonl_gz(tmp_path):
    rows = [{"abstract": a, "title": f"Paper {i}", "label": "x"} for i, a in enumerate(seed_abstracts(2))]
    dump = gzip.compress("\n".join(map(json.dumps, rows)).encode(), mtime=0)
    workdir = make_workdir(tmp_path, {"two.jsonl.gz": dump})
    run_workflow(workdir)
    papers = pd.read_csv(workdir / "results" / "topics" / "papers.csv", keep_default_na=False)
    assert papers["display_name"].tolist() == ["Paper 0", "Paper 1"]
    assert set(papers["topic"]) == {0}
    assert "2 abstracts are too few to split into topics" in report_of(workdir)


@pytest.mark.slow
def test_five_abstracts_csv_with_every_input_field(tmp_path):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Title", "Abstract", "Authors", "URL", "Year", "Label", "Venue"])
    for i, abstract in enumerate(seed_abstracts(5)):
        writer.writerow(
            [
                f"Paper <{i}>",
                abstract,
                f"Ada Lovelace{i}; Alan Turing; Grace Hopper",
                f"https://example.org/{i}",
                2020 + i,
                f"area {i % 2}",
                "ICML",
            ]
        )
    workdir = make_workdir(tmp_path, {"five.csv": out.getvalue()})
    run_workflow(workdir)
    papers = pd.read_csv(workdir / "results" / "topics" / "papers.csv", keep_default_na=False)
    assert len(papers) == 5
    assert papers["display_name"].tolist()[0] == "Paper <0> — Ada Lovelace0 et al."
    assert papers["url"].tolist()[4] == "https://example.org/4"
    assert papers["year"].tolist() == [2020, 2021, 2022, 2023, 2024]
    assert papers["label"].tolist()[:2] == ["area 0", "area 1"]
    assert papers["Venue"].tolist() == ["ICML"] * 5
    topics = pd.read_csv(workdir / "results" / "topics" / "topics.csv")
    assert (topics["id"] >= 0).sum() >= 1  # at least one real topic, never only outliers
    report = report_of(workdir)
    assert html.escape("Paper <0> — Ada Lovelace0 et al.") in report  # a representative paper, escaped
    summary = json.loads((workdir / "results" / "parsed" / "five.summary.json").read_text())
    assert (summary["format"], summary["records_read"], summary["kept"]) == ("csv", 5, 5)


@pytest.mark.slow
def test_thirty_eight_abstracts_from_the_two_seed_dumps(seed_run):
    papers = pd.read_csv(seed_run / "results" / "topics" / "papers.csv", keep_default_na=False)
    assert len(papers) == 38 and set(papers["dump"]) == {s.name.split(".")[0] for s in SEEDS}
    summary = json.loads((seed_run / "results" / "corpus" / "summary.json").read_text())
    assert [(d["records_read"], d["kept"], d["duplicates"], d["rejected"]) for d in summary["dumps"]] == [
        (19, 19, 0, 0)
    ] * 2
