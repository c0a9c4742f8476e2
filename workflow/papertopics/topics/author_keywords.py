"""The authors' own keywords as a topic's first label candidates (issue 50).

Where a dump carries keywords (an export's author keywords, MeSH or ``OT`` terms, a JSON or table
dump's ``keywords`` field: ``papertopics.ingest.parse.paper_keywords``), the names a topic's
authors chose for their papers come before any phrase of their text. A keyword is a candidate for
a topic when

- at least ``min_papers`` of the topic's papers carry it (``topics.label_keyword_min_papers``), read
  as the labeller reads a phrase (case, punctuation and plural endings set aside), without what it
  puts in parentheses ("Large Language Models (LLMs)" is "large language models"): one paper's
  keyword names that paper, not a topic;
- it is the topic's, not the corpus's (``phrase_table.concentrated``, as for a phrase of the text): the
  share of the papers carrying it that are the topic's is at least ``MIN_LIFT`` times the topic's
  share of the papers that carry keywords ("robotics", "deep learning" on a robotics corpus are not).

Candidates are ranked by how many of the topic's papers carry them: the name most of its authors
use first (ranking them as phrases are, precision first, put keywords of two papers first, and
putting those that agree with the c-TF-IDF keywords first did no better on papers whose keywords
were held out: docs/quality.md, "Labels"). In the label choice (``label_choice.topic_labels``) a
keyword a neighbouring topic carries in a larger share of its papers is left to it. A keyword is
shown in the form most of the topic's papers write it ("Large Language Models" where most write it
so). A topic with none is labelled from its papers' text as before.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from papertopics.mapping.cluster import OUTLIER
from papertopics.topics.keyphraseness import PARENTHESISED
from papertopics.topics.phrase_table import concentrated
from papertopics.topics.phrases import Key, label_phrases, phrase_key


def written_form(keyword: str) -> str:
    """A keyword as a label shows it: as written, without what it puts in parentheses."""
    return " ".join(PARENTHESISED.sub(" ", keyword).split())


# A corpus's papers repeat a few thousand keywords: each is read once.
@functools.lru_cache(maxsize=65536)
def keyword_key(keyword: str) -> Key:
    """A keyword as counted: its written form read as the labeller reads a phrase."""
    return phrase_key(written_form(keyword))


@dataclass(frozen=True)
class AuthorKeywords:
    """The authors' keywords counted in each topic (see the module's docstring)."""

    min_papers: int
    with_keywords: dict[int, int]  # topic → its papers that carry any keyword
    carried: dict[int, Counter]  # topic → keyword → its papers carrying it
    written: dict[int, dict[Key, Counter]]  # topic → keyword → form → its papers writing it so
    in_corpus: Counter  # keyword → papers carrying it, in any topic
    total: int  # papers in a topic that carry any keyword

    @classmethod
    def count(cls, keywords: list[list[str]], topics: np.ndarray, min_papers: int) -> AuthorKeywords:
        """``keywords``: each paper's, as its input gives them; ``topics``: each paper's topic."""
        with_keywords: Counter = Counter()
        carried: dict[int, Counter] = {}
        written: dict[int, dict[Key, Counter]] = {}
        for paper_keywords, topic in zip(keywords, np.asarray(topics).tolist(), strict=True):
            forms = {keyword_key(k): written_form(k) for k in sorted(paper_keywords)}
            forms.pop((), None)
            if topic == OUTLIER or not forms:
                continue
            with_keywords[topic] += 1
            carried.setdefault(topic, Counter()).update(forms.keys())
            for key, form in forms.items():
                written.setdefault(topic, {}).setdefault(key, Counter())[form] += 1
        in_corpus: Counter = Counter()
        for counts in carried.values():
            in_corpus.update(counts)
        return cls(min_papers, dict(with_keywords), carried, written, in_corpus, with_keywords.total())

    def coverage(self, topic: int, key: Key) -> float:
        """Share of the topic's papers with keywords that carry this one."""
        papers = self.with_keywords.get(topic, 0)
        return self.carried[topic][key] / papers if papers else 0.0

    def precision(self, topic: int, key: Key) -> float:
        """Share of the papers carrying the keyword that are the topic's."""
        everywhere = self.in_corpus[key]
        return self.carried.get(topic, Counter())[key] / everywhere if everywhere else 0.0

    def names(self, topic: int, key: Key) -> bool:
        """Whether the keyword can name the topic (the module's docstring)."""
        return (
            topic in self.carried
            and self.carried[topic][key] >= self.min_papers
            and concentrated(self.precision(topic, key), self.with_keywords[topic] / self.total)
        )

    def names_label(self, topic: int, label: str) -> bool:
        """Whether a label's first phrase is one of the keywords that can name the topic."""
        first = label_phrases(label)[:1]
        return bool(first) and self.names(topic, keyword_key(first[0]))

    def ranked(self, topic: int) -> list[Key]:
        """The keywords that can name the topic, those most of its papers carry first (ties: the
        more the topic's, then a-z).
        """
        carried = self.carried.get(topic, Counter())
        keys = [key for key in carried if self.names(topic, key)]
        return sorted(keys, key=lambda key: (-carried[key], -self.precision(topic, key), key))

    def form(self, topic: int, key: Key) -> str:
        """The form most of the topic's papers write the keyword in (ties: a-z)."""
        forms = self.written[topic][key]
        return max(sorted(forms), key=forms.__getitem__)
