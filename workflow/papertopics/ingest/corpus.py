"""Merge parsed dumps into one corpus, keeping each paper once across dumps.

A paper of a later dump is one of an earlier dump's (:mod:`papertopics.ingest.identity`) when
they share an identifier (DOI, arXiv id, PubMed id, WoS UT, OpenAlex id, Scopus EID), else when
their abstracts are the same text (the same ``id``), else when their text keys agree and they
carry no identifier of one kind with different values. Two records of one dump stay two papers
(parsing has told its duplicates apart already).
"""

from __future__ import annotations

from collections import Counter

from papertopics.ingest.identity import paper_identifiers, text_key


class PaperIndex:
    """The corpus's papers found by identifier, by id and by text key; with the identifiers and
    dumps of each paper kept.
    """

    def __init__(self):
        self.by_identifier: dict[tuple[str, str], str] = {}
        self.by_text_key: dict[str, str] = {}
        self.identifiers: dict[str, dict[str, str]] = {}
        self.dumps: dict[str, list[str]] = {}

    def find(self, paper: dict, identifiers: dict[str, str], key: str) -> tuple[str | None, str | None]:
        """The id of the corpus paper ``paper`` is, from another dump, and how it was matched
        (``identifier`` or ``text``); (None, None) for a paper not seen before.
        """
        for identifier in identifiers.items():
            found = self.by_identifier.get(identifier)
            if found is not None and paper["dump"] not in self.dumps[found]:
                return found, "identifier"
        if paper["id"] in self.dumps:
            return paper["id"], "text"
        found = self.by_text_key.get(key)
        if found is None or paper["dump"] in self.dumps[found]:
            return None, None
        known = self.identifiers[found]
        if any(known.get(kind, value) != value for kind, value in identifiers.items()):
            return None, None  # the same text, but papers the identifiers tell apart
        return found, "text"

    def add(self, corpus_id: str, dump: str, identifiers: dict[str, str], key: str) -> None:
        """Record that corpus paper ``corpus_id`` is in ``dump``, with these identifiers and key."""
        self.dumps.setdefault(corpus_id, []).append(dump)
        known = self.identifiers.setdefault(corpus_id, {})
        for kind, value in identifiers.items():
            known.setdefault(kind, value)
            self.by_identifier.setdefault((kind, value), corpus_id)
        self.by_text_key.setdefault(key, corpus_id)


def merge_dumps(dumps: list[tuple[dict, list[dict]]]) -> tuple[list[dict], dict]:
    """Merge ``(summary, papers)`` pairs, in the given order, into corpus papers and a summary.

    A paper found in several dumps is kept once, at its first occurrence, with every dump
    that holds it listed in ``dumps``. Each dump's row says how many of its papers were in an
    earlier dump (and matched how), and how many it shares with any other dump.
    """
    corpus: dict[str, dict] = {}
    index = PaperIndex()
    dump_rows = []
    for summary, papers in dumps:
        matched = Counter()
        for paper in papers:
            identifiers = paper_identifiers(paper, summary.get("format", ""))
            key = text_key(paper["abstract"])
            found, how = index.find(paper, identifiers, key)
            if found is None:
                corpus[paper["id"]] = {**paper, "dumps": [paper["dump"]]}
                found = paper["id"]
            else:
                corpus[found]["dumps"].append(paper["dump"])
                matched[how] += 1
            index.add(found, paper["dump"], identifiers, key)
        dump_rows.append(
            {
                **summary,
                "also_in_earlier_dumps": matched.total(),
                "matched_by_identifier": matched["identifier"],
                "matched_by_text": matched["text"],
            }
        )
    shared = Counter(dump for paper in corpus.values() if len(paper["dumps"]) > 1 for dump in paper["dumps"])
    for row in dump_rows:
        row["shared_with_other_dumps"] = shared[row["dump"]]
    papers = list(corpus.values())
    summary = {
        "papers": len(papers),
        "dumps": dump_rows,
        "duplicates_across_dumps": sum(row["also_in_earlier_dumps"] for row in dump_rows),
        "matched_across_dumps": {
            how: sum(row[f"matched_by_{how}"] for row in dump_rows) for how in ("identifier", "text")
        },
    }
    return papers, summary
