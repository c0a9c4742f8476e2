"""Topic labels' candidates scored: each phrase of the topics' papers (``papertopics.topics.phrases``)
counted in each topic, as a name for the topic.

A phrase is scored by how many of the topic's papers use it (coverage) and how many of the papers
using it are the topic's (precision), as their weighted harmonic mean with precision counted twice
(F-beta, beta 0.5): a name is first of all distinctive, then common in the topic. A phrase that
names a topic must also be:

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

The not-generic rule is shared with the authors' keywords (``papertopics.topics.author_keywords``).
A label is chosen from these phrases by ``papertopics.topics.label_choice`` (groups':
``papertopics.topics.label_groups``).

A phrase is shown as the topic's papers write it most (plural or singular), each word in lower case
but for one the papers mostly write with a capital after its first letter, an acronym or a
name's own case ("KV cache", "LiDAR", "3D"): the labeller reads text in lower case, a reader
would not know "kv" or "Kv".

Counting reads at most ``SAMPLE_PAPERS`` papers a topic (evenly spaced through them), so that
labelling 100,000 papers costs about what labelling a few thousand does.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from papertopics.mapping.cluster import OUTLIER
from papertopics.topics.keyphraseness import Keyphraseness, load
from papertopics.topics.phrases import (
    DATASET_WORDS,
    MAX_PHRASE_WORDS,
    Key,
    Word,
    paper_phrases,
    paper_words,
    phrase_initials,
    phrase_key,
    phrase_keys,
    shown,
)

SAMPLE_PAPERS = 300
MIN_PAPERS = 3
MIN_COVERAGE = 0.05
# Precision weighs 1 / PRECISION_WEIGHT^2 = 4 times as much as coverage in the score (F-beta).
PRECISION_WEIGHT = 0.5
COMPLETION_SHARE = 0.5
NOMINAL_SHARE = 1 / 3
MIN_LIFT = 2.0
# A carried label is kept while each of its phrases still names the topic and its first phrase
# scores at least this share of the topic's best phrase now (so a label made now is kept until its
# first phrase really weakens).
KEEP_SCORE = 0.4
# A carried label's second phrase is kept while this many of the topic's papers still use it.
KEEP_SECOND_PAPERS = 2
_DATASET_FOLLOWED = 1 / 3
# A phrase that most of its papers first use late (``phrases.LATE_POSITION``) names a data set or a
# finding ("experiments on imagenet", "kitti"), not a field.
_LATE_SHARE = 2 / 3
# A word as written in the texts, to find those written with a capital after their first letter.
_WRITTEN_WORD = re.compile(r"\w+")


def concentrated(precision: float, share: float) -> bool:
    """Whether a name is not generic: the share of the papers using it that are a unit's
    (``precision``) is at least ``MIN_LIFT`` times the unit's share of the corpus (``share``), or,
    for a unit of over a third of the corpus, halfway from that share to all ("data", "model" are
    generic).
    """
    return precision >= min(MIN_LIFT * share, (1 + share) / 2)


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
            self._initials = {phrase_initials(key) for key in self.candidates if len(key) > 1}
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


def written_case(texts: Iterable[str]) -> dict[str, str]:
    """Lower-case word → the case the texts write it in, for the words most of whose uses have a
    capital after the first letter ("KV", "LiDAR", "3D"): a capital first letter alone begins a
    sentence or a title, and says nothing of the word. The commonest such form is taken (ties: a-z).
    """
    uses: Counter = Counter()
    cased: dict[str, Counter] = {}
    for text in texts:
        for word in _WRITTEN_WORD.findall(text):
            lower = word.lower()
            uses[lower] += 1
            if any(letter.isupper() for letter in word[1:]):
                cased.setdefault(lower, Counter())[word] += 1
    return {
        lower: max(sorted(forms), key=forms.__getitem__)
        for lower, forms in cased.items()
        if forms.total() > uses[lower] / 2
    }


def _sample(members: np.ndarray, count: int) -> np.ndarray:
    if len(members) <= count:
        return members
    return members[np.linspace(0, len(members) - 1, count).round().astype(int)]


class PhraseTable:
    """Candidate phrases counted in each topic's papers (see the module's docstring).

    ``extra_phrases`` (earlier labels' phrases, of any length) are counted too, so that
    ``fits`` can judge them. ``titles`` (each paper's title, or "") are read with the texts.
    ``prior``: which phrases the field uses as names (the shipped ``keyphraseness`` table by default).
    """

    def __init__(
        self,
        texts: list[str],
        topics: np.ndarray,
        stop_words: frozenset[str],
        extra_phrases: Iterable[str] = (),
        titles: list[str] | None = None,
        prior: Keyphraseness | None = None,
    ):
        self.prior = load() if prior is None else prior
        topics = np.asarray(topics)
        self.total = int((topics != OUTLIER).sum())
        real = sorted(int(t) for t in set(topics.tolist()) if t != OUTLIER)
        sampled = {t: _sample(np.flatnonzero(topics == t), SAMPLE_PAPERS) for t in real}
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
        self._case = written_case(
            read[row] for read in (titles, texts) for rows in sampled.values() for row in rows
        )

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
        """The form of the phrase the unit's papers use most (plural or singular), each word in
        the case the corpus writes it (``written_case``).
        """
        forms = unit.forms.get(key)
        form = max(sorted(forms), key=forms.__getitem__) if forms else shown(list(key))
        return _WRITTEN_WORD.sub(lambda word: self._case.get(word.group(), word.group()), form)

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
