"""One identifier, two different papers (issue #63): records sharing an identifier are one paper
only where their texts agree; where they do not, both are kept, with the identifier, and the run
says once how many identifiers named more than one paper, with the first. On real papers written as
the exports give them (tests/export_writers.py), on the shared corpora's near misses and versions,
and on hand-made records for the edges (no abstract, chains, the dumps in any order).
"""

from __future__ import annotations

import gzip
import itertools
import json
import logging
import re

import pytest
from conftest import ARXIV, require_corpus
from export_writers import openalex_lines, openalex_page, scopus, wos_plain
from papertopics import storage
from papertopics.ingest import stages
from papertopics.ingest.corpus import identifier_conflict_note, merge_dumps
from papertopics.ingest.identity import ComparableText, texts_agree
from papertopics.ingest.parse import parse_dump
from papertopics.text import paper_id

LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
WRONG_DOI = "10.1016/j.neunet.2021.01.001"


@pytest.fixture(scope="module")
def real_papers() -> list[dict]:
    """The arXiv corpus's first 80 papers without LaTeX, as tests/export_writers.py takes them."""
    require_corpus(ARXIV.name)
    papers = []
    with gzip.open(ARXIV, "rt", encoding="utf-8") as lines:
        for record in map(json.loads, lines):
            if not LATEX_COMMAND.search(record["abstract"]):
                papers.append(
                    {
                        "arxiv": record["id"].removeprefix("arXiv:"),
                        "title": record["title"],
                        "abstract": record["abstract"],
                        "year": record["year"],
                    }
                )
            if len(papers) == 80:
                return papers
    raise AssertionError("the arXiv corpus has fewer than 80 papers without LaTeX")


def parsed(folder, name: str, text: str) -> tuple[dict, list[dict]]:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    dump = parse_dump(path, min_abstract_chars=20)
    return dump.summary(), dump.papers


def with_doi(export: str, papers: list[dict], dois: list[str]) -> str:
    """An export written with ``doi=True`` whose papers carry ``dois`` instead of their arXiv DOIs."""
    for paper, doi in zip(papers, dois, strict=True):
        export = export.replace(f"10.48550/arXiv.{paper['arxiv']}", doi)
    return export


def test_two_openalex_exports_sharing_ids_keep_all_their_papers(tmp_path, real_papers):
    first, second = real_papers[:40], real_papers[40:]
    dumps = [
        parsed(tmp_path, "page.json", openalex_page(first, doi=False)),
        parsed(tmp_path, "lines.jsonl", openalex_lines(second, doi=False)),
    ]
    papers, summary = merge_dumps(dumps)
    assert len(papers) == 80
    assert sorted(paper["title"] for paper in papers) == sorted(paper["title"] for paper in real_papers)
    # Each OpenAlex id stays on both its papers.
    assert sum(paper["input_id"] == "https://openalex.org/W4300000000" for paper in papers) == 2
    assert summary["duplicates_across_dumps"] == 0
    conflicts = summary["identifier_conflicts"]
    assert conflicts["identifiers"] == 40
    assert conflicts["first"]["identifier"] == {"kind": "openalex", "value": "W4300000000"}
    assert [(r["dump"], r["title"]) for r in conflicts["first"]["records"]] == [
        ("page", first[0]["title"]),
        ("lines", second[0]["title"]),
    ]
    note = identifier_conflict_note(summary)
    assert note.startswith("40 identifiers named more than one paper whose titles and abstracts disagree")
    assert f"OpenAlex id W4300000000 on page record 1 “{first[0]['title']}” and on lines line 1" in note


def test_the_same_works_in_two_openalex_exports_are_one_paper_each(tmp_path, real_papers):
    dumps = [
        parsed(tmp_path, "page.json", openalex_page(real_papers[:40], doi=False)),
        parsed(tmp_path, "lines.jsonl", openalex_lines(real_papers[:40], doi=False)),
    ]
    papers, summary = merge_dumps(dumps)
    assert len(papers) == 40 and all(paper["dumps"] == ["page", "lines"] for paper in papers)
    assert summary["identifier_conflicts"] == {"identifiers": 0, "first": None}
    assert identifier_conflict_note(summary) is None


def test_one_doi_on_three_web_of_science_papers_keeps_three_and_names_it_once(tmp_path, real_papers):
    three = real_papers[:3]
    dump = parsed(tmp_path, "savedrecs.txt", with_doi(wos_plain(three, doi=True), three, [WRONG_DOI] * 3))
    papers, summary = merge_dumps([dump])
    assert [paper["title"] for paper in papers] == [paper["title"] for paper in three]
    assert all(paper["extra"]["doi"] == WRONG_DOI for paper in papers)
    conflicts = summary["identifier_conflicts"]
    assert conflicts["identifiers"] == 1 and conflicts["first"]["papers"] == 3
    assert [r["location"].split(" (")[0] for r in conflicts["first"]["records"]] == ["record 1", "record 2"]
    note = identifier_conflict_note(summary)
    assert note.startswith("1 identifier named more than one paper")
    assert f"DOI {WRONG_DOI} on savedrecs record 1 (line 3)" in note and note.endswith("(and 1 more paper).")


def test_a_doi_repeated_on_one_paper_with_its_title_corrected_is_one_paper(tmp_path, real_papers):
    paper, other = real_papers[0], real_papers[1]
    typo = {**paper, "title": paper["title"][:10] + paper["title"][9:]}  # a letter typed twice
    # Corrected: the title, and a word added to the abstract, so that parsing does not take it as the same record.
    corrected = {**paper, "abstract": paper["abstract"] + " Revised."}
    assert corrected["abstract"] != paper["abstract"] and typo["title"] != paper["title"]
    records = [typo, other, corrected]
    dump = parsed(
        tmp_path,
        "savedrecs.txt",
        with_doi(wos_plain(records, doi=True), records, [WRONG_DOI, "10.1000/x", WRONG_DOI]),
    )
    assert len(dump[1]) == 3  # three records parsed, two of them one paper
    papers, summary = merge_dumps([dump])
    assert [p["title"] for p in papers] == [typo["title"], other["title"]]
    assert summary["merged_within_dumps"] == 1 and summary["dumps"][0]["merged_within_dump"] == 1
    assert summary["identifier_conflicts"]["identifiers"] == 0
    # The same across two exports: Web of Science with the typo, Scopus corrected.
    dumps = [
        parsed(tmp_path, "wos.txt", with_doi(wos_plain([typo], doi=True), [typo], [WRONG_DOI])),
        parsed(tmp_path, "scopus.csv", with_doi(scopus([corrected], doi=True), [corrected], [WRONG_DOI])),
    ]
    papers, summary = merge_dumps(dumps)
    assert [p["dumps"] for p in papers] == [["wos", "scopus"]]
    assert summary["matched_across_dumps"] == {"identifier": 1, "text": 0}


def _corpus_records(name: str, ids: set[str]) -> dict[str, dict]:
    path = require_corpus(f"{name}.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return {r["id"]: r for r in map(json.loads, lines) if r["id"] in ids}


@pytest.mark.parametrize(
    ("first", "second", "one_paper"),
    [
        # Distinct papers whose titles are a character apart, their abstracts not alike.
        (
            ("arxiv_cs_daily_2025_2026", "arXiv:2503.20215"),
            ("arxiv_cs_daily_2025_2026", "arXiv:2604.15804"),
            False,
        ),
        # One abstract copied onto another paper (an error in the corpus's source).
        (
            ("aistats_1995_2025", "aistats1997-2e3dd8ff77"),
            ("aistats_1995_2025", "aistats1997-95fa0ad863"),
            False,
        ),
        # The arXiv version and the COLM paper: the same title, the abstract rewritten (0.68 alike).
        (
            ("arxiv_cs_daily_2025_2026", "arXiv:2504.12522"),
            ("openreview_metadata", "colm2025-O7bF6nlSOD"),
            True,
        ),
        # Retitled ("Benchmarking" → "Evaluating"), the same abstract but for a few words.
        (
            ("arxiv_cs_daily_2025_2026", "arXiv:2507.11625"),
            ("openreview_metadata", "colm2025-VSwRuGtB5n"),
            True,
        ),
    ],
    ids=["Qwen2.5 and Qwen3.5", "copied abstract", "rewritten abstract", "retitled"],
)
def test_real_near_misses_stay_apart_and_real_versions_join(first, second, one_paper):
    records = [_corpus_records(name, {identifier})[identifier] for name, identifier in (first, second)]
    assert texts_agree(*map(ComparableText.of, records)) is one_paper
    dumps = [
        (
            {"dump": name, "format": "csv"},
            [{**record, "id": paper_id(record["abstract"]), "dump": name, "extra": {"doi": WRONG_DOI}}],
        )
        for name, record in zip(("a", "b"), records, strict=True)
    ]
    papers, summary = merge_dumps(dumps)
    assert len(papers) == (1 if one_paper else 2)
    assert summary["identifier_conflicts"]["identifiers"] == (0 if one_paper else 1)


ABSTRACT = (
    "We study how exploration policies trade reward against information in contextual bandits, prove "
    "regret bounds for an adaptive epsilon schedule, and evaluate it on three recommendation benchmarks."
)
OTHER_ABSTRACT = (
    "A survey of protein structure prediction after AlphaFold: what the models get right about folding, "
    "where they fail on disordered regions, and which experimental data remain needed."
)


def record(dump: str, abstract: str, title: str = "", **fields) -> dict:
    return {"id": paper_id(abstract or title), "dump": dump, "abstract": abstract, "title": title, **fields}


def dump_of(name: str, *papers: dict, dump_format: str = "csv") -> tuple[dict, list[dict]]:
    return {"dump": name, "format": dump_format}, list(papers)


def test_a_record_without_an_abstract_is_judged_by_its_title():
    doi = {"extra": {"doi": WRONG_DOI}}
    papers, summary = merge_dumps(
        [
            dump_of("a", record("a", "", "Adaptive Exploration in Contextual Bandits", **doi)),
            dump_of("b", record("b", ABSTRACT, "Adaptive exploration in contextual bandits.", **doi)),
            dump_of("c", record("c", "", "Protein Structure Prediction after AlphaFold", **doi)),
            dump_of("d", record("d", "", "", **doi)),
        ]
    )
    # a and b one paper; c another title; d no text at all, nothing to join it by.
    assert [paper["dumps"] for paper in papers] == [["a", "b"], ["c"], ["d"]]
    assert summary["identifier_conflicts"]["identifiers"] == 1


def test_titles_written_apart_in_case_punctuation_and_latex_agree():
    written = record("a", ABSTRACT, r"The $\epsilon$-Greedy Policy, Revisited: Na\"ive {Exploration}")
    # The abstract cut short (its words 0.5 to 0.8 alike): the titles decide.
    decoded = record("b", ABSTRACT.split(", and")[0], "the ϵ greedy policy revisited — naïve exploration")
    assert texts_agree(ComparableText.of(written), ComparableText.of(decoded))
    papers, _ = merge_dumps(
        [
            dump_of("a", {**written, "extra": {"doi": WRONG_DOI}}),
            dump_of("b", {**decoded, "extra": {"doi": WRONG_DOI}}),
        ]
    )
    assert [paper["dumps"] for paper in papers] == [["a", "b"]]


def _chain() -> list[tuple[dict, list[dict]]]:
    """Three dumps of one paper: a by DOI, b by DOI and PubMed id, c by PubMed id; each abstract
    written a little differently (no two the same text), the title the same.
    """
    title = "Adaptive Exploration in Contextual Bandits"
    return [
        dump_of("a", record("a", ABSTRACT, title, extra={"doi": WRONG_DOI})),
        dump_of(
            "b",
            record(
                "b", ABSTRACT.replace("three", "four"), title, input_id="33012345", extra={"doi": WRONG_DOI}
            ),
            dump_format="medline",
        ),
        dump_of(
            "c",
            record("c", ABSTRACT.replace("prove", "derive"), title, input_id="33012345"),
            dump_format="medline",
        ),
        dump_of(
            "d",
            record("d", OTHER_ABSTRACT, "Protein structure prediction", input_id="33012345"),
            dump_format="medline",
        ),
    ]


def test_a_chain_of_identifiers_is_one_paper_whatever_the_dumps_order():
    dumps = _chain()
    for order in itertools.permutations(dumps):
        papers, summary = merge_dumps(list(order))
        names = [summary_["dump"] for summary_, _ in order]
        joined = next(paper for paper in papers if len(paper["dumps"]) > 1)
        assert len(papers) == 2 and joined["dumps"] == [n for n in names if n != "d"], names
        assert joined["dump"] == joined["dumps"][0]  # kept at its first record
        assert summary["identifier_conflicts"]["identifiers"] == 1  # d's PubMed id names another paper
        assert summary["duplicates_across_dumps"] == 2


def test_text_matches_are_decided_whatever_the_order_and_the_same_twice():
    # One abstract in three dumps: a with one DOI, c with another, b with none (and LaTeX: another
    # paper id, the same text key). b is one paper with a or with c, never both (their DOIs
    # differ); which one follows the dumps' names, not their order.
    dumps = [
        dump_of("a", record("a", ABSTRACT, extra={"doi": "10.1000/one"})),
        dump_of("b", record("b", ABSTRACT.replace("bandits", r"\emph{bandits}"), extra={})),
        dump_of("c", record("c", ABSTRACT, extra={"doi": "10.1000/two"})),
    ]
    for order in itertools.permutations(dumps):
        papers, summary = merge_dumps(list(order))
        assert {frozenset(paper["dumps"]) for paper in papers} == {frozenset("ab"), frozenset("c")}
        assert summary["matched_across_dumps"] == {"identifier": 0, "text": 1}
        assert merge_dumps(list(order)) == (papers, summary)


def test_many_distinct_papers_on_one_doi_stay_apart(real_papers):
    same_doi = [
        record("big", paper["abstract"], paper["title"], extra={"doi": WRONG_DOI}, location=f"line {n + 1}")
        for n, paper in enumerate(real_papers)
    ]
    papers, summary = merge_dumps([dump_of("big", *same_doi)])
    assert len(papers) == len(real_papers)
    assert summary["identifier_conflicts"]["identifiers"] == 1
    assert summary["identifier_conflicts"]["first"]["papers"] == len(real_papers)


def test_the_corpus_stage_logs_the_conflicts_once(tmp_path, caplog, real_papers):
    three = real_papers[:3]
    path = tmp_path / "savedrecs.txt"
    path.write_text(with_doi(wos_plain(three, doi=True), three, [WRONG_DOI] * 3), encoding="utf-8")
    parsed_papers, parsed_summary = tmp_path / "p.jsonl", tmp_path / "s.json"
    dump = parse_dump(path, min_abstract_chars=20)
    storage.write_jsonl(parsed_papers, dump.papers)
    storage.write_json(parsed_summary, dump.summary())
    with caplog.at_level(logging.INFO, logger=stages.__name__):
        stages.corpus(
            [str(parsed_papers)], [str(parsed_summary)], str(tmp_path / "c.jsonl"), str(tmp_path / "c.json")
        )
    said = [r.getMessage() for r in caplog.records if "named more than one paper" in r.getMessage()]
    assert len(said) == 1 and f"DOI {WRONG_DOI}" in said[0]
    assert storage.read_json(tmp_path / "c.json")["identifier_conflicts"]["identifiers"] == 1
