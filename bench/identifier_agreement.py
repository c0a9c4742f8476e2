"""Where two records sharing an identifier are one paper: the similarity of the same paper's texts
against that of distinct papers' (``make bench-identifier-agreement``), the figures behind
``papertopics.ingest.identity.TEXT_AGREES`` and ``TEXT_DIFFERS``.

The same paper: (1) each of the 40 papers of tests/test_exports_merge.py as two of the nine
exports give it (tests/export_writers.py, parsed as the pipeline parses them; 36 pairs each);
(2) the papers that two shared corpora both hold, as arXiv and a venue (COLM, CoRL, 3DV, AISTATS,
IJCAI) give them: the pairs of records of different corpora whose titles are the same after
normalisation, or whose abstracts share at least 0.9 of their words (a retitled version).
Distinct papers: within each corpus (its records are distinct papers; the OpenReview free-keyword
file, the same papers as the OpenReview metadata, is left out), each paper with its 3 nearest
others by title (TF-IDF of character 3-grams) and its 3 nearest by abstract (TF-IDF of words):
the most alike distinct papers there are; and 20,000 pairs drawn at random. For each set: the
similarities' range and how many pairs ``texts_agree`` calls one paper. Writes
bench/identifier-agreement.md and .json.
"""

from __future__ import annotations

import gzip
import itertools
import json
import random
import re
import tempfile
from pathlib import Path

import numpy as np
from papertopics.ingest.identity import (
    TEXT_AGREES,
    TEXT_DIFFERS,
    ComparableText,
    abstract_similarity,
    texts_agree,
    title_similarity,
)
from papertopics.ingest.parse import parse_dump

from bench.common import BENCH, CORPORA
from tests.export_writers import write_exports

# The same papers as openreview_metadata's, with other fields.
LEFT_OUT = ("openreview_free_keywords",)
NEAREST = 3
RANDOM_PAIRS = 20_000
SHOWN = 6
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")


def corpus_records() -> dict[str, list[dict]]:
    """Each shared corpus's records that have a title and an abstract, by the corpus's name."""
    corpora = {}
    for path in sorted(CORPORA.glob("*.jsonl.gz")):
        name = path.name.split(".")[0]
        if name in LEFT_OUT:
            continue
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            records = [
                record for record in map(json.loads, lines) if record.get("title") and record.get("abstract")
            ]
        if records:
            corpora[name] = records
    return corpora


def pair_row(first: dict, second: dict, texts: dict[int, ComparableText]) -> dict:
    """Two records' similarities and whether their texts agree."""
    a, b = texts[id(first)], texts[id(second)]
    return {
        "ids": [str(first.get("id", "")), str(second.get("id", ""))],
        "titles": [first["title"], second["title"]],
        "title": round(title_similarity(a.title, b.title), 3),
        "abstract": round(abstract_similarity(a.abstract_words, b.abstract_words), 3),
        "agree": texts_agree(a, b),
    }


def export_pairs(arxiv_records: list[dict]) -> list[dict]:
    """tests/test_exports_merge.py's 40 papers (the corpus's first 30 without a LaTeX command and
    first 10 with one, braces balanced), as every two of the nine exports give them.
    """
    plain, latex = [], []
    for record in arxiv_records:
        if record["abstract"].count("{") != record["abstract"].count("}"):
            continue
        chosen = latex if _LATEX_COMMAND.search(record["abstract"]) else plain
        if len(chosen) < (10 if chosen is latex else 30):
            chosen.append(record)
    chosen = sorted(plain + latex, key=lambda r: r["id"])
    papers = [
        {
            "arxiv": r["id"].removeprefix("arXiv:"),
            "title": r["title"],
            "abstract": r["abstract"],
            "year": r["year"],
        }
        for r in chosen
    ]
    with tempfile.TemporaryDirectory() as folder:
        exports = [
            parse_dump(path, min_abstract_chars=20).papers
            for path in write_exports(Path(folder), papers, set())
        ]
    texts = {id(paper): ComparableText.of(paper) for export in exports for paper in export}
    return [
        pair_row(first[position], second[position], texts)
        for first, second in itertools.combinations(exports, 2)
        for position in range(len(papers))
    ]


def same_paper_pairs(corpora: dict[str, list[dict]], texts: dict[int, ComparableText]) -> list[dict]:
    """Records of two corpora that are one paper: the same normalised title, or abstracts sharing
    at least 0.9 of their words (found among each arXiv record's nearest venue records by title).
    """
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.neighbors import NearestNeighbors

    arxiv = next(records for name, records in corpora.items() if name.startswith("arxiv"))
    venues = [
        record for name, records in corpora.items() if not name.startswith("arxiv") for record in records
    ]
    vectoriser = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 3)).fit(
        [r["title"] for r in arxiv + venues]
    )
    index = NearestNeighbors(n_neighbors=NEAREST, metric="cosine").fit(
        vectoriser.transform([r["title"] for r in venues])
    )
    _, nearest = index.kneighbors(vectoriser.transform([r["title"] for r in arxiv]))
    rows = []
    for record, neighbours in zip(arxiv, nearest, strict=True):
        for position in neighbours:
            row = pair_row(record, venues[position], texts)
            if texts[id(record)].title == texts[id(venues[position])].title or row["abstract"] >= 0.9:
                rows.append(row)
    return rows


def nearest_distinct_pairs(records: list[dict], texts: dict[int, ComparableText]) -> list[dict]:
    """Each record with its nearest others of the same corpus, by title and by abstract."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.neighbors import NearestNeighbors

    pairs = set()
    for field, vectoriser in (
        ("title", TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 3))),
        ("abstract", TfidfVectorizer(sublinear_tf=True)),
    ):
        vectors = vectoriser.fit_transform([r[field] for r in records])
        _, nearest = (
            NearestNeighbors(n_neighbors=NEAREST + 1, metric="cosine").fit(vectors).kneighbors(vectors)
        )
        pairs |= {(min(i, int(j)), max(i, int(j))) for i, row in enumerate(nearest) for j in row if i != j}
    return [pair_row(records[i], records[j], texts) for i, j in sorted(pairs)]


def figures(rows: list[dict]) -> dict:
    """The similarities' range over a set of pairs, and how many pairs the rule calls one paper."""
    titles, abstracts = np.array([r["title"] for r in rows]), np.array([r["abstract"] for r in rows])
    return {
        "pairs": len(rows),
        "title": {"min": float(titles.min()), "median": float(np.median(titles)), "max": float(titles.max())},
        "abstract": {
            "min": float(abstracts.min()),
            "median": float(np.median(abstracts)),
            "max": float(abstracts.max()),
        },
        "one_paper": sum(r["agree"] for r in rows),
    }


def margins(same: list[dict], distinct: list[dict]) -> dict:
    """What decides where one text is alike (at least ``TEXT_AGREES``): the other text's least
    similarity among the same paper's pairs and its greatest among distinct papers'.
    """
    found = {}
    for alike, other in (("title", "abstract"), ("abstract", "title")):
        same_other = [r[other] for r in same if r[alike] >= TEXT_AGREES]
        distinct_other = [r[other] for r in distinct if r[alike] >= TEXT_AGREES]
        found[f"{alike}_alike"] = {
            f"same_paper_least_{other}": min(same_other, default=None),
            "distinct_pairs": len(distinct_other),
            f"distinct_greatest_{other}": max(distinct_other, default=None),
        }
    return found


def main() -> None:
    corpora = corpus_records()
    texts = {id(record): ComparableText.of(record) for records in corpora.values() for record in records}
    arxiv = next(records for name, records in corpora.items() if name.startswith("arxiv"))
    distinct = [row for records in corpora.values() for row in nearest_distinct_pairs(records, texts)]
    draw = random.Random(0)
    everything = [record for records in corpora.values() for record in records]
    random_rows = [pair_row(*draw.sample(everything, 2), texts) for _ in range(RANDOM_PAIRS)]
    sets = {
        "same paper, two exports": export_pairs(arxiv),
        "same paper, two corpora": same_paper_pairs(corpora, texts),
        "distinct papers, nearest": distinct,
        "distinct papers, at random": random_rows,
    }
    record = {
        "text_agrees": TEXT_AGREES,
        "text_differs": TEXT_DIFFERS,
        "sets": {name: figures(rows) for name, rows in sets.items()},
        "margins": margins(
            [r for name in sets if name.startswith("same") for r in sets[name]],
            sets["distinct papers, nearest"],
        ),
        "same_paper_least_alike": sorted(
            sets["same paper, two corpora"], key=lambda r: min(r["title"], r["abstract"])
        )[:SHOWN],
        "distinct_most_alike_titles": sorted(distinct, key=lambda r: -r["title"])[:SHOWN],
        "distinct_most_alike_abstracts": sorted(distinct, key=lambda r: -r["abstract"])[:SHOWN],
        "distinct_called_one_paper": [r for r in distinct if r["agree"]],
        "same_paper_kept_apart": [
            r for name in sets if name.startswith("same") for r in sets[name] if not r["agree"]
        ],
    }
    (BENCH / "identifier-agreement.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    (BENCH / "identifier-agreement.md").write_text(markdown(record))


def _pair_line(row: dict) -> str:
    return f"| {row['titles'][0]} | {row['titles'][1]} | {row['title']:.3f} | {row['abstract']:.3f} | {'yes' if row['agree'] else 'no'} |"


def markdown(record: dict) -> str:
    """The record as bench/identifier-agreement.md."""
    lines = [
        "# Identifiers: when two records sharing one are one paper",
        "",
        "`make bench-identifier-agreement` (bench/identifier_agreement.py; the sets are in its account). "
        "Title: difflib's ratio of the normalised titles' letters; abstract: the share of words the two "
        "abstracts have in common (Jaccard). One paper where one is at least "
        f"{record['text_agrees']} and neither is under {record['text_differs']} "
        "(papertopics.ingest.identity.texts_agree).",
        "",
        "| pairs | count | title min / median / max | abstract min / median / max | called one paper |",
        "|---|---:|---|---|---:|",
    ]
    for name, found in record["sets"].items():
        title, abstract = found["title"], found["abstract"]
        lines.append(
            f"| {name} | {found['pairs']:,} | {title['min']:.3f} / {title['median']:.3f} / {title['max']:.3f} "
            f"| {abstract['min']:.3f} / {abstract['median']:.3f} / {abstract['max']:.3f} | {found['one_paper']:,} |"
        )
    lines += [
        "",
        f"Where one text is alike (at least {record['text_agrees']}), the other text's similarity decides:",
        "",
        "| alike | the other | same paper: least | distinct pairs so alike | distinct: greatest |",
        "|---|---|---:|---:|---:|",
    ]
    for alike, found in record["margins"].items():
        other = "abstract" if alike.startswith("title") else "title"
        least, greatest = found[f"same_paper_least_{other}"], found[f"distinct_greatest_{other}"]
        lines.append(
            f"| {alike.split('_')[0]} | {other} | {least:.3f} | {found['distinct_pairs']:,} | {greatest:.3f} |"
        )
    for heading, key in (
        ("The same paper in two corpora, least alike", "same_paper_least_alike"),
        ("Distinct papers with the most alike titles", "distinct_most_alike_titles"),
        ("Distinct papers with the most alike abstracts", "distinct_most_alike_abstracts"),
        ("Distinct papers called one paper", "distinct_called_one_paper"),
        ("The same paper kept apart", "same_paper_kept_apart"),
    ):
        lines += ["", f"## {heading}", ""]
        rows = record[key]
        if not rows:
            lines.append("none")
            continue
        lines += ["| title | other title | title | abstract | one paper |", "|---|---|---:|---:|---|"]
        lines += [_pair_line(row) for row in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
