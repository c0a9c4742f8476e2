"""The label benchmark's free-keyword scorer (bench/label_keywords.py), on the COLM/CoRL papers."""

from __future__ import annotations

import gzip
import json

import numpy as np
from conftest import require_corpus

from bench.label_keywords import (
    kept_most_share,
    keyword_forms,
    keyword_naming,
    most_papers_kept,
    phrase_is_keyword,
    topic_keyword_counts,
    word_set,
)


def test_a_keyword_stands_for_its_words_in_any_form_and_for_its_acronym():
    forms = keyword_forms("Parameter-Efficient Fine-Tuning (PEFT)")
    assert word_set("parameter efficient fine-tuning") in forms and word_set("PEFT") in forms
    assert word_set("vision-language models") == word_set("Vision Language Model")
    assert word_set("language models") != word_set("vision language models")


def test_labels_of_each_venues_field_hit_its_papers_keywords_not_the_others():
    path = require_corpus("openreview_free_keywords.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    ids = [r["id"] for r in records]
    topics = np.array([0 if r["venue"] == "COLM" else 1 for r in records])
    counts = topic_keyword_counts(ids, topics, {r["id"]: r["keywords"] for r in records})
    sizes = {0: int((topics == 0).sum()), 1: int((topics == 1).sum())}
    assert phrase_is_keyword("large language models", counts[0])
    assert phrase_is_keyword("imitation learning", counts[1])
    assert not phrase_is_keyword("a phrase no author typed", counts[0])
    right = keyword_naming({0: ["large language models"], 1: ["imitation learning"]}, counts, sizes)
    # Two phrases, one a keyword: the topic hits, half its phrases count.
    half = keyword_naming({0: ["large language models", "no such keyword"], 1: ["nor this"]}, counts, sizes)
    assert right == {"hit_rate": 1.0, "phrase_share": 1.0}
    assert half["hit_rate"] == sizes[0] / sum(sizes.values())
    assert half["phrase_share"] == sizes[0] / (2 * sizes[0] + sizes[1])
    # A keyword one COLM paper typed: a keyword of the topic only where one paper is enough.
    once = next(
        phrase
        for words, n in sorted(counts[0].items(), key=lambda item: sorted(item[0]))
        if n == 1 and word_set(phrase := " ".join(sorted(words))) == words
    )
    assert not phrase_is_keyword(once, counts[0]) and phrase_is_keyword(once, counts[0], least_papers=1)
    alone = {0: [once], 1: ["nor this"]}
    assert keyword_naming(alone, counts, sizes)["hit_rate"] == 0.0
    assert keyword_naming(alone, counts, sizes, least_papers=1)["hit_rate"] == sizes[0] / sum(sizes.values())


def test_the_labels_kept_figure_counts_the_topics_that_kept_most_of_their_papers():
    before = {"a": 0, "b": 0, "c": 0, "d": 0, "e": 1, "f": 1, "g": 2}
    # Topic 0 keeps 3 of its 4 papers, topic 1 one of 2, topic 2 its only one (beside new papers).
    after = {"a": 0, "b": 0, "c": 0, "d": 1, "e": 1, "f": 2, "g": 2, "h": 2}
    assert most_papers_kept(before, after, [0, 1, 2]) == [0, 2]
    assert most_papers_kept(before, after, [1]) == []
    assert kept_most_share([0, 2], same=[0, 1]) == {"kept_most": 2, "kept_most_label": 1, "most_share": 0.5}
    assert kept_most_share([], same=[0])["most_share"] is None


def test_group_labels_are_scored_on_their_groups_papers_as_one_topic(seed_encoder):
    from bench.label_scores import group_naming

    path = require_corpus("openreview_free_keywords.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    papers = [{"id": r["id"]} for r in records]
    # A topic a venue's year; a group a venue's topics.
    years = sorted({(r["venue"], r["year"]) for r in records})
    topics = np.array([years.index((r["venue"], r["year"])) for r in records])
    colm = [t for t, (venue, _) in enumerate(years) if venue == "COLM"]
    corl = [t for t in range(len(years)) if t not in colm]

    def scored(first: str, second: str) -> dict:
        groups = [{"topics": colm, "label": first}, {"topics": corl, "label": second}]
        return group_naming(papers, path, topics, groups, seed_encoder.model)

    right, swapped = (
        scored("large language models", "robot learning"),
        scored("robot learning", "large language models"),
    )
    assert right["hit_rate"] == right["phrase_share"] == 1.0
    assert swapped["phrase_share"] < right["phrase_share"] and swapped["free_names"] < right["free_names"]
