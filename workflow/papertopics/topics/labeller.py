"""The labeller's entry: the labels of a run's topics and of their coarse groups, kept from the
previous run while they still fit (``carry_labels``), given, or chosen from the topics' papers
(``papertopics.topics.label_choice`` and ``label_groups``, from the phrases ``phrase_table`` counts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from papertopics.mapping.cluster import OUTLIER, topic_centroids
from papertopics.mapping.sizing import resolve_coarse_topics
from papertopics.topics.curation import Curated
from papertopics.topics.label_display import FROM_AUTHOR_KEYWORDS, FROM_PAPERS, GIVEN, KEPT_FROM_FIT
from papertopics.topics.phrases import label_key, label_phrases
from papertopics.topics.topic_groups import topic_groups

if TYPE_CHECKING:  # its module reads scikit-learn's stop words: only the jobs that label load it
    from papertopics.topics.keyphraseness import Keyphraseness


@dataclass(frozen=True)
class PaperTexts:
    """What the labels read beside each paper's abstract: its title and keywords where the input
    gives them, and which phrases the field uses as names (``prior``, a ``keyphraseness`` table;
    the shipped one when None).
    """

    titles: list[str] | None = None  # each paper's title, or ""
    keywords: list[list[str]] | None = None  # each paper's keywords, its authors' own
    # A keyword names a topic only where at least this many of its papers carry it (the topics
    # stage's ``label_keyword_min_papers``; None with no keywords).
    keyword_min_papers: int | None = None
    prior: Keyphraseness | None = None


@dataclass(frozen=True)
class TopicLabels:
    """What ``label_topics`` gives: the labels, the labels changed since the previous run, the groups."""

    label_of: dict[int, str]  # shown topic → label shown (named, curated, carried or fresh)
    source: dict[int, str]  # shown topic → where its label came from (``label_sources``)
    from_papers: dict[int, str]  # curated id (hidden ones too) → label made from its papers
    relabelled: list[dict]
    groups: list[dict]
    group_of: dict[int, int]


def label_topics(
    texts: list[str],
    vectors: np.ndarray,
    curated: Curated,
    earlier: dict[int, str],
    given: dict[int, str],
    kept: dict[int, str],
    coarse_topics: int | str,
    encoder=None,
    keywords: dict[int, list] | None = None,
    read: PaperTexts = PaperTexts(),
) -> TopicLabels:
    """Labels of the topics (hidden ones too, for the record) and groups of the shown ones: a
    ``kept`` label (``kept_labels``), else a ``given`` one (the guide's names, then the curated),
    else the earlier label while it still fits (``carry_labels``), else a fresh one (``papertopics.topics.label_choice``;
    ``encoder``, the model that embedded ``vectors``, places its second phrase; ``keywords``, each
    shown topic's c-TF-IDF keywords, best first, as words or (word, weight) pairs, are what its
    first phrase agrees with; ``read``, each paper's title and keywords where the input gives
    them: the titles are read with the texts, the keywords are a topic's first candidates,
    ``AuthorKeywords``, and add their papers to its keyphraseness table).
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    # papertopics.topics.label_choice imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.topics.author_keywords import AuthorKeywords, keyword_key
    from papertopics.topics.keyphraseness import count, load
    from papertopics.topics.label_choice import PhrasePlacement, nearest_topics, topic_labels
    from papertopics.topics.label_groups import group_labels
    from papertopics.topics.phrase_table import PhraseTable

    shown = curated.topics
    real = sorted(set(curated.merged.tolist()) - {OUTLIER})
    earlier = {t: label for t, label in earlier.items() if t in real and label and t not in kept}
    prior = read.prior or load()
    if read.keywords is not None:
        prior += count(texts, read.keywords, frozenset(ENGLISH_STOP_WORDS), read.titles)
    table = PhraseTable(
        texts,
        curated.merged,
        frozenset(ENGLISH_STOP_WORDS),
        extra_phrases=[p for label in [*earlier.values(), *kept.values()] for p in label_phrases(label)],
        titles=read.titles,
        prior=prior,
    )
    n_shown = len(set(shown.tolist()) - {OUTLIER})
    group_of, groups = topic_groups(vectors, shown, resolve_coarse_topics(coarse_topics, n_shown))
    neighbours = nearest_topics(vectors, curated.merged)
    for topic in real:
        siblings = [t for t in real if t != topic and group_of.get(t, -1) == group_of.get(topic)]
        neighbours[topic] = sorted(set(neighbours[topic]) | (set(siblings) if topic in group_of else set()))
    placement = None
    if encoder is not None and real:
        centroids = topic_centroids(vectors, curated.merged, real)
        placement = PhrasePlacement(encoder, dict(zip(real, centroids, strict=True)))
    words = {t: [k if isinstance(k, str) else k[0] for k in ks] for t, ks in (keywords or {}).items()}
    authors = (
        AuthorKeywords.count(read.keywords, curated.merged, read.keyword_min_papers)
        if read.keywords is not None
        else None
    )
    fresh = topic_labels(table, neighbours, placement, words, fixed=kept, authors=authors)

    def fits(topic: int, phrase: str, main: bool) -> bool:
        # An earlier label from the authors' keywords fits while the keyword still names the topic.
        return table.fits(topic, phrase, main) or (
            authors is not None and authors.names(topic, keyword_key(phrase))
        )

    from_papers, relabelled = carry_labels(fresh, fits, earlier)
    label_of = {**from_papers, **{t: label for t, label in given.items() if t in from_papers}, **kept}
    label_of = {t: label for t, label in label_of.items() if t not in curated.hidden}
    source = label_sources(label_of, from_papers, set(kept), authors)
    relabelled = [r for r in relabelled if label_of.get(r["id"]) == from_papers[r["id"]]]
    for group, label in zip(
        groups, group_labels(table, [g["topics"] for g in groups], label_of), strict=True
    ):
        group["label"] = label
    return TopicLabels(label_of, source, from_papers, relabelled, groups, group_of)


def label_sources(
    label_of: dict[int, str], from_papers: dict[int, str], kept: set[int], authors
) -> dict[int, str]:
    """Where each shown label came from: ``FROM_AUTHOR_KEYWORDS`` where it is the one made from
    the topic's papers and its first phrase is an author keyword that names the topic
    (``authors``: the ``AuthorKeywords``, or None), ``FROM_PAPERS`` where it is otherwise theirs
    (titles and abstracts), ``GIVEN`` where the guide or the curation gave it, ``KEPT_FROM_FIT``
    where a placed update's topic keeps its fitted label (``kept``).
    """
    sources = {}
    for topic, label in label_of.items():
        if topic in kept:
            sources[topic] = KEPT_FROM_FIT
        elif label != from_papers.get(topic):
            sources[topic] = GIVEN
        elif authors is not None and authors.names_label(topic, label):
            sources[topic] = FROM_AUTHOR_KEYWORDS
        else:
            sources[topic] = FROM_PAPERS
    return sources


def label_still_fits(label: str, phrase_fits: Callable[[str, bool], bool]) -> bool:
    """Whether every phrase of a topic's earlier label still names it now (``phrase_fits``: the
    labeller's judgement of one phrase against the topic's current papers, whatever its length,
    and whether it is the label's first phrase).
    """
    phrases = label_phrases(label)
    return bool(phrases) and all(phrase_fits(phrase, index == 0) for index, phrase in enumerate(phrases))


def carry_labels(
    fresh: dict[int, str], fits: Callable[[int, str, bool], bool], earlier: dict[int, str]
) -> tuple[dict[int, str], list[dict]]:
    """Labels by stable id: a continued topic keeps its earlier label while it still fits (``fits``:
    topic, phrase, whether it is the label's first phrase → whether the phrase still names the
    topic), its first phrase alone when only its second no longer fits (or the fresh label, when
    that begins with the same phrase); the others take their fresh label, made distinct from the
    kept ones.

    Returns the labels and the relabelled topics (id, earlier label, new label).
    """
    labels, relabelled = {}, []
    for topic, label in fresh.items():
        before = earlier.get(topic)
        phrases = label_phrases(before) if before is not None else []
        if before is not None and label_still_fits(
            before, lambda phrase, main, topic=topic: fits(topic, phrase, main)
        ):
            labels[topic] = before
        elif before is not None and label_key(before) == label_key(label):
            labels[topic] = before  # the same phrases, up to plural forms and order
        elif len(phrases) > 1 and fits(topic, phrases[0], True):
            # Its first phrase still names the topic: kept, with the fresh label's second phrase
            # where the fresh label has that first phrase too, else alone (a second is never
            # re-chosen under a kept first one).
            fresh_first = label_phrases(label)[:1]
            same_first = bool(fresh_first) and label_key(fresh_first[0]) == label_key(phrases[0])
            labels[topic] = label if same_first else phrases[0]
            relabelled.append({"id": topic, "from": before, "to": labels[topic]})
        else:
            labels[topic] = label
            if before is not None and before != label:
                relabelled.append({"id": topic, "from": before, "to": label})
    kept = {label_key(labels[t]) for t in labels if earlier.get(t) == labels[t]}
    for topic in labels:
        if earlier.get(topic) != labels[topic] and label_key(labels[topic]) in kept:
            labels[topic] = f"{', '.join(label_phrases(labels[topic]))} (topic {topic})"
    return labels, relabelled
