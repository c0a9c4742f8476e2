"""Keyphraseness: of the papers whose title or abstract holds a phrase, the share whose authors
also list it as a keyword (Frank et al. 1999, KEA; Mihalcea and Csomai 2007): which phrases a
field uses as names. "program synthesis" is a keyword in many of the papers that write it,
"program" in almost none.

The table shipped, ``keyphraseness.tsv.gz`` beside this module, is built by
``bench/keyphraseness_table.py`` from the keyword-bearing corpora (its header names them and
their licence); a run whose input carries its authors' keywords adds its own papers' counts
(``count``). Phrases are read as the labeller reads them (``phrases.phrase_keys``: 1-4 words,
singular), keywords as phrases too, with what they put in parentheses ("PEFT") and the parts
they join with commas.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from papertopics.topics.phrases import Key, paper_words, phrase_key, phrase_keys

TABLE = Path(__file__).with_name("keyphraseness.tsv.gz")
# A word is a name on its own where at least this many papers list it alone as a keyword and at
# least this share of the papers writing it do (bench/labels-loco.md, "Keyphraseness").
ALONE_KEYWORD_PAPERS = 3
ALONE_RATIO = 0.02
PARENTHESISED = re.compile(r"\(([^()]*)\)")


def keyword_keys(keyword: str) -> set[Key]:
    """The phrases a keyword names: itself without its parentheses, what they hold, each comma part."""
    plain = PARENTHESISED.sub(" ", keyword)
    parts = [plain, *PARENTHESISED.findall(keyword), *plain.split(",")]
    return {phrase_key(part) for part in parts} - {()}


@dataclass(frozen=True)
class Keyphraseness:
    """Papers listing each phrase as a keyword (``keyword``), of those whose text holds it (``text``)."""

    keyword: Counter = field(default_factory=Counter)
    text: Counter = field(default_factory=Counter)

    def __add__(self, other: Keyphraseness) -> Keyphraseness:
        """Both tables' papers counted together."""
        return Keyphraseness(self.keyword + other.keyword, self.text + other.text)

    def ratio(self, key: Key) -> float:
        """The phrase's keyphraseness: the share of the papers writing it that list it."""
        return self.keyword[key] / self.text[key] if self.text[key] else 0.0

    def names_alone(self, key: Key) -> bool:
        """Whether the field uses a phrase alone as a name (``ALONE_KEYWORD_PAPERS``, ``ALONE_RATIO``)."""
        return self.keyword[key] >= ALONE_KEYWORD_PAPERS and self.ratio(key) >= ALONE_RATIO


def count(
    texts: list[str], keywords: list[list[str]], stop_words: frozenset[str], titles: list[str] | None = None
) -> Keyphraseness:
    """The counts of the papers with keywords, each paper's title (``titles``) read with its text."""
    found = Keyphraseness()
    for text, listed, title in zip(texts, keywords, titles or [""] * len(texts), strict=True):
        if not listed:
            continue
        held = phrase_keys(paper_words(f"{title}.\n{text}", stop_words))
        named = set().union(*(keyword_keys(k) for k in listed))
        found.text.update(held)
        found.keyword.update(held & named)
    return found


@lru_cache(maxsize=4)
def load(path: Path = TABLE) -> Keyphraseness:
    """A table ``bench/keyphraseness_table.py`` wrote (the shipped one by default), read once."""
    table = Keyphraseness()
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#") or line.startswith("phrase\t"):
                continue
            phrase, keyword, text = line.rstrip("\n").split("\t")
            key = tuple(phrase.split(" "))
            table.keyword[key], table.text[key] = int(keyword), int(text)
    return table
