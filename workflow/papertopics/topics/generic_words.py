"""Generic words, and a label's way around one (``papertopics.topics.label_choice`` applies them).

- A word is **generic** (``generic``) when at least ``GENERIC_TOPIC_SHARE`` of the topics use it
  (``topic_spread``: "work", "challenge", "task", "method"; "policy" on robot learning) or it is a
  past participle ("learned").
- A phrase of several words **names a part** of the field (``names_a_part``) when not all its
  words are generic and, where its last word is, it is a unit of the corpus
  (``PhraseTable.unity``): at least ``SECOND_UNITY`` of the papers using one of its other words
  use the whole phrase ("continual learning", "legged robots" are; "attack method", "forecasting
  models", "time steps" are not).
- A single word is a name on its own only where the field uses it so: listed alone as a keyword
  in the keyphraseness table (``PhraseTable.prior``, ``papertopics.topics.keyphraseness``), and
  not generic (``generic_alone``): "planning", "navigation", "clustering" are; "program",
  "precision", "time", "robot" are not. ``promoted`` and ``other_part`` find the label around one.
"""

from __future__ import annotations

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as STOP_WORDS

from papertopics.topics.phrase_relations import repeats, restates
from papertopics.topics.phrase_table import MIN_COVERAGE, PhraseTable, Unit
from papertopics.topics.phrases import Key, phrase_parts

# A word at least this share of the topics use (in MIN_COVERAGE of their papers) is generic.
GENERIC_TOPIC_SHARE = 0.5
SECOND_UNITY = 0.3
# A word gives way to a phrase holding it that at least this share of its uses in the unit are.
PROMOTION_SHARE = 0.5


def topic_spread(table: PhraseTable, key: Key) -> float:
    """Share of the topics that use the phrase in at least ``MIN_COVERAGE`` of their papers
    (counted once a table).
    """
    known = table.__dict__.setdefault("_topic_spread", {})
    if key not in known:
        units = table.units.values()
        known[key] = sum(unit.counts[key] >= MIN_COVERAGE * unit.sampled for unit in units) / max(
            len(units), 1
        )
    return known[key]


def generic(table: PhraseTable, word: str) -> bool:
    """Whether a word says nothing of one topic (the module's docstring)."""
    past_participle = word.endswith("ed") and not word.endswith("eed")
    return past_participle or word in STOP_WORDS or topic_spread(table, (word,)) >= GENERIC_TOPIC_SHARE


def names_a_part(table: PhraseTable, key: Key) -> bool:
    """Whether a phrase of several words is a name rather than generic words (the module's
    docstring): not all its words generic, and a unit of the corpus if its last word is.
    """
    specific = [word for word in key if not all(generic(table, part) for part in phrase_parts((word,)))]
    if not specific:
        return False
    return not all(generic(table, part) for part in phrase_parts(key[-1:])) or (
        table.unity(key, specific) >= SECOND_UNITY
    )


def generic_alone(table: PhraseTable, key: Key) -> bool:
    """Whether a phrase is one word the field does not use alone as a name (the module's docstring)."""
    return len(key) == 1 and (generic(table, key[0]) or not table.prior.names_alone(key))


def promoted(table: PhraseTable, unit: Unit, ranked: list[Key], share: float = PROMOTION_SHARE) -> list[Key]:
    """``ranked`` (best first), but where the first is one word the field does not use alone
    (``generic_alone``), the phrase holding it that most of the unit's papers use first, of those
    that carry at least ``share`` of the word's uses there, a name of a part before
    others ("program" → "program synthesis", "rearrangement" → "object rearrangement"; Toponymy's
    promotion of a shortlisted word to a longer shortlisted phrase).
    """
    word = ranked[0]
    if not generic_alone(table, word):
        return ranked
    least = share * unit.counts[word]
    holding = [key for key in ranked[1:] if len(key) > 1 and repeats(word, key) and unit.counts[key] >= least]
    holding.sort(key=lambda key: (not names_a_part(table, key), -table.coverage(unit, key)))
    return holding[:1] + [key for key in ranked if key not in holding[:1]]


def other_part(table: PhraseTable, ranked: list[Key]) -> Key | None:
    """A second phrase for a first that is one word no phrase of the unit holds (``promoted``
    found none) and the field does not use alone: the first name of another part, one of several
    words first ("modeling, video"); None where there is none.
    """
    word = ranked[0]
    others = [
        key
        for key in ranked[1:]
        if not restates(word, key)
        and (names_a_part(table, key) if len(key) > 1 else not generic_alone(table, key))
    ]
    return max(others, key=len, default=None)  # the best scoring of the longest: max keeps the first
