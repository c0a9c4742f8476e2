"""Merge parsed dumps into one corpus, keeping each paper once.

Records are one paper (:mod:`papertopics.ingest.identity`) where they share an identifier (DOI,
arXiv id, PubMed id, WoS UT, OpenAlex id, Scopus EID) and their texts agree, within a dump as
across dumps; else, records of different dumps, where their abstracts are the same text (their
text keys) and they carry no identifier of one kind with different values. Joins chain (A and B by
DOI, B and C by PubMed id: one paper), and each is decided in an order of the records' own dump
names and ids, so neither the dumps' order nor their records' changes which records are one
paper; the paper is kept at its first record in the dumps' order. An identifier whose records
are papers the texts tell apart stays on each, and the summary counts such identifiers
(``identifier_conflicts``).
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass

from papertopics.ingest.identity import (
    IDENTIFIER_KINDS,
    IDENTIFIER_NAMES,
    NO_TEXT_KEY,
    ComparableText,
    comparable_text,
    paper_identifiers,
    text_key,
    texts_agree,
    titles_differ,
)


@dataclass(frozen=True, slots=True)
class _Record:
    """A parsed paper as the merge reads it: its dump's place in the order, identifiers and text key
    (None for an abstract with no letter or digit, which matches nothing).
    """

    paper: dict
    dump_index: int
    identifiers: dict[str, str]
    key: str | None


class _Papers:
    """The records joined into papers (a disjoint-set forest), with each paper's identifiers and dumps."""

    def __init__(self, records: list[_Record]):
        self.records = records
        self.parent = list(range(len(records)))
        self.identifiers = [dict(record.identifiers) for record in records]
        self.dumps = [{record.dump_index} for record in records]
        self._titles: dict[int, str] = {}

    def find(self, record: int) -> int:
        """The paper (its root record) that ``record`` is part of."""
        while self.parent[record] != record:
            self.parent[record] = self.parent[self.parent[record]]
            record = self.parent[record]
        return record

    def join(self, first: int, second: int) -> None:
        """Make the papers of two records one."""
        root, other = sorted((self.find(first), self.find(second)))
        if root == other:
            return
        self.parent[other] = root
        for kind, value in self.identifiers[other].items():
            self.identifiers[root].setdefault(kind, value)
        self.dumps[root] |= self.dumps[other]

    def _raw_title(self, record: int) -> str:
        return str(self.records[record].paper.get("title") or "")

    def title(self, record: int) -> str:
        """A record's title as titles are compared (made once, for the records compared)."""
        if record not in self._titles:
            self._titles[record] = comparable_text(self._raw_title(record))
        return self._titles[record]

    def join_agreeing(self, members: list[int]) -> None:
        """Join the records sharing one identifier whose texts agree: those of one abstract text
        and one title, as written, at once, and one record of each such text with each other's
        where they are not one paper yet.
        """
        first_of_text: dict[object, int] = {}
        for record in members:
            key = self.records[record].key
            text = (key, self._raw_title(record)) if key is not None else ("no abstract", record)
            self.join(first_of_text.setdefault(text, record), record)
        if len(first_of_text) == 1:  # the same text everywhere (a paper in many exports): nothing to compare
            return
        texts = {record: ComparableText.of(self.records[record].paper) for record in first_of_text.values()}
        # Every pair: a group is the few records of one paper, or of the few papers one identifier
        # wrongly names (1,000 records of distinct papers on one DOI: about 8 seconds).
        for first, second in itertools.combinations(texts, 2):
            if self.find(first) != self.find(second) and texts_agree(texts[first], texts[second]):
                self.join(first, second)

    def join_same_text(self, members: list[int]) -> None:
        """Join each record of one abstract text to the first earlier one it may be one paper with:
        their titles do not tell them apart, their papers are in no dump both, and they carry no
        identifier of one kind with different values.
        """
        for position, record in enumerate(members):
            for earlier in members[:position]:
                if self._may_join_by_text(record, earlier):
                    self.join(record, earlier)
                    break

    def _may_join_by_text(self, first: int, second: int) -> bool:
        root, other = self.find(first), self.find(second)
        if root == other or self.dumps[root] & self.dumps[other]:
            return False
        if self._raw_title(first) != self._raw_title(second) and titles_differ(
            self.title(first), self.title(second)
        ):
            return False
        known = self.identifiers[root]
        return all(known.get(kind, value) == value for kind, value in self.identifiers[other].items())


def _records(dumps: list[tuple[dict, list[dict]]]) -> list[_Record]:
    records = []
    for dump_index, (summary, papers) in enumerate(dumps):
        dump_format = summary.get("format", "")
        for paper in papers:
            key = text_key(paper.get("abstract") or "")
            identifiers = paper_identifiers(paper, dump_format)
            records.append(_Record(paper, dump_index, identifiers, None if key == NO_TEXT_KEY else key))
    return records


def _joined(records: list[_Record]) -> tuple[_Papers, dict[tuple[str, str], list[int]]]:
    """The records joined into papers, by identifier where their texts agree, then by text; and
    the records of each identifier. Each join is decided in an order of the records' contents
    (dump name, paper id), not of their places in the input.
    """
    papers = _Papers(records)
    order = sorted(
        range(len(records)), key=lambda r: (records[r].paper["dump"], str(records[r].paper.get("id")), r)
    )
    by_identifier, by_key = defaultdict(list), defaultdict(list)
    for record in order:
        for identifier in records[record].identifiers.items():
            by_identifier[identifier].append(record)
        if records[record].key is not None:
            by_key[records[record].key].append(record)
    for members in by_identifier.values():
        if len(members) > 1:
            papers.join_agreeing(members)
    for members in by_key.values():
        papers.join_same_text(members)
    return papers, by_identifier


def _example(record: _Record) -> dict:
    """Where a record is and what it is called, for a message."""
    paper = record.paper
    return {
        "dump": paper["dump"],
        "location": paper.get("location", ""),
        "title": str(paper.get("title") or paper.get("display_name") or paper.get("abstract", "")[:80]),
    }


def _conflicts(papers: _Papers, by_identifier: dict) -> dict:
    """The identifiers whose records are more than one paper: how many (identifiers on the very
    same records counted once: an arXiv DOI and the arXiv id it gives), and the first (the one
    whose earliest record comes first in the dumps' order) with a record of each of its first two
    papers.
    """
    conflicts = {}
    for (kind, value), members in by_identifier.items():
        first_record = {}
        for record in sorted(members):
            first_record.setdefault(papers.find(record), record)
        if len(first_record) > 1:
            found = (min(members), IDENTIFIER_KINDS.index(kind), value, sorted(first_record.values()))
            conflicts[frozenset(members)] = min(found, conflicts.get(frozenset(members), found))
    if not conflicts:
        return {"identifiers": 0, "first": None}
    _, kind, value, named = min(conflicts.values())
    return {
        "identifiers": len(conflicts),
        "first": {
            "identifier": {"kind": IDENTIFIER_KINDS[kind], "value": value},
            "papers": len(named),
            "records": [_example(papers.records[record]) for record in named[:2]],
        },
    }


def merge_dumps(dumps: list[tuple[dict, list[dict]]]) -> tuple[list[dict], dict]:
    """Merge ``(summary, papers)`` pairs, in the given order, into corpus papers and a summary.

    A paper found in several records is kept once, at its first record, with every dump that
    holds it listed in ``dumps``. Each dump's row says how many of its papers were in an earlier
    dump (and matched how: by identifier, directly or through another record, or by text), how
    many were one paper with an earlier record of the same dump (``merged_within_dump``), and how
    many it shares with any other dump.
    """
    records = _records(dumps)
    papers, by_identifier = _joined(records)
    members_of = defaultdict(list)
    for record in range(len(records)):
        members_of[papers.find(record)].append(record)
    corpus, matched, merged_within = [], defaultdict(Counter), Counter()
    for members in members_of.values():
        dumps_seen, identifiers_seen, keys_seen = {}, set(), set()
        for record in members:
            found = records[record]
            if found.dump_index in dumps_seen:
                merged_within[found.dump_index] += 1
            elif dumps_seen:
                shares_identifier = bool(identifiers_seen & found.identifiers.items())
                by_text = found.key is not None and found.key in keys_seen and not shares_identifier
                matched[found.dump_index]["text" if by_text else "identifier"] += 1
            dumps_seen.setdefault(found.dump_index, found.paper["dump"])
            identifiers_seen |= found.identifiers.items()
            keys_seen.add(found.key)
        corpus.append({**records[members[0]].paper, "dumps": list(dumps_seen.values())})
    shared = Counter(dump for paper in corpus if len(paper["dumps"]) > 1 for dump in paper["dumps"])
    dump_rows = [
        {
            **summary,
            "also_in_earlier_dumps": matched[index].total(),
            "matched_by_identifier": matched[index]["identifier"],
            "matched_by_text": matched[index]["text"],
            "merged_within_dump": merged_within[index],
            "shared_with_other_dumps": shared[summary["dump"]],
        }
        for index, (summary, _) in enumerate(dumps)
    ]
    summary = {
        "papers": len(corpus),
        "dumps": dump_rows,
        "duplicates_across_dumps": sum(row["also_in_earlier_dumps"] for row in dump_rows),
        "merged_within_dumps": merged_within.total(),
        "matched_across_dumps": {
            how: sum(row[f"matched_by_{how}"] for row in dump_rows) for how in ("identifier", "text")
        },
        "identifier_conflicts": _conflicts(papers, by_identifier),
    }
    return corpus, summary


def identifier_conflict_note(summary: dict) -> str | None:
    """What the run says, once, of identifiers that name more than one paper (the corpus summary's
    ``identifier_conflicts``): how many, and the first, with two of its papers; None where none.
    """
    conflicts = summary.get("identifier_conflicts") or {}
    count = conflicts.get("identifiers", 0)
    if not count:
        return None
    first = conflicts["first"]
    identifier = f"{IDENTIFIER_NAMES[first['identifier']['kind']]} {first['identifier']['value']}"
    on = " and on ".join(
        f"{' '.join(filter(None, (r['dump'], r['location'])))} “{r['title']}”" for r in first["records"]
    )
    more = first["papers"] - 2
    more = f" (and {more} more {'paper' if more == 1 else 'papers'})" if more else ""
    return (
        f"{count:,} {'identifier' if count == 1 else 'identifiers'} named more than one paper whose titles and "
        f"abstracts disagree: each paper was kept, with the identifier. The first: {identifier} on {on}{more}."
    )
