"""How two phrases relate, as a label's rules compare them (``papertopics.topics.label_choice``):
one repeats the other's words or restates it by its initials, or a phrase agrees with keywords.
"""

from __future__ import annotations

import os

from papertopics.topics.phrases import Key, phrase_initials, phrase_parts


def _same_word(one: str, other: str) -> bool:
    """Whether two words are forms of one ("vertex", "vertices"; "plan", "planning"): they share
    their first four letters and all but at most two of the shorter one's.
    """
    common = len(os.path.commonprefix([one, other]))
    return one == other or (common >= 4 and common >= min(len(one), len(other)) - 2)


def repeats(first: Key, second: Key) -> bool:
    """Whether two phrases share a word ("reinforcement, reinforcement learning"; "vertex,
    vertices"; "few-shot learning, shot"), or one is the other's initials ("answer set
    programming, asp"; "few-shot learning, fsl").
    """
    return (
        any(_same_word(a, b) for a in phrase_parts(first) for b in phrase_parts(second))
        or (len(second) == 1 and second[0] == phrase_initials(first))
        or (len(first) == 1 and first[0] == phrase_initials(second))
    )


def restates(first: Key, second: Key) -> bool:
    """Whether one phrase holds the other's initials as a word ("optimal transport, ot problem";
    "spiking neural networks, deep snns"), or repeats it (``repeats``).
    """
    return (
        repeats(first, second)
        or (len(first) > 1 and phrase_initials(first) in phrase_parts(second))
        or (len(second) > 1 and phrase_initials(second) in phrase_parts(first))
    )


def _forms(key: Key) -> list[tuple[str, ...]]:
    """A phrase's words as compared with keywords: compounds split, and joined ("in-context" is
    "in", "context" and "incontext", as the keyword vectorizer may read it).
    """
    return [tuple(phrase_parts(key)), tuple(word.replace("_", "") for word in key)]


def holds(longer: tuple[str, ...], shorter: tuple[str, ...]) -> bool:
    """Whether the words of ``shorter`` come in ``longer``, in a row."""
    return any(longer[i : i + len(shorter)] == shorter for i in range(len(longer) - len(shorter) + 1))


def agrees(key: Key, keywords: list[Key]) -> bool:
    """Whether a phrase holds one of the keywords, or one of them holds it, or a one-word keyword
    is its initials ("icl" for in-context learning).
    """
    initials = phrase_initials(key) if len(phrase_parts(key)) > 1 else None
    return any(keyword == (initials,) for keyword in keywords) or any(
        holds(mine, theirs) or holds(theirs, mine)
        for keyword in keywords
        for mine in _forms(key)
        for theirs in _forms(keyword)
        if mine and theirs
    )
