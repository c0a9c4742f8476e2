"""Generic words, and a label's way around one (``papertopics.topics.label_choice`` applies them).

- A word is **generic** (``generic``) when at least ``GENERIC_TOPIC_SHARE`` of the topics use it
  (``topic_spread``: "work", "challenge", "task", "method"; "policy" on robot learning) or it is a
  past participle ("learned").
- A phrase of several words **names a part** of the field (``names_a_part``) when not all its
  words are generic and, where its last word is, it is a unit of the corpus
  (``PhraseTable.unity``): at least ``SECOND_UNITY`` of the papers using one of its other words
  use the whole phrase ("continual learning", "legged robots" are; "attack method", "forecasting
  models", "time steps" are not).
- A whole label is never one generic word (``generic_alone``): a generic word, or one the topic's
  papers use mostly inside longer names or before a noun, fewer than ``ALONE_SHARE`` of them alone
  ("modeling" in "world modeling", "modeling challenges"), where the field names a subject by the
  word alone ("planning", "navigation"). ``specific_for`` gives the label in its place.
"""

from __future__ import annotations

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as STOP_WORDS

from papertopics.topics.phrase_relations import repeats, restates
from papertopics.topics.phrase_table import MIN_COVERAGE, PhraseTable, Unit
from papertopics.topics.phrases import Key, phrase_parts

# A word at least this share of the topics use (in MIN_COVERAGE of their papers) is generic.
GENERIC_TOPIC_SHARE = 0.5
SECOND_UNITY = 0.3
# A word is a whole label only where at least this share of the topic's papers using it use it
# alone, as the field names a subject ("planning", "navigation"), not only inside longer names
# ("world modeling", "object rearrangement") or before a noun ("modeling challenges").
ALONE_SHARE = 0.1


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


def generic_alone(table: PhraseTable, unit: Unit, key: Key) -> bool:
    """Whether a phrase, as a whole label, is one generic word: a word many topics use
    (``generic``), or one the unit's papers use mostly inside longer names (``inside_names``).
    """
    return len(key) == 1 and (generic(table, key[0]) or inside_names(unit, key))


def inside_names(unit: Unit, key: Key) -> bool:
    """Whether fewer than ``ALONE_SHARE`` of the unit's papers using a word use it alone."""
    return unit.alone[key] < ALONE_SHARE * unit.counts[key]


def specific_for(table: PhraseTable, unit: Unit, ranked: list[Key]) -> tuple[Key, Key | None]:
    """A label's phrases in place of the generic word first in ``ranked``:
    a word the unit's papers use mostly inside longer names gives way to the first of the unit's
    names that hold it ("object rearrangement"); a word they use alone names more of the topic than
    any such name ("reasoning", not "mathematical reasoning") and is kept, with the first name of
    another part, one of several words first ("knowledge, generated text"; "modeling, video"); else
    the first phrase that holds it (on a corpus of two or three topics every word is generic and no
    phrase ``names_a_part``: "robot learning"); else the word alone.
    """
    word = ranked[0]
    holding = [key for key in ranked[1:] if len(key) > 1 and repeats(word, key)]
    named = [key for key in holding if names_a_part(table, key)]
    if named and inside_names(unit, word):
        return named[0], None
    others = [
        key
        for key in ranked[1:]
        if not restates(word, key)
        and (names_a_part(table, key) if len(key) > 1 else not generic_alone(table, unit, key))
    ]
    others.sort(key=len, reverse=True)  # stable: best scoring first among names of several words
    if others:
        return word, others[0]
    return (holding[0], None) if holding else (word, None)
