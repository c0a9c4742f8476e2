"""Build the keyphraseness table the labeller ships (``papertopics.topics.keyphraseness``) from the
keyword-bearing corpora under ../shared/corpora/: each 1-4-word phrase, the papers whose title or
abstract holds it, and how many of those list it as a keyword. Only counts are written, no text.

    PYTHONPATH=workflow:. python -m bench.keyphraseness_table [--corpora DIR]

The leave-one-corpus-out bench (bench/labels-loco.md) builds the same table without the held-out
venue's papers (``build(excluded)``).
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

from papertopics.topics.keyphraseness import TABLE, Keyphraseness, count

CORPORA = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
# (text file, keyword file or None where the text file carries them, what its keywords are)
SOURCES = (
    ("openreview_free_keywords.jsonl.gz", None, "COLM 2024-25 and CoRL 2021-25 authors' free keywords"),
    ("keyword_lists_3dv_ai4x_2025.jsonl.gz", None, "3DV and AI4X 2025 authors' free keywords"),
    ("ijcai_2020_2024_areas.jsonl.gz", "ijcai_2020_2024_keywords.jsonl.gz", "IJCAI 2020-24 sub-areas"),
)
# The table keeps every phrase that is a keyword once, and the others this many papers write
# (what says "a frequent phrase, never a name").
LEAST_TEXT_PAPERS = 10


def _records(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def build(corpora: Path = CORPORA, excluded: frozenset[str] = frozenset()) -> Keyphraseness:
    """The counts over every source's papers but those of the ``excluded`` venues."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    table = Keyphraseness()
    for text_file, keyword_file, _ in SOURCES:
        papers = [p for p in _records(corpora / text_file) if p.get("venue") not in excluded]
        if keyword_file is not None:
            listed = {r["id"]: r["keywords"] for r in _records(corpora / keyword_file)}
            papers = [{**p, "keywords": listed.get(p["id"], [])} for p in papers]
        keywords, titles = [p.get("keywords") or [] for p in papers], [p.get("title") or "" for p in papers]
        table += count([p["abstract"] for p in papers], keywords, frozenset(ENGLISH_STOP_WORDS), titles)
    return table


def header() -> list[str]:
    """The table's provenance and licence, as its header lines."""
    return [
        "Keyphraseness of 1-4-word phrases: of the papers whose title or abstract holds the phrase",
        "(text_papers), those whose authors list it as a keyword (keyword_papers). Built by",
        "bench/keyphraseness_table.py from these corpora (papercopilot/paperlists at 33f9884):",
        *(f"  {name}: {what}" for name, _, what in SOURCES),
        "Counts derived from the papers' keywords and text (facts and figures); no title or abstract",
        "is included. The papers' text belongs to their authors; these counts are shipped under the",
        "project's licence.",
    ]


def write(table: Keyphraseness, path: Path, header: list[str], least_text: int) -> None:
    """The table as gzip TSV (phrase, keyword papers, text papers) under ``#`` header lines: every
    phrase that is a keyword at least once, and those at least ``least_text`` papers write.
    """
    rows = sorted(key for key, n in table.text.items() if table.keyword[key] or n >= least_text)
    with gzip.GzipFile(path, "wb", mtime=0) as raw:
        lines = [f"# {line}" for line in header] + ["phrase\tkeyword_papers\ttext_papers"]
        lines += [f"{' '.join(key)}\t{table.keyword[key]}\t{table.text[key]}" for key in rows]
        raw.write(("\n".join(lines) + "\n").encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--output", type=Path, default=TABLE)
    args = parser.parse_args()
    table = build(args.corpora)
    write(table, args.output, header(), LEAST_TEXT_PAPERS)
    print(f"{args.output}: {args.output.stat().st_size} bytes, {len(table.keyword)} keyword phrases")


if __name__ == "__main__":
    main()
