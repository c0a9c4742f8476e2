"""Group labels: the coarse topic groups (``papertopics.topics.topic_groups``), named for what their
topics share.

A group is labelled the way a topic is (``papertopics.topics.label_choice.choose_label``), its
topics taken together, from the phrases that can name it (``PhraseTable.ranked``) that also are

- *shared* (``shared``): used by at least ``GROUP_TOPIC_COVERAGE`` of the papers of topics that
  hold at least ``GROUP_SPREAD`` of the group's papers, two or more of them unless the phrase is
  in one of their labels: never a phrase of one topic that its label does not name, not even of a
  topic holding most of the group ("clique, data mining" over maximum plex problems and
  evolutionary algorithms), nor the name of one topic that holds too few of its papers;
- *names the field writes* (``titled``): at least ``GROUP_TITLE_SHARE`` of the group's papers using
  the phrase use it in their title. A paper's title names its field; a phrase only its abstract
  uses is a phrase of results or a generic noun ("polynomial time", "running time", "variables",
  "module", "token"). Of the 20 best phrases of each topic of the free-keyword corpus, those used
  in the titles of fewer than a tenth of their papers are keywords of two of the topic's papers 5%
  of the time; a tenth to a fifth, 20%; a fifth to 40%, 26%; more, 55%
  (bench/one-off-measurements.md, "Group labels");
- *two or more words* (issue #50): one word alone names no part of a field ("graph", "image",
  "search", "attacks" named IJCAI's groups). On the cached label bench the group labels' hit rate
  against the authors' keywords stays 0.16 on IJCAI's sub-areas and goes 0.96 → 1.00 on COLM and
  CoRL's free keywords (bench/topic-groups.md).

Where a group's topics share no such phrase, the group is named by its parts: the first phrases of
its two largest topics' labels ("directed acyclic graphs, evolutionary algorithms"), never a pair
of words that only the group's papers happen to use.
"""

from __future__ import annotations

import textwrap

from papertopics.topics.label_choice import choose_label
from papertopics.topics.label_display import GROUP_LABEL_LINE_CHARS, GROUP_LABEL_LINES
from papertopics.topics.phrase_relations import restates
from papertopics.topics.phrase_table import PhraseTable, Unit
from papertopics.topics.phrases import Key, label_key, label_phrases, phrase_key, phrase_parts

# A group label's phrase is used by this share of the papers of two or more topics holding
# GROUP_SPREAD of the group's papers, and in the titles of GROUP_TITLE_SHARE of its papers using it.
GROUP_TOPIC_COVERAGE = 0.1
GROUP_SPREAD = 0.5
GROUP_TITLE_SHARE = 0.2


def _fits_the_map(label: str) -> bool:
    lines = textwrap.wrap(label, GROUP_LABEL_LINE_CHARS, break_long_words=False)
    return len(lines) <= GROUP_LABEL_LINES and all(len(line) <= GROUP_LABEL_LINE_CHARS for line in lines)


def using(table: PhraseTable, topics: list[int], key: Key) -> list[int]:
    """The topics that use the phrase in at least ``GROUP_TOPIC_COVERAGE`` of their papers."""
    return [t for t in topics if table.coverage(table.units[t], key) >= GROUP_TOPIC_COVERAGE]


def spread(table: PhraseTable, topics: list[int], key: Key) -> float:
    """Share of the group's papers in its topics that use the phrase (``using``)."""
    total = sum(table.units[t].size for t in topics)
    return sum(table.units[t].size for t in using(table, topics, key)) / total if total else 0.0


def shared(table: PhraseTable, topics: list[int], key: Key, own: set[Key]) -> bool:
    """Whether the phrase is the group's (the module's docstring): used by topics holding
    ``GROUP_SPREAD`` of its papers, two or more of them unless it is in one of their labels
    (``own``: its topics' label phrases).
    """
    users = using(table, topics, key)
    return spread(table, topics, key) >= GROUP_SPREAD and (len(users) >= min(2, len(topics)) or key in own)


def titled(unit: Unit, key: Key) -> bool:
    """Whether at least ``GROUP_TITLE_SHARE`` of the unit's papers using the phrase use it in their
    title (any phrase, where its papers have no titles).
    """
    return not unit.in_title or unit.in_title[key] >= GROUP_TITLE_SHARE * unit.counts[key]


def group_labels(table: PhraseTable, groups: list[list[int]], topic_label: dict[int, str]) -> list[str]:
    """Each group's label (the module's docstring): what its topics share, one or two phrases that
    the map shows whole (at most ``GROUP_LABEL_LINES`` lines of ``GROUP_LABEL_LINE_CHARS``), no two
    groups alike; where they share none, the names of its largest topics (``members_label``).
    """
    labels: list[str] = []
    for topics in groups:
        unit = table.group(topics)
        taken = {label_key(label) for label in labels}
        own = {phrase_key(p) for t in topics for p in label_phrases(topic_label.get(t, ""))}
        ranked = [
            key
            for key in table.ranked(unit)
            if len(phrase_parts(key)) >= 2
            and titled(unit, key)
            and shared(table, topics, key, own)
            and _fits_the_map(table.form(unit, key))
        ]
        label = ""
        while ranked and not label:
            label = choose_label(table, unit, ranked, _fits_the_map)
            if label_key(label) in taken:
                label, ranked = "", ranked[1:]
        labels.append(label or members_label(table, topics, topic_label, taken))
    return labels


def members_label(table: PhraseTable, topics: list[int], topic_label: dict[int, str], taken: set) -> str:
    """The first phrases of the labels of the group's two largest topics that do not restate each
    other ("directed acyclic graphs, evolutionary algorithms"), else of its largest, that the map
    shows whole and no other group has; else the largest's first phrase, shortened.
    """
    largest = sorted(topics, key=lambda t: (-table.units[t].size, t))
    firsts = list(dict.fromkeys(label_phrases(topic_label[t])[0] for t in largest if topic_label.get(t)))
    if not firsts:
        return ""
    others = [p for p in firsts[1:] if not restates(phrase_key(firsts[0]), phrase_key(p))]
    for label in [f"{firsts[0]}, {p}" for p in others[:1]] + firsts:
        if _fits_the_map(label) and label_key(label) not in taken:
            return label
    return textwrap.shorten(firsts[0], GROUP_LABEL_LINE_CHARS, placeholder="")
