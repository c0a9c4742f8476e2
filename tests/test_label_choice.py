"""How labels are chosen (papertopics.topics.label_choice), on real IJCAI abstracts: second phrases that
are names, first phrases that agree with the topic's keywords, group labels of what the group
shares, and labels kept across runs.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from conftest import require_corpus
from papertopics.text import clean_for_keywords
from papertopics.topics.generic_words import generic, generic_alone, promoted
from papertopics.topics.label_choice import (
    SECOND_PHRASE_SCORE,
    agreeing_first,
    choose_label,
    generic_modifier_dropped,
    may_be_second,
    numbered_apart,
    topic_labels,
)
from papertopics.topics.label_groups import GROUP_SPREAD, group_labels, shared, spread, titled, using
from papertopics.topics.labeller import carry_labels
from papertopics.topics.phrase_relations import agrees, restates
from papertopics.topics.phrase_table import PhraseTable, written_case
from papertopics.topics.phrases import label_phrases, phrase_key, phrase_parts
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

STOP = frozenset(ENGLISH_STOP_WORDS)
# Topics made of the IJCAI papers whose abstracts say a term (each paper in the first that it says),
# at most this many each.
TERMS = [
    "optimal transport",
    "voting",
    "federated",
    "point cloud",
    "knowledge graph",
    "bandit",
    "multi-agent",
]
MOST = 60


@pytest.fixture(scope="module")
def ijcai_titled() -> tuple[list[str], list[str], np.ndarray]:
    """The term topics' texts, their papers' titles, and each paper's topic."""
    path = require_corpus("ijcai_2020_2024_areas.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    texts, titles, topics = [], [], []
    for number, term in enumerate(TERMS):
        said = [
            r
            for r in records
            if term in r["abstract"].lower() and clean_for_keywords(r["abstract"]) not in texts
        ][:MOST]
        texts += [clean_for_keywords(r["abstract"]) for r in said]
        titles += [r["title"] for r in said]
        topics += [number] * len(said)
    return texts, titles, np.array(topics)


@pytest.fixture(scope="module")
def ijcai_topics(ijcai_titled) -> tuple[list[str], np.ndarray]:
    texts, _, topics = ijcai_titled
    return texts, topics


def test_a_second_phrase_is_a_name_never_a_generic_word_or_a_restatement(ijcai_topics):
    texts, topics = ijcai_topics
    table = PhraseTable(texts, topics, STOP)
    labels = topic_labels(table, {t: [] for t in table.units})
    dropped = []
    for topic, unit in table.units.items():
        ranked = table.ranked(unit)
        first = phrase_key(label_phrases(labels[topic])[0])
        # What the earlier rule let through: scored enough, of the first's theme, no shared word.
        candidates = [
            key
            for key in ranked
            if key != first
            and table.score(unit, key) >= SECOND_PHRASE_SCORE * table.score(unit, first)
            and table.co_lift(unit, first, key) >= 0.5
            and not restates(first, key)
        ]
        dropped += [key for key in candidates if not may_be_second(table, unit, first, key)]
        for second in label_phrases(labels[topic])[1:]:
            key = phrase_key(second)
            assert len(key) > 1 and not restates(first, key), labels[topic]
            assert not all(generic(table, word) for word in key), labels[topic]
    # Real abstracts hold such phrases: single words and generic words beside a name.
    assert dropped and all(len(key) == 1 or any(generic(table, w) for w in key) for key in dropped)


def test_restates_finds_a_phrase_holding_the_others_initials():
    assert restates(phrase_key("optimal transport"), phrase_key("ot problem"))
    assert restates(phrase_key("generative adversarial networks"), phrase_key("gan training"))
    assert restates(phrase_key("spiking neural networks"), phrase_key("deep snns"))
    assert not restates(phrase_key("optimal transport"), phrase_key("wasserstein distance"))


def test_a_topic_is_named_for_what_its_keywords_say_not_its_distinctive_minority(ijcai_topics):
    texts, topics = ijcai_topics
    # One topic of 15 optimal transport papers (a minority no other topic uses) and 40 of the
    # multi-agent papers; the other multi-agent papers stay a topic of their own.
    transport = np.flatnonzero(topics == TERMS.index("optimal transport"))[:15]
    agents = np.flatnonzero(topics == TERMS.index("multi-agent"))
    mixed = topics.copy()
    mixed[transport] = 100
    mixed[agents[:40]] = 100
    keep = np.flatnonzero(
        (topics != TERMS.index("optimal transport")) | np.isin(np.arange(len(topics)), transport)
    )
    texts, mixed = [texts[i] for i in keep], mixed[keep]
    table = PhraseTable(texts, mixed, STOP)
    unit = table.units[100]
    alone = topic_labels(table, {t: [] for t in table.units})[100]
    assert agrees(phrase_key(label_phrases(alone)[0]), [phrase_key("optimal transport")])
    keywords = {100: ["agents", "multi agent", "cooperative"]}
    named = topic_labels(table, {t: [] for t in table.units}, keywords=keywords)[100]
    first, before = phrase_key(label_phrases(named)[0]), phrase_key(label_phrases(alone)[0])
    assert agrees(first, [phrase_key("agents"), phrase_key("multi agent")])
    assert table.coverage(unit, first) >= table.coverage(unit, before)
    # Keywords the best phrase already agrees with change nothing.
    same = topic_labels(table, {t: [] for t in table.units}, keywords={100: ["optimal transport"]})[100]
    assert same == alone


def test_a_group_label_is_what_its_topics_share_in_words_their_titles_use(ijcai_titled):
    texts, titles, topics = ijcai_titled
    table = PhraseTable(texts, topics, STOP, titles=titles)
    groups = [
        [TERMS.index("bandit"), TERMS.index("multi-agent"), TERMS.index("voting")],
        [TERMS.index("point cloud"), TERMS.index("knowledge graph")],
        [TERMS.index("optimal transport"), TERMS.index("federated")],
    ]
    topic_label = topic_labels(table, {t: [] for t in table.units})
    found = group_labels(table, groups, topic_label)
    assert len(set(found)) == len(groups)
    untitled = []
    for members, label in zip(groups, found, strict=True):
        unit = table.group(members)
        own = {phrase_key(p) for t in members for p in label_phrases(topic_label[t])}
        ours = [key for key in table.ranked(unit) if shared(table, members, key, own)]
        untitled += [key for key in ours if not titled(unit, key)]
        first = phrase_key(label_phrases(label)[0])
        if first in ours:
            # Shared by topics holding half the group's papers (two or more of them unless one's
            # label names it), and a name the group's titles use.
            assert titled(unit, first) and spread(table, members, first) >= GROUP_SPREAD, (members, label)
            assert len(using(table, members, first)) >= 2 or first in own, (members, label)
        else:
            # No shared name: the group is named by its largest topics' first phrases.
            firsts = {phrase_key(label_phrases(topic_label[t])[0]) for t in members}
            assert {phrase_key(p) for p in label_phrases(label)} <= firsts, (members, label)
            assert not [key for key in ours if titled(unit, key) and len(phrase_parts(key)) > 1], (
                members,
                label,
            )
    # Real abstracts share phrases their titles never use ("polynomial time"), which no label takes.
    assert untitled


def test_a_group_of_most_of_the_papers_is_named_by_a_phrase_of_its_own(ijcai_titled):
    texts, titles, topics = ijcai_titled
    table = PhraseTable(texts, topics, STOP, titles=titles)
    most = [t for t in table.units if t != TERMS.index("optimal transport")]
    unit = table.group(most)
    assert unit.size > 2 / 3 * table.total
    # Twice its share of the papers is more than all of them: a phrase needs half the way to all.
    named = table.ranked(unit)
    assert named and all(table.precision(unit, key) >= (1 + unit.size / table.total) / 2 for key in named)
    topic_label = topic_labels(table, {t: [] for t in table.units})
    label = group_labels(table, [most, [TERMS.index("optimal transport")]], topic_label)[0]
    assert phrase_key(label_phrases(label)[0]) in named


def test_a_fixed_label_stays_as_given_and_the_others_give_way_to_it(ijcai_topics):
    # A placed update's fitted topics keep their labels: never chosen afresh nor numbered apart.
    texts, topics = ijcai_topics
    table = PhraseTable(texts, topics, STOP)
    neighbours = {t: [] for t in table.units}
    free = topic_labels(table, neighbours)
    # "voting" fixed to the label "federated" would have; "point cloud" to a label no phrase makes.
    fixed = {1: free[2], 3: "hand-written label"}
    labels = topic_labels(table, neighbours, fixed=fixed)
    assert labels[1] == free[2] and labels[3] == "hand-written label"
    assert labels[2] != free[2]  # the topic whose label it was takes another
    assert numbered_apart({1: "graphs", 2: "graphs", 3: "graphs"}, {2}) == {
        1: "graphs (topic 1)",
        2: "graphs",
        3: "graphs (topic 3)",
    }


def test_a_kept_first_phrase_keeps_its_label_and_a_second_that_no_longer_fits_is_dropped():
    earlier = {0: "reinforcement learning, policy optimization", 1: "voting rules, elections"}
    fresh = {0: "reinforcement learning, reward shaping", 1: "elections, committee voting"}

    def fits(still):
        return lambda topic, phrase, main: phrase in still

    labels, relabelled = carry_labels(fresh, fits({"reinforcement learning", "policy optimization"}), earlier)
    assert labels[0] == earlier[0] and not [r for r in relabelled if r["id"] == 0]
    # The second no longer fits: the first stays, with the fresh label's second where the fresh
    # label begins with it, else alone; never a first re-chosen.
    labels, relabelled = carry_labels(fresh, fits({"reinforcement learning", "voting rules"}), earlier)
    assert labels == {0: "reinforcement learning, reward shaping", 1: "voting rules"}
    assert {r["id"] for r in relabelled} == {0, 1}
    # The first no longer fits: the fresh label, but the earlier one where the two have the same
    # phrases up to plural forms and order.
    labels, relabelled = carry_labels(
        {**fresh, 1: "election, voting rule"}, fits({"policy optimization"}), earlier
    )
    assert labels == {0: fresh[0], 1: earlier[1]} and [r["id"] for r in relabelled] == [0]


def test_a_kept_second_phrase_needs_fewer_papers_than_a_new_one(ijcai_topics):
    texts, topics = ijcai_topics
    table = PhraseTable(texts, topics, STOP)
    unit = table.units[TERMS.index("voting")]
    used_by_two = [key for key in unit.counts if unit.counts[key] == 2 and table.names(unit, key, 2)]
    assert used_by_two
    phrase = " ".join(used_by_two[0])
    assert not table.names(unit, used_by_two[0])
    assert table.fits(TERMS.index("voting"), phrase, main=False)
    assert not table.fits(TERMS.index("voting"), phrase, main=True)


def test_choose_label_without_a_name_for_second_gives_one_phrase(ijcai_topics):
    texts, topics = ijcai_topics
    table = PhraseTable(texts, topics, STOP)
    checked = 0
    for unit in table.units.values():
        ranked = table.ranked(unit)
        if generic_alone(table, ranked[0]):
            continue  # a generic word is never a whole label (test_a_whole_label_is_never_one_generic_word)
        only_first = [ranked[0], *(key for key in ranked[1:] if len(key) == 1)]
        assert label_phrases(choose_label(table, unit, only_first)) == [table.form(unit, ranked[0])]
        checked += 1
    assert checked >= len(table.units) // 2


def test_a_first_phrase_holding_a_wider_keyword_gives_way_to_it():
    # COLM/CoRL abstracts (their text only): a topic of papers on pose estimation, some of them on
    # object pose estimation, beside locomotion and language-model topics.
    path = require_corpus("openreview_free_keywords.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        abstracts = [clean_for_keywords(json.loads(line)["abstract"]) for line in lines]
    texts, topics = [], []
    for number, term in enumerate(["pose estimation", "locomotion", "language model"]):
        said = [a for a in abstracts if term in a and a not in texts][:40]
        texts += said
        topics += [number] * len(said)
    table = PhraseTable(texts, np.array(topics), STOP)
    unit = table.units[0]
    whole, part = phrase_key("pose estimation"), phrase_key("object pose estimation")
    assert table.coverage(unit, whole) > table.coverage(unit, part) > 0
    # Where the longer phrase scores best (as on the benchmark's partition), the keyword it holds,
    # which more of the topic's papers use, comes first.
    ranked = [part, whole, *(key for key in table.ranked(unit) if key not in (part, whole))]
    assert agreeing_first(table, unit, ranked, [phrase_key("pose"), whole])[:2] == [whole, part]
    # A one-word keyword is not a name of the whole topic: the order stays.
    assert agreeing_first(table, unit, ranked, [phrase_key("pose")]) == ranked


def test_titles_are_read_with_the_abstracts_and_their_names_win(ijcai_titled):
    texts, titles, topics = ijcai_titled
    abstracts = PhraseTable(texts, topics, STOP)
    titled = PhraseTable(texts, topics, STOP, titles=titles)
    voting = TERMS.index("voting")
    unit, before = titled.units[voting], abstracts.units[voting]
    # A title is read as more of its paper's text: every phrase is used by at least as many papers.
    assert all(unit.counts[key] >= count for key, count in before.counts.items())
    assert any(unit.counts[key] > count for key, count in before.counts.items())
    # The voting papers' second phrase, from the abstracts alone, is a complexity result no title
    # of theirs says ("polynomial time"); read with the titles, it is one their titles name.
    own_titles = [" ".join(phrase_key(t)) for t, topic in zip(titles, topics, strict=True) if topic == voting]

    def in_titles(phrase: str) -> int:
        return sum(f" {' '.join(phrase_key(phrase))} " in f" {title} " for title in own_titles)

    neighbours = {t: [] for t in titled.units}
    second_before = label_phrases(topic_labels(abstracts, neighbours)[voting])[1]
    second_after = label_phrases(topic_labels(titled, neighbours)[voting])[1]
    assert in_titles(second_before) == 0
    assert in_titles(second_after) >= 2
    # Without titles (None, or all empty) the table is the abstracts' alone.
    empty = PhraseTable(texts, topics, STOP, titles=[""] * len(texts))
    assert empty.units[voting].counts == before.counts


def _term_topics(
    terms: list[str], most: int = 40, corpus: str = "openreview_free_keywords.jsonl.gz"
) -> tuple[list[str], np.ndarray]:
    """A shared corpus's abstracts (their text only; COLM/CoRL's unless said): a topic of the papers
    saying each term (each paper in the first it says), at most ``most`` each.
    """
    path = require_corpus(corpus)
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        abstracts = [clean_for_keywords(json.loads(line)["abstract"]) for line in lines]
    texts, topics = [], []
    for number, term in enumerate(terms):
        said = [a for a in abstracts if term in a.lower() and a not in texts][:most]
        texts += said
        topics += [number] * len(said)
    return texts, np.array(topics)


def test_a_whole_label_is_never_one_generic_word():
    # Two topics, robot papers and language-model papers (as a small COLM/CoRL dump splits): "robot"
    # names the first best, but every robot paper says it; the label is a name that holds it.
    texts, topics = _term_topics(["robot", "language model"], most=60)
    table = PhraseTable(texts, topics, STOP)
    unit = table.units[0]
    assert table.ranked(unit)[0] == ("robot",) and generic_alone(table, ("robot",))
    label = topic_labels(table, {0: [1], 1: [0]})[0]
    assert label != "robot" and any(
        len(phrase_key(p)) > 1 and "robot" in phrase_key(p)[0] for p in label_phrases(label)
    ), label
    # A word the field's authors list alone as a keyword may be a whole label.
    texts, topics = _term_topics(["navigation", "locomotion", "grasp", "retrieval", "jailbreak", "reasoning"])
    table = PhraseTable(texts, topics, STOP)
    assert not generic_alone(table, ("navigation",))


def test_a_word_the_field_uses_only_inside_longer_names_is_no_whole_label():
    # CoRL abstracts on rearranging objects: authors list "object rearrangement", hardly ever
    # "rearrangement" alone (the keyphraseness table).
    texts, topics = _term_topics(["rearrangement", "locomotion", "language model"])
    table = PhraseTable(texts, topics, STOP)
    unit, word = table.units[0], ("rearrangement",)
    assert generic_alone(table, word) and table.prior.text[word] > 10 * table.prior.keyword[word]
    assert choose_label(table, unit, [word, *table.ranked(unit)]) != "rearrangement"
    # A phrase holding it that most of its uses are comes first (Toponymy's promotion).
    holding = phrase_key("object rearrangement")
    ranked = promoted(table, unit, [word, *table.ranked(unit)], share=0.0)
    assert ranked[0] == holding and table.coverage(unit, holding) > 0


def test_an_acronym_keeps_its_case_as_the_papers_write_it():
    assert written_case(["The KV cache grows.", "KV caches and the kv store", "Planning in 3D."]) == {
        "kv": "KV",
        "3d": "3D",
    }
    # A capital first letter alone (a sentence's or a title's) keeps a word in lower case.
    assert written_case(["Planning works. Planning fails.", "planning"]) == {}
    # COLM abstracts on the KV cache, beside two other topics: the label writes it as they do.
    texts, topics = _term_topics(["kv cache", "locomotion", "retrieval"])
    table = PhraseTable(texts, topics, STOP)
    labels = topic_labels(table, {t: [] for t in table.units})
    assert "KV cache" in label_phrases(labels[0])[0], labels[0]
    assert labels[1] == labels[1].lower()


def test_a_generic_word_before_the_topics_own_keyword_is_dropped():
    # COLM abstracts on unlearning beside five other topics: "llm" is generic (half the topics say
    # it); "unlearning", the topic's first keyword, is what the field calls it.
    texts, topics = _term_topics(
        ["unlearning", "retrieval", "jailbreak", "locomotion", "navigation", "grasp"]
    )
    table = PhraseTable(texts, topics, STOP)
    unit, first, head = table.units[0], phrase_key("llm unlearning"), phrase_key("unlearning")
    assert generic(table, "llm") and table.coverage(unit, head) >= table.coverage(unit, first)
    assert generic_modifier_dropped(table, unit, first, [head]) == head
    # Not where the word is not among the topic's distinctive keywords.
    assert generic_modifier_dropped(table, unit, first, []) == first


def test_a_generic_word_stays_before_a_word_other_topics_use_as_much():
    # IJCAI abstracts: "architecture" is generic (half the topics say it), and "search" is one of
    # the architecture-search topic's keywords, but most papers saying "search" are the heuristic
    # and tree search topics': "search" alone would name those, not neural architecture search.
    terms = ["architecture search", "heuristic search", "tree search", "transformer architecture"]
    terms += ["graph neural", "convolutional", "voting", "auction", "knowledge graph"]
    texts, topics = _term_topics(terms, corpus="ijcai_2020_2024_areas.jsonl.gz")
    table = PhraseTable(texts, topics, STOP)
    unit, first, head = table.units[0], phrase_key("architecture search"), phrase_key("search")
    # The field does not list "search" alone either (the keyphraseness table).
    assert generic(table, "architecture") and generic_alone(table, head)
    assert table.coverage(unit, head) >= table.coverage(unit, first) and table.precision(unit, head) < 0.5
    assert generic_modifier_dropped(table, unit, first, [head]) == first


def test_two_words_the_papers_write_together_are_that_name():
    # IJCAI abstracts: a topic's first word "revision" and its keyword "belief" are the field's
    # "belief revision", which its papers write: the label is that, not "revision, belief".
    texts, topics = _term_topics(
        ["belief revision", "voting", "auction", "knowledge graph"], corpus="ijcai_2020_2024_areas.jsonl.gz"
    )
    table = PhraseTable(texts, topics, STOP)
    unit, revision, belief = table.units[0], ("revision",), ("belief",)
    assert table.names(unit, belief + revision) and not table.names(unit, revision + belief)
    ranked = [revision, belief, *table.ranked(unit)]
    assert choose_label(table, unit, ranked, keywords=[belief, revision]) == "belief revision"
