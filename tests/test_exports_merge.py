"""One paper from many exports: the same 40 real arXiv papers written in nine databases' exports
(tests/export_writers.py) merge into 40 papers, each recorded in every dump, whether the exports
carry DOIs or (all but two) do not; and the parts of the match, identifiers and the text key, each
on its own.
"""

from __future__ import annotations

import gzip
import json
import re

import pytest
from conftest import ARXIV, require_corpus
from export_writers import EXPORTS, write_exports
from papertopics.ingest.corpus import merge_dumps
from papertopics.ingest.identity import paper_identifiers, text_key
from papertopics.ingest.parse import parse_dump
from papertopics.text import paper_id

PAPERS = 40
LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")


@pytest.fixture(scope="module")
def arxiv_papers() -> list[dict]:
    """The corpus's first 30 papers without LaTeX and first 10 with a LaTeX command, in the corpus's order."""
    require_corpus(ARXIV.name)
    plain, latex = [], []
    with gzip.open(ARXIV, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            abstract = record["abstract"]
            # A BibTeX field cannot hold unbalanced braces.
            if abstract.count("{") != abstract.count("}"):
                continue
            chosen = latex if LATEX_COMMAND.search(abstract) else plain
            if len(chosen) < (10 if chosen is latex else 30):
                chosen.append(record)
            if len(plain) == 30 and len(latex) == 10:
                break
    records = sorted(plain + latex, key=lambda record: record["id"])
    return [
        {
            "arxiv": r["id"].removeprefix("arXiv:"),
            "title": r["title"],
            "abstract": r["abstract"],
            "year": r["year"],
        }
        for r in records
    ]


def merged(folder, papers, with_doi, papers_per_dump=PAPERS):
    dumps = []
    for path in write_exports(folder, papers, with_doi):
        parsed = parse_dump(path, min_abstract_chars=20)
        assert len(parsed.papers) == papers_per_dump, f"{path.name}: {parsed.summary()}"
        dumps.append((parsed.summary(), parsed.papers))
    return merge_dumps(dumps)


@pytest.mark.parametrize(
    "with_doi", [set(EXPORTS), {"scopus.csv", "pubmed.nbib"}], ids=["every export with DOIs", "two with DOIs"]
)
def test_the_same_papers_in_nine_exports_are_one_corpus(tmp_path, arxiv_papers, with_doi):
    papers, summary = merged(tmp_path, arxiv_papers, with_doi)
    names = [name.split(".")[0] for name in EXPORTS]
    assert len(papers) == PAPERS
    assert all(paper["dumps"] == names for paper in papers)
    assert [row["shared_with_other_dumps"] for row in summary["dumps"]] == [PAPERS] * len(EXPORTS)
    assert summary["duplicates_across_dumps"] == PAPERS * (len(EXPORTS) - 1)
    by = summary["matched_across_dumps"]
    assert by["identifier"] + by["text"] == PAPERS * (len(EXPORTS) - 1)
    if with_doi == set(EXPORTS):
        assert by == {"identifier": PAPERS * (len(EXPORTS) - 1), "text": 0}
    else:
        # By identifier: WoS tab-delimited meets WoS plain text by UT, OpenAlex lines the page by
        # OpenAlex id, PubMed meets Scopus by DOI, the arXiv snapshot Scopus's arXiv DOI by arXiv id.
        # By text: Scopus, BibTeX, RIS and the OpenAlex page (nothing they carry is in an earlier dump).
        assert by == {"identifier": 4 * PAPERS, "text": 4 * PAPERS}


def test_bibtex_decodes_latex_the_others_keep_it_and_the_text_key_agrees(tmp_path, arxiv_papers):
    [bib, wos] = [
        parse_dump(path, min_abstract_chars=20).papers
        for path in write_exports(tmp_path, arxiv_papers, set())
        if path.name in ("zotero.bib", "wos_plain.txt")
    ]
    decoded = [(a, b) for a, b in zip(bib, wos, strict=True) if a["id"] != b["id"]]
    assert len(decoded) >= 5, "the papers with LaTeX get other ids from the BibTeX reader"
    assert all(text_key(a["abstract"]) == text_key(b["abstract"]) for a, b in zip(bib, wos, strict=True))


def test_text_key_reads_latex_unicode_ligatures_and_spacing_alike():
    written = 'We study an \\epsilon-greedy policy for the na\\"ive \\emph{eﬃcient} case, at 5\\% cost.'
    decoded = "We study an ϵ-greedy policy for the naïve efficient case, at 5% cost."
    assert (
        text_key(written)
        == text_key(decoded)
        == text_key("we study an ε greedy policy for the naive efficient case at 5 cost")
    )
    assert paper_id(written) != paper_id(decoded)
    assert text_key(decoded) != text_key(decoded.replace("greedy", "optimal"))


def test_identifiers_by_format():
    def ids(input_id, dump_format, doi=None):
        return paper_identifiers({"input_id": input_id, "extra": {"doi": doi} if doi else {}}, dump_format)

    assert ids("WOS:000123456700001", "wos", "10.1016/J.X.2020.1") == {
        "doi": "10.1016/j.x.2020.1",
        "wos": "WOS:000123456700001",
    }
    assert ids("33012345", "medline") == {"pmid": "33012345"}
    assert ids("33012345", "csv") == {}  # a bare number is a PubMed id only in a PubMed export
    assert ids("2104.01234v2", "arxiv") == {"arxiv": "2104.01234"}
    assert ids("arXiv:2510.09842", "jsonl") == {"arxiv": "2510.09842"}
    assert ids("https://openalex.org/W3100000001", "openalex") == {"openalex": "W3100000001"}
    assert ids("2-s2.0-85087654321", "scopus") == {"scopus": "2-s2.0-85087654321"}
    assert ids("smith2020", "bibtex", "https://doi.org/10.48550/arXiv.2104.01234") == {
        "doi": "10.48550/arxiv.2104.01234",
        "arxiv": "2104.01234",
    }


def test_papers_with_one_text_but_other_identifiers_stay_apart():
    abstract = "A study of how the same text can be two papers when their identifiers differ in kind."

    def dump(name, doi, text):
        paper = {"id": paper_id(text), "dump": name, "abstract": text, "extra": {"doi": doi}}
        return {"dump": name, "format": "csv"}, [paper]

    papers, summary = merge_dumps(
        [
            dump("a", "10.1000/one", abstract),
            dump("b", "10.1000/two", abstract.replace("same text", "same \\emph{text}")),
            dump("c", "10.1000/one", "Other."),
        ]
    )
    # b: the same words as a but another DOI; c: a's DOI on another text, so another paper.
    assert [paper["dumps"] for paper in papers] == [["a"], ["b"], ["c"]]
    assert summary["matched_across_dumps"] == {"identifier": 0, "text": 0}
    assert summary["identifier_conflicts"]["identifiers"] == 1


def test_report_dump_table_says_what_each_export_shares(tmp_path, arxiv_papers):
    from papertopics.report.overview import _dump_table

    _, summary = merged(tmp_path, arxiv_papers[:5], with_doi={"scopus.csv", "pubmed.nbib"}, papers_per_dump=5)
    table = _dump_table(summary)
    rows = table.split("<tr>")[2:]
    assert "<th>Shared with other dumps</th>" in table
    assert rows[0].endswith("<td>5</td></tr>")  # the first dump: nothing earlier to meet
    assert "<td>5 (in earlier dumps: 5 by identifier)</td>" in rows[1]  # WoS tab-delimited: WoS's UT
    assert "<td>5 (in earlier dumps: 5 by text)</td>" in rows[2]  # Scopus
    lone = {**summary, "dumps": [{**row, "shared_with_other_dumps": 0} for row in summary["dumps"]]}
    assert "Shared with" not in _dump_table(lone)
