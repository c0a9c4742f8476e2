"""Topic labels: one or two phrases that a researcher in the field would use for a topic.

Candidates are the phrases of one to four words in a topic's papers (a paper's title, which names
it in its field's words, read before its abstract), as the keyword vectorizer reads them (lower
case, never across a punctuation mark), but for a hyphenated compound with a stop word in it, read
as one word ("few-shot", "re-identification", "out-of-distribution": the vectorizer would drop
"few" and leave "shot learning"), plural forms counted together: no stop word, number or
``NOT_NAME_WORDS`` word at either end, no stop word inside but for "X of Y" and "X and Y" ("vision
and language"), no "-ed" word at the end. Each is scored as a name for the topic by how many of the
topic's papers use it (coverage) and how many of the papers using it are the topic's (precision),
as their weighted harmonic mean with precision counted twice (F-beta, beta 0.5): a name is first of
all distinctive, then common in the topic. A phrase that names a topic must also be:

- not generic: at least ``MIN_LIFT`` times as concentrated in the topic as in the corpus (a group
  of over a third of the papers: halfway from its share to all; "data", "model" are not);
- whole: a phrase that one phrase a word longer completes in more than ``COMPLETION_SHARE`` of the
  papers using it in their text, not title ("graph neural" → "graph neural networks", "series
  forecasting" → "time series forecasting") gives way to it; an acronym to its words ("asp");
- a noun phrase: used at least once, in ``NOMINAL_SHARE`` of its papers, where a stop word or a
  punctuation mark follows and no verb's subject or "to" comes before ("adversarial", "3d" and
  "detect anomalies" are not);
- not a data set or a finding: no "dataset"/"benchmark"/"corpus" word, not always followed by one
  in a third of its papers ("stanford question answering dataset"), and not first used in the last part
  of the abstract by most of its papers ("imagenet", "kitti").

A label is chosen from these phrases by ``papertopics.topics.label_choice`` (groups': ``label_groups``).

Counting reads at most ``SAMPLE_PAPERS`` papers a topic (evenly spaced through them), so that
labelling 100,000 papers costs about what labelling a few thousand does.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from papertopics.mapping.cluster import OUTLIER
from papertopics.topics.distinctive import concentrated
from papertopics.topics.fit import keyword_text, singular

MAX_PHRASE_WORDS = 4
SAMPLE_PAPERS = 300
MIN_PAPERS = 3
MIN_COVERAGE = 0.05
# Precision weighs 1 / PRECISION_WEIGHT^2 = 4 times as much as coverage in the score (F-beta).
PRECISION_WEIGHT = 0.5
COMPLETION_SHARE = 0.5
NOMINAL_SHARE = 1 / 3
# A carried label is kept while each of its phrases still names the topic and its first phrase
# scores at least this share of the topic's best phrase now (so a label made now is kept until its
# first phrase really weakens).
KEEP_SCORE = 0.4
# A carried label's second phrase is kept while this many of the topic's papers still use it.
KEEP_SECOND_PAPERS = 2
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
_DATASET_FOLLOWED = 1 / 3
# What an abstract is about comes early; a phrase that most of its papers first use in their last
# part names a data set or a finding ("experiments on imagenet", "kitti"), not a field.
LATE_POSITION = 0.6
_LATE_SHARE = 2 / 3
# Numbers, and words with digits ("ef1", "resnet50", "human3"), but for dimensions ("2d", "3d").
_NUMBER = re.compile(r"^(?!\d+d$).*\d")
_ID_SUFFIX = re.compile(r" \(topic \d+\)$")
_COMPOUND = re.compile(r"\w+(?:-\w+)+")
# Joins a compound's parts inside one token of the vectorizer's pattern; shown as a hyphen again.
_COMPOUND_JOIN = "_"

Key = tuple[str, ...]


def _join_compound(match: re.Match) -> str:
    parts = match.group().split("-")
    return _COMPOUND_JOIN.join(parts) if ENGLISH_STOP_WORDS.intersection(parts) else match.group()


def phrase_words(text: str) -> str:
    """Text as the labeller reads it: as the keyword vectorizer does (``topics.keyword_text``), but
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
    return [phrase for phrase in _ID_SUFFIX.sub("", label).split(", ") if phrase]


def label_key(label: str) -> frozenset:
    """What makes two labels the same: their phrases, up to plurals and order."""
    return frozenset(phrase_key(p) for p in label_phrases(label))


@dataclass
class PaperPhrases:
    """A paper's candidate phrases: key → the form it uses, those it uses as a noun phrase at
    least once, those a data-set word always follows, and those it first uses late.
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
            if (following is None or stretch[end].stop) and (
                start == 0 or words[start - 1] not in VERB_CONTEXT
            ):
                found.nominal.add(key)
        position += len(words)
    found.late = found.forms.keys() - early
    found.before_dataset -= named_otherwise
    return found


@dataclass
class Unit:
    """A topic, or a group of topics, as the labeller sees it; counts are of its sampled papers."""

    size: int
    sampled: int
    counts: Counter = field(default_factory=Counter)
    papers: list[frozenset[Key]] = field(default_factory=list)  # each sampled paper's candidates
    forms: dict[Key, Counter] = field(default_factory=dict)
    nominal: Counter = field(default_factory=Counter)
    before_dataset: Counter = field(default_factory=Counter)
    late: Counter = field(default_factory=Counter)
    title_only: Counter = field(default_factory=Counter)  # papers using the phrase in their title only
    in_title: Counter = field(default_factory=Counter)  # papers using the phrase in their title
    candidates: set[Key] = field(default_factory=set)
    _initials: set[str] | None = None

    def estimated(self, key: Key) -> float:
        """Papers of the unit that use the phrase (its sample's count, scaled to its size)."""
        return self.counts[key] * self.size / self.sampled if self.sampled else 0.0

    def initials(self) -> set[str]:
        """The initials of the unit's longer candidate phrases ("asp" for answer set programming)."""
        if self._initials is None:
            self._initials = {_initials(key) for key in self.candidates if len(key) > 1}
        return self._initials

    def add(self, other: Unit) -> None:
        """Count ``other``'s papers in this unit too."""
        self.size += other.size
        self.sampled += other.sampled
        self.papers += other.papers
        self.candidates |= other.candidates
        for name in ("counts", "nominal", "before_dataset", "late", "title_only", "in_title"):
            getattr(self, name).update(getattr(other, name))
        for key, forms in other.forms.items():
            self.forms.setdefault(key, Counter()).update(forms)


def _sample(members: np.ndarray, count: int) -> np.ndarray:
    if len(members) <= count:
        return members
    return members[np.linspace(0, len(members) - 1, count).round().astype(int)]


class PhraseTable:
    """Candidate phrases counted in each topic's papers (see the module's docstring).

    ``extra_phrases`` (earlier labels' phrases, of any length) are counted too, so that
    ``fits`` can judge them. ``titles`` (each paper's title, or "") are read with the texts.
    """

    def __init__(
        self,
        texts: list[str],
        topics: np.ndarray,
        stop_words: frozenset[str],
        extra_phrases: Iterable[str] = (),
        sample: int = SAMPLE_PAPERS,
        titles: list[str] | None = None,
    ):
        topics = np.asarray(topics)
        self.total = int((topics != OUTLIER).sum())
        real = sorted(int(t) for t in set(topics.tolist()) if t != OUTLIER)
        sampled = {t: _sample(np.flatnonzero(topics == t), sample) for t in real}
        extra = {phrase_key(p) for p in extra_phrases} - {()}
        longest = max([MAX_PHRASE_WORDS, *(len(k) for k in extra)])
        # Each sampled paper read once; the first pass finds each topic's own candidates, those
        # enough of its papers use, the second counts them in every topic.
        vocabulary: dict[str, Word] = {}
        titles = titles or [""] * len(texts)
        heads, bodies = (
            {
                t: [paper_words(read[row], stop_words, vocabulary) for row in rows]
                for t, rows in sampled.items()
            }
            for read in (titles, texts)
        )
        own: dict[int, set[Key]] = {}
        title_keys: dict[int, list[tuple[set[Key], set[Key]]]] = {t: [] for t in sampled}
        for topic in sampled:
            counts: Counter = Counter()
            for head, body in zip(heads[topic], bodies[topic], strict=True):
                in_title, in_text = phrase_keys(head), phrase_keys(body)
                counts.update(in_title | in_text)
                title_keys[topic].append((in_title, in_text))
            least = max(MIN_PAPERS, math.ceil(MIN_COVERAGE * len(heads[topic])))
            own[topic] = {key for key, count in counts.items() if count >= least}
        counted = set(extra).union(*own.values())
        self.units: dict[int, Unit] = {}
        for topic, rows in sampled.items():
            unit = Unit(int((topics == topic).sum()), len(rows), candidates=own[topic])
            for in_title, in_text in title_keys[topic]:
                unit.in_title.update(in_title & counted)
                unit.title_only.update((in_title - in_text) & counted)
            for head, body in zip(heads[topic], bodies[topic], strict=True):
                phrases = paper_phrases(head + body, stop_words, longest, only=counted)
                kept = phrases.forms.keys()
                unit.counts.update(kept)
                unit.nominal.update(phrases.nominal)
                unit.before_dataset.update(phrases.before_dataset)
                unit.late.update(phrases.late)
                for key, form in phrases.forms.items():
                    unit.forms.setdefault(key, Counter())[form] += 1
                unit.papers.append(frozenset(kept & (own[topic] | extra)))
            self.units[topic] = unit
        self._in_corpus: Counter = Counter()
        for unit in self.units.values():
            self._in_corpus.update({key: unit.estimated(key) for key in unit.counts})

    def group(self, topics: list[int]) -> Unit:
        """The topics taken together, as one unit."""
        unit = Unit(0, 0)
        for topic in topics:
            unit.add(self.units[topic])
        return unit

    def coverage(self, unit: Unit, key: Key) -> float:
        """Share of the unit's papers that use the phrase."""
        return unit.counts[key] / unit.sampled if unit.sampled else 0.0

    def precision(self, unit: Unit, key: Key) -> float:
        """Share of the papers using the phrase (in the corpus) that are the unit's."""
        everywhere = self._in_corpus[key]
        return unit.estimated(key) / everywhere if everywhere else 0.0

    def unity(self, key: Key, words: Iterable[str]) -> float:
        """How much the phrase is a unit: the largest share, over ``words`` (some of its words), of
        the papers using the word that use the whole phrase ("continual": "continual learning" is
        most of its uses; "attack" is "attack method" in few). 0 without words.
        """
        phrase = self._in_corpus[key]
        return max(
            (min(1.0, phrase / self._in_corpus[(w,)]) if self._in_corpus[(w,)] else 1.0 for w in words),
            default=0.0,
        )

    def score(self, unit: Unit, key: Key) -> float:
        """The phrase's F-beta (precision weighted) as a search for the unit's papers."""
        coverage, precision = self.coverage(unit, key), self.precision(unit, key)
        weight = PRECISION_WEIGHT**2
        return (1 + weight) * coverage * precision / (weight * precision + coverage) if coverage else 0.0

    def names(self, unit: Unit, key: Key, least_papers: int = MIN_PAPERS) -> bool:
        """Whether the phrase can name the unit (the module's docstring gives the rules)."""
        papers = unit.counts[key]
        return (
            papers >= least_papers
            and concentrated(self.precision(unit, key), unit.size / self.total)
            and not DATASET_WORDS & set(key)
            and unit.before_dataset[key] < _DATASET_FOLLOWED * papers
            and unit.nominal[key] >= NOMINAL_SHARE * papers
            and unit.late[key] < _LATE_SHARE * papers
            and not (len(key) == 1 and key[0] in unit.initials())
        )

    def ranked(self, unit: Unit) -> list[Key]:
        """The unit's candidates that can name it, whole phrases only, best first (ties: longer, a-z)."""
        keys = [key for key in unit.candidates if self.names(unit, key)]
        whole = [key for key in keys if not self._completed(unit, key, keys)]
        return sorted(whole, key=lambda key: (-round(self.score(unit, key), 9), -len(key), key))

    def _completed(self, unit: Unit, key: Key, keys: list[Key]) -> bool:
        """Whether a phrase one word longer is used, in their text, by more than
        ``COMPLETION_SHARE`` of the papers using it (a fragment is one in running text: a title's
        longer form, "single image super-resolution", leaves "super-resolution" a name).
        """
        least = COMPLETION_SHARE * unit.counts[key]
        return any(
            len(longer) == len(key) + 1
            and (longer[1:] == key or longer[:-1] == key)
            and unit.counts[longer] - unit.title_only[longer] > least
            for longer in keys
        )

    def form(self, unit: Unit, key: Key) -> str:
        """The form of the phrase the unit's papers use most (plural or singular)."""
        forms = unit.forms.get(key)
        return max(sorted(forms), key=forms.__getitem__) if forms else shown(list(key))

    def co_lift(self, unit: Unit, first: Key, second: Key) -> float:
        """How much more often the papers using ``second`` use ``first`` than the unit's papers do."""
        with_first = sum(first in paper for paper in unit.papers)
        using_second = [paper for paper in unit.papers if second in paper]
        if not using_second or not with_first:
            return 0.0
        return (sum(first in paper for paper in using_second) / len(using_second)) / (
            with_first / len(unit.papers)
        )

    def fits(self, topic: int, phrase: str, main: bool = True) -> bool:
        """Whether a phrase of an earlier label still names the topic (counted among
        ``extra_phrases``, whatever its length): it can name it (a second phrase while
        ``KEEP_SECOND_PAPERS`` papers use it) and, for the label's ``main`` (first) phrase, scores
        at least ``KEEP_SCORE`` of the topic's best phrase now.
        """
        unit, key = self.units[topic], phrase_key(phrase)
        if not key or not self.names(unit, key, MIN_PAPERS if main else KEEP_SECOND_PAPERS):
            return False
        best = self.ranked(unit)
        return not main or (bool(best) and self.score(unit, key) >= KEEP_SCORE * self.score(unit, best[0]))


def _parts(key: Key) -> list[str]:
    """A phrase's words, a compound's parts each a word of its own ("few-shot" is "few", "shot")."""
    return [part for word in key for part in word.split(_COMPOUND_JOIN) if part]


def _initials(key: Key) -> str:
    return "".join(word[0] for word in _parts(key))
