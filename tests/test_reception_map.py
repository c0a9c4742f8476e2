"""The map's reception colourings on real papers (COLM and CoRL with their decisions, reviewers'
ratings and citations, written into the papers table as the parse stage writes them): each paper's
class is its decision, its fifth of the ratings, or its citations against its year's mean.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
from conftest import require_corpus
from papertopics.report.reception_map import map_colourings
from papertopics.report.reception_record import left_out_columns

RECORD = {
    "available": True,
    "in_report": True,
    "fields": {"decision": "decision", "ratings": "ratings", "citations": "citations"},
}


def _papers() -> pd.DataFrame:
    with gzip.open(require_corpus("openreview_metadata.jsonl.gz"), "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines][::6]
    table = pd.DataFrame(
        {
            "id": [r["id"] for r in records],
            "dump": "openreview",
            "year": [r["year"] for r in records],
            "decision": [r["decision"] for r in records],
            "ratings": ["; ".join(f"{x:g}" for x in r["ratings"] or []) for r in records],
            "citations": ["" if r["citations"] is None else str(r["citations"]) for r in records],
        }
    )
    table.loc[::10, "decision"] = ""  # papers an export gives no decision, rating or count
    table.loc[1::10, "ratings"] = ""
    table.loc[2::10, "citations"] = ""
    return table


def test_each_paper_takes_its_decisions_rating_fifths_and_citations_for_its_year_class():
    papers = _papers()
    by_key = {colouring["key"]: colouring for colouring in map_colourings(RECORD, papers)}
    assert list(by_key) == ["decision", "rating", "citations"]

    decision = by_key["decision"]
    assert decision["names"] == ["Poster", "Oral"]  # most frequent first
    named = [decision["names"][c] if c >= 0 else "" for c in decision["of_paper"]]
    assert named == papers["decision"].tolist()

    rating = by_key["rating"]
    means = papers["ratings"].map(
        lambda text: np.mean([float(x) for x in text.split("; ")]) if text else np.nan
    )
    classes = np.array(rating["of_paper"])
    assert (classes[means.isna().to_numpy()] == -1).all() and len(rating["names"]) == 5
    rated = ~means.isna().to_numpy()
    # Ordered classes: every paper of a higher class has a higher mean than every one of a lower class.
    highest = [means[rated & (classes == c)].max() for c in range(5)]
    lowest = [means[rated & (classes == c)].min() for c in range(5)]
    assert all(highest[c] <= lowest[c + 1] for c in range(4))
    assert max(np.bincount(classes[rated])) < 0.35 * rated.sum()  # about a fifth each, ties aside

    citations = by_key["citations"]
    counts = pd.to_numeric(papers["citations"], errors="coerce")
    year_mean = counts.groupby(papers["year"]).transform("mean")
    expected = [
        -1 if np.isnan(c) else 0 if c == 0 else 1 + int(np.searchsorted([0.5, 1.0, 2.0], c / m, side="right"))
        for c, m in zip(counts, year_mean, strict=True)
    ]
    assert citations["of_paper"] == expected and 0 < expected.count(4) < len(expected)


def test_a_copy_to_share_colours_by_citations_only_and_a_run_without_reception_by_nothing_new():
    papers = _papers()
    shared = {**RECORD, "in_report": False}
    kept = papers.drop(columns=left_out_columns(shared))  # as the report's inputs drop them
    assert [c["key"] for c in map_colourings(shared, kept)] == ["citations"]
    assert map_colourings({**RECORD, "available": False}, papers) == []
    assert map_colourings(None, papers) == []
