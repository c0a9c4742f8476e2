"""Topic labels chosen from the phrases ``papertopics.topics.phrase_table`` counts.

A topic's **first phrase** names the whole topic: of the phrases that can name it (best scoring
first, ``PhraseTable.ranked``), and that are the topic's more than its neighbours' (a phrase that
a sibling topic, same group, or one of the ``NEIGHBOURS`` topics nearest by centroid uses in a
larger share of its papers is theirs), the best; but where that one
disagrees with the topic's keywords (its first ``AGREEING_KEYWORDS`` distinctive c-TF-IDF
keywords, what the report shows beside the label) and a phrase that *agrees* with them (holds one
of them, or one of them holds it, or a keyword is its initials) covers at least as many of the
topic's papers, the best such phrase: "hyperbolic space" for a topic whose first keyword is
"hyperbolic", not "hashing", which a minority of its papers use.

The **second phrase**, when there is one, is itself a name the field uses for part of the topic,
or there is none: one of the others that scores at least ``SECOND_PHRASE_SCORE`` of the first,

- of at least ``SECOND_MIN_WORDS`` words: a single word beside a name is mostly a generic noun of
  the topic's papers or a bare adjective ("workers", "node", "centroid", "aligning"), unless it
  is one of the distinctive keywords the first phrase agrees with, not generic (below), and the
  topic's in at least ``ONE_WORD_SECOND_PRECISION`` of the papers using it ("sensitive
  attributes, fairness"; "time series, forecasting");
- a name of a part of the field, not generic words (``papertopics.topics.generic_words``): "prior
  work", "major challenge", "previous tasks", "learned policies" are not names, nor, with a
  generic last word, a phrase that is no unit of the corpus ("attack method", "time steps");
- neither repeating the first's words ("reinforcement, reinforcement learning"; "vertex,
  vertices") nor restating it by its initials ("optimal transport, ot problem"; "generative
  adversarial networks, gan training"; "spiking neural networks, deep snns");
- of the first's theme: its papers use the first at least ``MIN_CO_LIFT`` as often as the topic's
  papers do (never two themes a topic holds side by side, "hyperbolic space, hashing").

Of those, the label takes the one whose meaning is most the topic's (``PhrasePlacement``): the
phrase embedded by the corpus's embedding model, its cosine to each topic's centroid, softmax at
``PLACEMENT_TEMPERATURE``, gives the topic's share, weighed by the phrase's coverage to the power
``SECOND_COVERAGE_POWER``; and only where that phrase's share is at least ``SECOND_PLACEMENT_LIFT``
times an even share (1 / the number of topics), at most ``SECOND_PLACEMENT_SHARE``: else the
label is its first phrase alone. Without an embedding model the best scoring of them is taken.

A label is never one generic word (``generic_alone``, ``papertopics.topics.generic_words``: "robot"
where every robot paper is one topic; "rearrangement", which papers write in "object
rearrangement"). Such a first phrase with no second gives way to a name that holds it
(``promoted``), or takes a name of another part as second (``other_part``). A first phrase
of two words whose first is generic gives way to its second where that is one of the topic's
distinctive keywords and covers as many of its papers ("llm unlearning" → "unlearning":
``generic_modifier_dropped``). Each chosen leave-one-corpus-out, bench/labels-loco.md.

Group labels are ``papertopics.topics.label_groups``.
"""

from __future__ import annotations

import numpy as np

from papertopics.mapping.cluster import OUTLIER, topic_centroids
from papertopics.topics.author_keywords import AuthorKeywords
from papertopics.topics.generic_words import generic, generic_alone, names_a_part, other_part, promoted
from papertopics.topics.phrase_relations import agrees, holds, restates
from papertopics.topics.phrase_table import MIN_LIFT, PhraseTable, Unit
from papertopics.topics.phrases import (
    ID_SUFFIX,
    Key,
    label_key,
    label_phrases,
    phrase_key,
)

MIN_CO_LIFT = 0.5
SECOND_PHRASE_SCORE = 0.3
SECOND_MIN_WORDS = 2
# A one-word second phrase is the topic's in at least this share of the papers using it.
ONE_WORD_SECOND_PRECISION = 0.2
# A phrase's placement: the softmax, at this temperature, of its embedding's cosine to the topics'
# centroids (cosines to the nearest centroids differ by a few hundredths to a tenth or two).
PLACEMENT_TEMPERATURE = 0.1
# A second phrase is chosen by placement × coverage^this: of two phrases as surely the topic's,
# the one more of its papers use.
SECOND_COVERAGE_POWER = 0.25
# A second phrase's meaning is the topic's at least this many times as much as an even share
# (1 / topics), and never needs more than SECOND_PLACEMENT_SHARE: a phrase whose meaning lies
# as much in other topics names no part of this one ("memory usage", "model weights").
SECOND_PLACEMENT_LIFT = 8.0
SECOND_PLACEMENT_SHARE = 0.5
NEIGHBOURS = 3
# A first phrase agrees with one of the topic's first this many distinctive keywords.
AGREEING_KEYWORDS = 3
# A generic word is dropped before a keyword the topic holds in most of the papers using it:
# "attention" or "diffusion", methods many topics use, are not the topic's.
THEME_PRECISION = 0.5
# A second author keyword in a label: carried by at least this share as many of the topic's papers
# as the first (bench/labels-loco.md, "Keywords from the input").
SECOND_KEYWORD_SHARE = 0.5


def distinctive_keywords(table: PhraseTable, unit: Unit, keywords: list[str]) -> list[Key]:
    """The unit's first ``AGREEING_KEYWORDS`` keywords (best first) that are at least ``MIN_LIFT``
    times as concentrated in it as in the corpus ("learning", "model" are not).
    """
    least = MIN_LIFT * unit.size / table.total if table.total else 0.0
    keys = list(dict.fromkeys(phrase_key(keyword) for keyword in keywords))
    return [key for key in keys if key and table.precision(unit, key) >= least][:AGREEING_KEYWORDS]


def agreeing_first(table: PhraseTable, unit: Unit, ranked: list[Key], keywords: list[Key]) -> list[Key]:
    """The ranked phrases, but where the best disagrees with the keywords, those that agree and
    cover at least as many of the unit's papers first (each part in its order): the best scoring
    phrase names a minority of the topic where a phrase of its keywords covers more of it.
    """
    if not ranked or not keywords:
        return ranked
    if agrees(ranked[0], keywords):
        return _keyword_whole(table, unit, ranked, keywords)
    least = table.coverage(unit, ranked[0])
    better = [key for key in ranked if agrees(key, keywords) and table.coverage(unit, key) >= least]
    return better + [key for key in ranked if key not in better]


def _keyword_whole(table: PhraseTable, unit: Unit, ranked: list[Key], keywords: list[Key]) -> list[Key]:
    """The ranked phrases, but where the best holds a keyword of several words that can name the
    unit and more of its papers use ("object pose estimation" holds "pose estimation"; "dof grasp
    detection", "grasp detection"), that keyword first: the name of the whole topic, not of a part.
    """
    first = ranked[0]
    wider = [
        key
        for key in keywords
        if 1 < len(key) < len(first)
        and holds(first, key)
        and table.names(unit, key)
        and table.coverage(unit, key) > table.coverage(unit, first)
    ]
    return wider[:1] + [key for key in ranked if key not in wider[:1]]


class PhrasePlacement:
    """Where phrases' meanings lie among the topics: a phrase embedded by ``encoder`` (the model
    that embedded the papers), its cosine to each topic's centroid (``centroids``: topic → unit
    vector), softmax at ``PLACEMENT_TEMPERATURE``; a topic's placement of it is that topic's share.
    """

    def __init__(self, encoder, centroids: dict[int, np.ndarray]):
        self.encoder = encoder
        topics = sorted(centroids)
        self._row = {topic: row for row, topic in enumerate(topics)}
        self._centroids = np.vstack([centroids[t] for t in topics]).astype(np.float64)
        self._vectors: dict[str, np.ndarray] = {}

    def shares(self, topic: int, phrases: list[str]) -> np.ndarray:
        """The topic's share of each phrase's meaning (0 to 1), phrases embedded once each."""
        new = sorted(set(phrases) - self._vectors.keys())
        if new:
            vectors = self.encoder.encode(new, normalize_embeddings=True)
            self._vectors.update(zip(new, np.asarray(vectors, dtype=np.float64), strict=True))
        if not phrases:
            return np.zeros(0)
        logits = np.vstack([self._vectors[p] for p in phrases]) @ self._centroids.T / PLACEMENT_TEMPERATURE
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        return weights[:, self._row[topic]] / weights.sum(axis=1)


def may_be_second(table: PhraseTable, unit: Unit, first: Key, key: Key, keywords: list[Key] = ()) -> bool:
    """Whether a phrase may follow ``first`` in the unit's label (the module's docstring;
    ``keywords``: the unit's distinctive keywords).
    """
    if len(key) < SECOND_MIN_WORDS:
        one_word = key in keywords and not generic_alone(table, key)
        if not (one_word and table.precision(unit, key) >= ONE_WORD_SECOND_PRECISION):
            return False
    elif not names_a_part(table, key):
        return False
    return (
        table.score(unit, key) >= SECOND_PHRASE_SCORE * table.score(unit, first)
        and not restates(first, key)
        and table.co_lift(unit, first, key) >= MIN_CO_LIFT
    )


def choose_label(
    table: PhraseTable,
    unit: Unit,
    ranked: list[Key],
    fits=lambda label: True,
    placement=None,
    keywords: list[Key] = (),
    least_share: float = 0.0,
) -> str:
    """One or two phrases from ``ranked`` (best first): the first, and another phrase that names
    part of its theme (``may_be_second``), when the two together still ``fits``. ``placement``
    (the unit's share of each phrase's meaning, ``PhrasePlacement.shares`` for its topic) chooses
    among the phrases that may be second, and there is none unless the chosen one's share is at
    least ``least_share``; without it, the best scoring of them is.
    """
    if not ranked:
        return ""
    ranked = promoted(table, unit, ranked)
    first = generic_modifier_dropped(table, unit, ranked[0], keywords)
    ranked = [first, *(key for key in ranked if key != first)]
    second = _second(table, unit, ranked, placement, keywords, least_share)
    if second is None and generic_alone(table, first):
        # No phrase holding the word carries most of its uses: the word with another part's name,
        # else any phrase holding it ("robot learning" where every word is generic), else the best
        # phrase that is no such word ("time" → "exogenous variables").
        second = other_part(table, ranked)
        if second is None:
            alone = promoted(table, unit, ranked, share=0.0)
            first = next((key for key in alone if not generic_alone(table, key)), first)
    label = table.form(unit, first)
    if second is None:
        return label
    both = f"{label}, {table.form(unit, second)}"
    return both if fits(both) else label


def _second(
    table: PhraseTable, unit: Unit, ranked: list[Key], placement, keywords: list[Key], least_share: float
) -> Key | None:
    """``choose_label``'s second phrase of its theme, or None."""
    first = ranked[0]
    seconds = [key for key in ranked[1:] if may_be_second(table, unit, first, key, keywords)]
    if not seconds or placement is None:
        return seconds[0] if seconds else None
    forms = [table.form(unit, key) for key in seconds]
    coverage = np.array([table.coverage(unit, key) for key in seconds])
    shares = placement(forms)
    best = int(np.argmax(shares * coverage**SECOND_COVERAGE_POWER))
    return seconds[best] if shares[best] >= least_share else None


def generic_modifier_dropped(table: PhraseTable, unit: Unit, first: Key, keywords: list[Key]) -> Key:
    """A first phrase of two words whose first is generic, without it, where its second is one of
    the unit's distinctive keywords (``keywords``), the unit's in most of its uses
    (``THEME_PRECISION``), can name the unit and covers at least as many of its papers ("llm unlearning" → "unlearning", what the field calls
    it; not "architecture search" → "search", which the field's search papers use too); else the
    phrase as it is.
    """
    head = first[1:]
    return (
        head
        if len(first) == 2
        and generic(table, first[0])
        and head in keywords
        and table.precision(unit, head) >= THEME_PRECISION
        and table.names(unit, head)
        and table.coverage(unit, head) >= table.coverage(unit, first)
        else first
    )


def nearest_topics(embeddings: np.ndarray, topics: np.ndarray) -> dict[int, list[int]]:
    """Each topic's ``NEIGHBOURS`` nearest topics by centroid (cosine)."""
    real = sorted(int(t) for t in set(np.asarray(topics).tolist()) if t != OUTLIER)
    if len(real) < 2:
        return {t: [] for t in real}
    centroids = topic_centroids(embeddings, topics, real)
    similarity = centroids @ centroids.T
    np.fill_diagonal(similarity, -np.inf)
    return {
        topic: [real[j] for j in np.argsort(-similarity[i], kind="stable")[:NEIGHBOURS]]
        for i, topic in enumerate(real)
    }


def not_neighbours(keys: list[Key], topic: int, neighbours: dict[int, list[int]], coverage) -> list[Key]:
    """The phrases no neighbour of the topic (``neighbours``: siblings and nearest topics) uses
    in a larger share of its papers (``coverage``: topic, phrase → that share).
    """
    return [key for key in keys if all(coverage(n, key) <= coverage(topic, key) for n in neighbours[topic])]


def topic_labels(
    table: PhraseTable,
    neighbours: dict[int, list[int]],
    placement: PhrasePlacement | None = None,
    keywords: dict[int, list[str]] | None = None,
    fixed: dict[int, str] | None = None,
    authors: AuthorKeywords | None = None,
) -> dict[int, str]:
    """Each topic's label, no two alike. The authors' keywords that can name the topic
    (``authors``, ``papertopics.topics.author_keywords``) come first, then its phrases. A phrase
    or keyword a neighbour (``neighbours``: siblings and nearest topics) uses in a larger share of
    its papers is left to it; of the phrases left, those that agree with the topic's ``keywords``
    (topic → its c-TF-IDF keywords, best first) come first; topics whose labels still clash take
    their next candidates, and, if they run out, their number. A keyword label is the keyword,
    with the next that names much of the topic beside it (``with_second_keywords``), each in the
    form most of the topic's papers write it; ``placement`` chooses a phrase's second phrase
    (``choose_label``). A topic in ``fixed`` (a placed update's fitted topics) keeps the label
    given there, unchosen, and the others' give way to it.
    """
    keywords, fixed = keywords or {}, fixed or {}
    ranked, agreeing, authored = {}, {}, {}
    for topic, unit in table.units.items():
        if topic in fixed:
            continue
        own = table.ranked(unit)
        theirs = not_neighbours(own, topic, neighbours, lambda t, key: table.coverage(table.units[t], key))
        agreeing[topic] = distinctive_keywords(table, unit, keywords.get(topic, []))
        phrases = agreeing_first(table, unit, theirs or own, agreeing[topic])
        # A keyword left to a neighbour leaves this topic its phrases: the neighbour's is its name.
        authored[topic] = (
            not_neighbours(authors.ranked(topic), topic, neighbours, authors.coverage) if authors else []
        )
        ranked[topic] = authored[topic] + [key for key in phrases if key not in authored[topic]]

    least = min(SECOND_PLACEMENT_LIFT / max(len(table.units), 1), SECOND_PLACEMENT_SHARE)

    def choose(topic: int) -> str:
        if ranked[topic] and ranked[topic][0] in authored[topic]:
            return authors.form(topic, ranked[topic][0])
        placed = None if placement is None else (lambda forms: placement.shares(topic, forms))
        return choose_label(
            table,
            table.units[topic],
            ranked[topic],
            placement=placed,
            keywords=agreeing[topic],
            least_share=least,
        )

    labels = {topic: fixed[topic] if topic in fixed else choose(topic) for topic in table.units}
    for _ in range(len(labels)):
        clashes = _clashes(labels)
        if not clashes:
            break
        for topics in clashes:
            first = phrase_key(label_phrases(labels[topics[0]])[0])
            keeper = max(topics, key=lambda t: (t in fixed, table.coverage(table.units[t], first), -t))
            for topic in topics:
                if topic != keeper and topic in ranked and len(ranked[topic]) > 1:
                    ranked[topic] = ranked[topic][1:]
                    labels[topic] = choose(topic)
    if authors is not None:
        labels = with_second_keywords(labels, ranked, authored, authors)
    return numbered_apart({t: label or "(no keywords)" for t, label in labels.items()}, set(fixed))


def with_second_keywords(
    labels: dict[int, str],
    ranked: dict[int, list[Key]],
    authored: dict[int, list[Key]],
    authors: AuthorKeywords,
) -> dict[int, str]:
    """Each label that is its topic's first candidate keyword, with a second one where there is
    one (``second_keyword``). Added once the labels no longer clash: the first keyword alone keeps
    two topics apart.
    """
    # Every label's first phrase: none is another topic's second (a topic's own is never its second).
    taken = {phrase_key(label_phrases(label)[0]) for label in labels.values() if label}
    named = dict(labels)
    for topic, label in labels.items():
        first = ranked.get(topic, [])[:1]  # a fixed topic has none: its label is given
        # A keyword written with commas ("Economic Paradigms, Auctions and Market-Based Systems")
        # already reads as several phrases: another beside it would blur where each ends.
        one_phrase = len(label_phrases(label)) == 1
        if first and first[0] in authored[topic] and one_phrase and label == authors.form(topic, first[0]):
            second = second_keyword(authors, topic, first[0], [k for k in authored[topic] if k not in taken])
            if second is not None:
                named[topic] = f"{label}, {authors.form(topic, second)}"
    return named


def second_keyword(authors: AuthorKeywords, topic: int, first: Key, candidates: list[Key]) -> Key | None:
    """The next keyword of ``candidates`` (the topic's, best first, none another topic's name)
    that neither restates nor agrees with ``first`` and that at least ``SECOND_KEYWORD_SHARE`` as
    many of the topic's papers carry: the two names its authors use most ("Safety, Jailbreak";
    "bias, fairness"), not a name of a few of its papers.
    """
    least = SECOND_KEYWORD_SHARE * authors.carried[topic][first]
    return next(
        (
            key
            for key in candidates
            if key != first
            and not restates(first, key)
            and not agrees(key, [first])
            and authors.carried[topic][key] >= least
        ),
        None,
    )


def _clashes(labels: dict[int, str]) -> list[list[int]]:
    by_key: dict[frozenset, list[int]] = {}
    for topic in sorted(labels):
        if labels[topic]:
            by_key.setdefault(label_key(labels[topic]), []).append(topic)
    return [topics for topics in by_key.values() if len(topics) > 1]


def numbered_apart(labels: dict[int, str], fixed: set[int] = frozenset()) -> dict[int, str]:
    """Labels still alike after every other remedy: all but the lowest topic get "(topic N)";
    a ``fixed`` topic's label stays as it is, the others' give way to it.
    """
    labels = dict(labels)
    for topics in _clashes(labels):
        movable = [t for t in topics if t not in fixed]
        for topic in movable[1:] if len(movable) == len(topics) else movable:
            labels[topic] = f"{ID_SUFFIX.sub('', labels[topic])} (topic {topic})"
    return labels
