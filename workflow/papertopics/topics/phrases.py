"""The phrases of a paper that may name a topic: the labeller's reading of a text.

A paper's candidates are its phrases of one to four words, read as the keyword vectorizer reads
text (``papertopics.text.keyword_text``: lower case, never across a punctuation mark), but for a
hyphenated compound with a stop word in it, read as one word ("few-shot", "re-identification",
"out-of-distribution": the vectorizer would drop "few" and leave "shot learning"), plural forms
counted together: no stop word, number or ``NOT_NAME_WORDS`` word at either end, no stop word
inside but for "X of Y" and "X and Y" ("vision and language"), no "-ed" word at the end. Of each,
the reading also notes what the phrase table (``papertopics.topics.phrase_table``) judges a name
by: whether the paper uses it as a noun phrase, whether a data-set word follows it, whether it
first comes late in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from papertopics.text import keyword_text, singular

MAX_PHRASE_WORDS = 4
# Words that never begin or end a name, beyond the stop words.
NOT_NAME_WORDS = frozenset(
    {"like", "via", "using", "based", "novel", "proposed", "propose", "existing", "new", "various"}
    | {"different", "et", "al"}
)
_JOINING_WORDS = frozenset({"of", "and"})
# A phrase right after one of these is a verb or its object ("to detect anomalies").
VERB_CONTEXT = frozenset(
    {"to", "we", "can", "cannot", "could", "may", "might", "will", "would", "should", "must", "which"}
    | {"that", "also", "not"}
)
DATASET_WORDS = frozenset({"dataset", "datasets", "benchmark", "benchmarks", "corpus", "corpora"})
# What an abstract is about comes early: a phrase first used after this share of its words is late.
LATE_POSITION = 0.6
# Numbers, and words with digits ("ef1", "resnet50", "human3"), but for dimensions ("2d", "3d").
_NUMBER = re.compile(r"^(?!\d+d$).*\d")
ID_SUFFIX = re.compile(r" \(topic \d+\)$")
_COMPOUND = re.compile(r"\w+(?:-\w+)+")
# Joins a compound's parts inside one token of the vectorizer's pattern; shown as a hyphen again.
_COMPOUND_JOIN = "_"

Key = tuple[str, ...]


def _join_compound(match: re.Match) -> str:
    parts = match.group().split("-")
    return _COMPOUND_JOIN.join(parts) if ENGLISH_STOP_WORDS.intersection(parts) else match.group()


def phrase_words(text: str) -> str:
    """Text as the labeller reads it: as the keyword vectorizer does (``papertopics.text.keyword_text``), but
    for a hyphenated compound with a stop word in it, kept as one word.
    """
    return keyword_text([_COMPOUND.sub(_join_compound, text.lower())])


def shown(words: list[str]) -> str:
    """Words as a label shows them, a compound's hyphens back."""
    return " ".join(words).replace(_COMPOUND_JOIN, "-")


def phrase_key(phrase: str) -> Key:
    """A phrase as counted: its words as the labeller reads them, each in its singular form."""
    return tuple(singular(word) for word in phrase_words(phrase).split())


def label_phrases(label: str) -> list[str]:
    """The phrases of a label ("graph neural networks, node classification"), without a "(topic N)"."""
    return [phrase for phrase in ID_SUFFIX.sub("", label).split(", ") if phrase]


def label_key(label: str) -> frozenset:
    """What makes two labels the same: their phrases, up to plurals and order."""
    return frozenset(phrase_key(p) for p in label_phrases(label))


@dataclass
class PaperPhrases:
    """A paper's candidate phrases: key → the form it uses, those it uses as a noun phrase at
    least once, those a data-set word always follows and those it first uses late (the module's
    docstring).
    """

    forms: dict[Key, str] = field(default_factory=dict)
    nominal: set[Key] = field(default_factory=set)
    before_dataset: set[Key] = field(default_factory=set)
    late: set[Key] = field(default_factory=set)


class Word(NamedTuple):
    """A word as the labeller reads it."""

    text: str
    singular: str
    stop: bool
    begins: bool  # can begin a name
    ends: bool  # can end a name


# A run of words between punctuation marks; its ``Word`` objects are shared by every paper using them.
Stretch = tuple[Word, ...]


def paper_words(
    text: str, stop_words: frozenset[str], vocabulary: dict[str, Word] | None = None
) -> list[Stretch]:
    """A paper's text as the labeller reads it, in stretches between punctuation marks.
    ``vocabulary``, shared by many papers, reads each word once and keeps one copy of it.
    """
    vocabulary = {} if vocabulary is None else vocabulary
    stretches = []
    for stretch in phrase_words(text).split("\n"):
        known = []
        for text_word in stretch.split():
            word = vocabulary.get(text_word)
            if word is None:
                word = vocabulary[text_word] = _read_word(text_word, stop_words)
            known.append(word)
        stretches.append(tuple(known))
    return stretches


def _read_word(word: str, stop_words: frozenset[str]) -> Word:
    stop = word in stop_words
    begins = not stop and not _NUMBER.match(word) and word not in NOT_NAME_WORDS
    past_participle = word.endswith("ed") and not word.endswith("eed")
    return Word(word, singular(word), stop, begins, begins and not past_participle)


def _spans(stretch: Stretch, longest: int) -> list[tuple[int, int]]:
    """(start, end) of each run of words in the stretch that may name a topic: no stop word
    inside but for "X of Y" and "X and Y".
    """
    spans = []
    for start, first in enumerate(stretch):
        if not first.begins:
            continue
        inner_stop = False
        for end in range(start + 1, min(start + longest, len(stretch)) + 1):
            if end >= start + 3:
                inner_stop = inner_stop or stretch[end - 2].stop
                if inner_stop and not (end - start == 3 and stretch[start + 1].text in _JOINING_WORDS):
                    break
            if stretch[end - 1].ends:
                spans.append((start, end))
    return spans


def phrase_keys(stretches: list[Stretch], longest: int = MAX_PHRASE_WORDS) -> set[Key]:
    """The keys of the paper's candidate phrases (``paper_phrases``' ``forms``, without the rest)."""
    return {
        tuple(word.singular for word in stretch[start:end])
        for stretch in stretches
        for start, end in _spans(stretch, longest)
    }


def paper_phrases(
    text: str | list[Stretch],
    stop_words: frozenset[str],
    longest: int = MAX_PHRASE_WORDS,
    only: set[Key] | None = None,
) -> PaperPhrases:
    """Each phrase of 1..``longest`` words of a paper's text (or its ``paper_words``) that may name
    a topic (the rules are in the module's docstring); of those in ``only``, when given.
    """
    stretches = paper_words(text, stop_words) if isinstance(text, str) else text
    found = PaperPhrases()
    total = sum(len(stretch) for stretch in stretches)
    position = 0
    early: set[Key] = set()
    named_otherwise: set[Key] = set()
    for stretch in stretches:
        words = [word.text for word in stretch]
        for start, end in _spans(stretch, longest):
            key = tuple(word.singular for word in stretch[start:end])
            if only is not None and key not in only:
                continue
            if key not in found.forms:
                found.forms[key] = shown(words[start:end])
            if position + start < LATE_POSITION * total:
                early.add(key)
            following = words[end] if end < len(words) else None
            if following in DATASET_WORDS:
                found.before_dataset.add(key)
            else:
                named_otherwise.add(key)
            ends_here = following is None or stretch[end].stop
            if ends_here and (start == 0 or words[start - 1] not in VERB_CONTEXT):
                found.nominal.add(key)
        position += len(words)
    found.late = found.forms.keys() - early
    found.before_dataset -= named_otherwise
    return found


def phrase_parts(key: Key) -> list[str]:
    """A phrase's words, a compound's parts each a word of its own ("few-shot" is "few", "shot")."""
    return [part for word in key for part in word.split(_COMPOUND_JOIN) if part]


def phrase_initials(key: Key) -> str:
    """A phrase's initials ("asp" for answer set programming)."""
    return "".join(word[0] for word in phrase_parts(key))
