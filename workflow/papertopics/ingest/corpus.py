"""Merge parsed dumps into one corpus, keeping each abstract once across dumps."""

from __future__ import annotations


def merge_dumps(dumps: list[tuple[dict, list[dict]]]) -> tuple[list[dict], dict]:
    """Merge ``(summary, papers)`` pairs, in the given order, into corpus papers and a summary.

    A paper found in several dumps is kept once, at its first occurrence, with every dump
    that holds it listed in ``dumps``.
    """
    corpus: dict[str, dict] = {}
    dump_rows = []
    for summary, papers in dumps:
        repeated_from_earlier_dumps = 0
        for paper in papers:
            if paper["id"] in corpus:
                corpus[paper["id"]]["dumps"].append(paper["dump"])
                repeated_from_earlier_dumps += 1
            else:
                corpus[paper["id"]] = {**paper, "dumps": [paper["dump"]]}
        dump_rows.append({**summary, "also_in_earlier_dumps": repeated_from_earlier_dumps})
    papers = list(corpus.values())
    summary = {
        "papers": len(papers),
        "dumps": dump_rows,
        "duplicates_across_dumps": sum(row["also_in_earlier_dumps"] for row in dump_rows),
    }
    return papers, summary
