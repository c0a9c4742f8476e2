"""The same papers written as nine databases' exports would give them: Web of Science plain text and
tab-delimited, Scopus CSV, BibTeX, RIS, an OpenAlex API page and OpenAlex JSON Lines, PubMed MEDLINE
and the arXiv metadata snapshot, each in its own layout (as tests/data/exports/ has one of each).

Each paper is a dict with ``arxiv`` (its arXiv id), ``title``, ``abstract`` and ``year``; the other
databases' identifiers (WoS UT, PubMed id, OpenAlex id, Scopus EID) are made up from its position,
the same in every export; its DOI is arXiv's (``10.48550/arXiv.<id>``), written where ``doi`` is true.
Scopus and Web of Science add a publisher's line to the abstract, as they do; the text is otherwise
written as it is, LaTeX and all (the BibTeX reader decodes it, the others keep it), but for
BibTeX's ``%`` escaped as its exporters escape it.
"""

from __future__ import annotations

import csv
import io
import json
import re
import textwrap
from pathlib import Path


def identifiers(position: int, paper: dict) -> dict[str, str]:
    """The identifiers every export of the paper at ``position`` carries (those it has a field for)."""
    return {
        "doi": f"10.48550/arXiv.{paper['arxiv']}",
        "wos": f"WOS:{1000000000 + position:015d}",
        "pmid": str(39000000 + position),
        "openalex": f"W{4300000000 + position}",
        "scopus": f"2-s2.0-{85100000000 + position}",
    }


def _with_publisher_line(abstract: str, line: str) -> str:
    """The abstract as a database gives it: a publisher's line after its last sentence."""
    return f"{abstract}{'' if abstract.endswith(('.', '!', '?')) else '.'} {line}"


def _bibtex_escaped(text: str) -> str:
    r"""``%`` written ``\%`` as BibTeX exporters do (a bare one starts a LaTeX comment)."""
    return re.sub(r"(?<!\\)%", r"\\%", text)


def _author(position: int) -> tuple[str, str]:
    return f"Author{position}", "Ana"


def _wrapped(text: str, indent: str) -> str:
    return textwrap.fill(
        text, width=78, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def wos_plain(papers: list[dict], doi: bool) -> str:
    lines = ["FN Clarivate Analytics Web of Science", "VR 1.0"]
    for position, paper in enumerate(papers):
        ids, (family, given) = identifiers(position, paper), _author(position)
        abstract = _with_publisher_line(
            paper["abstract"], f"(C) {paper['year']} Elsevier B.V. All rights reserved."
        )
        lines += [
            "PT J",
            f"AU {family}, {given[0]}",
            f"AF {family}, {given}",
            f"TI {_wrapped(paper['title'], '   ')}",
        ]
        lines += ["SO ARXIV PREPRINTS", f"AB {_wrapped(abstract, '   ')}", f"PY {paper['year']}"]
        lines += [f"DI {ids['doi']}"] if doi else []
        lines += [f"UT {ids['wos']}", "ER", ""]
    return "\n".join([*lines, "EF", ""])


def wos_tab(papers: list[dict], doi: bool) -> str:
    rows = ["\t".join(("PT", "AU", "AF", "TI", "SO", "AB", "PY", "DI", "UT"))]
    for position, paper in enumerate(papers):
        ids, (family, given) = identifiers(position, paper), _author(position)
        cells = ("J", f"{family}, {given[0]}", f"{family}, {given}", paper["title"], "ARXIV PREPRINTS")
        cells += (paper["abstract"], str(paper["year"]), ids["doi"] if doi else "", ids["wos"])
        rows.append("\t".join(cells))
    return "\n".join(rows) + "\n"


def scopus(papers: list[dict], doi: bool) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["Authors", "Author full names", "Title", "Year", "Source title", "DOI", "Link", "Abstract"] + ["EID"]
    )
    for position, paper in enumerate(papers):
        ids, (family, given) = identifiers(position, paper), _author(position)
        abstract = _with_publisher_line(
            paper["abstract"], f"© {paper['year']} Elsevier B.V. All rights reserved."
        )
        link = f"https://www.scopus.com/inward/record.uri?eid={ids['scopus']}"
        writer.writerow(
            [f"{family} {given[0]}.", f"{family}, {given} (5720{position})", paper["title"], paper["year"]]
            + ["arXiv", ids["doi"] if doi else "", link, abstract, ids["scopus"]]
        )
    return out.getvalue()


def bibtex(papers: list[dict], doi: bool) -> str:
    entries = []
    for position, paper in enumerate(papers):
        ids, (family, given) = identifiers(position, paper), _author(position)
        fields = [f"  author = {{{family}, {given}}}", f"  title = {{{paper['title']}}}"]
        fields += [
            f"  year = {{{paper['year']}}}",
            "  journal = {arXiv}",
            f"  abstract = {{{_bibtex_escaped(paper['abstract'])}}}",
        ]
        fields += [f"  doi = {{{ids['doi']}}}"] if doi else []
        entries.append(
            f"@article{{{family.lower()}{paper['year']}x{position},\n" + ",\n".join(fields) + "\n}\n"
        )
    return "\n".join(entries)


def ris(papers: list[dict], doi: bool) -> str:
    lines = []
    for position, paper in enumerate(papers):
        ids, (family, given) = identifiers(position, paper), _author(position)
        lines += [
            "TY  - JOUR",
            f"TI  - {paper['title']}",
            f"AU  - {family}, {given}",
            f"PY  - {paper['year']}",
        ]
        lines += ["T2  - arXiv", f"AB  - {paper['abstract']}"]
        lines += [f"DO  - {ids['doi']}"] if doi else []
        lines += [f"ID  - {family.lower()}{paper['year']}", "ER  - ", ""]
    return "\n".join(lines)


def _openalex_work(position: int, paper: dict, doi: bool) -> dict:
    ids, (family, given) = identifiers(position, paper), _author(position)
    index: dict[str, list[int]] = {}
    for word_position, word in enumerate(paper["abstract"].split()):
        index.setdefault(word, []).append(word_position)
    return {
        "id": f"https://openalex.org/{ids['openalex']}",
        "doi": f"https://doi.org/{ids['doi']}" if doi else None,
        "title": paper["title"],
        "display_name": paper["title"],
        "publication_year": paper["year"],
        "primary_location": {"source": {"display_name": "arXiv"}},
        "authorships": [{"author": {"display_name": f"{given} {family}"}}],
        "abstract_inverted_index": index,
    }


def openalex_page(papers: list[dict], doi: bool) -> str:
    works = [_openalex_work(position, paper, doi) for position, paper in enumerate(papers)]
    return json.dumps(
        {"meta": {"count": len(works), "page": 1}, "results": works}, ensure_ascii=False, indent=1
    )


def openalex_lines(papers: list[dict], doi: bool) -> str:
    works = [_openalex_work(position, paper, doi) for position, paper in enumerate(papers)]
    return "".join(json.dumps(work, ensure_ascii=False) + "\n" for work in works)


def medline(papers: list[dict], doi: bool) -> str:
    lines = []
    for position, paper in enumerate(papers):
        ids, (family, given) = identifiers(position, paper), _author(position)
        lines += [f"PMID- {ids['pmid']}", "OWN - NLM", f"DP  - {paper['year']} Jan"]
        lines += [
            f"TI  - {_wrapped(paper['title'], ' ' * 6)}",
            f"AB  - {_wrapped(paper['abstract'], ' ' * 6)}",
        ]
        lines += [f"FAU - {family}, {given}", f"AU  - {family} {given[0]}", "JT  - arXiv"]
        lines += [f"LID - {ids['doi']} [doi]"] if doi else []
        lines += [""]
    return "\n".join(lines)


def arxiv_snapshot(papers: list[dict], doi: bool) -> str:
    records = []
    for position, paper in enumerate(papers):
        ids, (family, given) = identifiers(position, paper), _author(position)
        record = {
            "id": paper["arxiv"],
            "authors": f"{given} {family}",
            "title": paper["title"],
            "doi": ids["doi"] if doi else None,
            "categories": "cs.CV",
            "abstract": "  " + textwrap.fill(paper["abstract"], width=78) + "\n",
            "versions": [{"version": "v1", "created": f"Mon, 6 Jan {paper['year']} 10:00:00 GMT"}],
            "authors_parsed": [[family, given, ""]],
        }
        records.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(records)


# Each export's file name (its dump's name) and writer.
EXPORTS = {
    "wos_plain.txt": wos_plain,
    "wos_tab.txt": wos_tab,
    "scopus.csv": scopus,
    "zotero.bib": bibtex,
    "endnote.ris": ris,
    "openalex_page.json": openalex_page,
    "openalex_lines.jsonl": openalex_lines,
    "pubmed.nbib": medline,
    "arxiv_snapshot.jsonl": arxiv_snapshot,
}


def write_exports(folder: Path, papers: list[dict], with_doi: set[str]) -> list[Path]:
    """The papers written as every export into ``folder``; DOIs only in the exports named in ``with_doi``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, writer in EXPORTS.items():
        path = folder / name
        path.write_text(writer(papers, doi=name in with_doi), encoding="utf-8")
        paths.append(path)
    return paths
