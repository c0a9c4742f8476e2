"""Topic-quality metrics on cases small enough to check by hand, and NPMI against gensim's own."""

import math
from collections import Counter

import numpy as np
import pytest
from conftest import SEEDS
from hypothesis import given, settings
from hypothesis import strategies as st
from papertopics.ingest.parse import parse_dump
from papertopics.topics.quality import (
    corpus_tokenizer,
    evaluate_topics,
    label_agreement,
    npmi_coherence,
    topic_diversity,
    topic_words,
    window_co_occurrences,
)


def gensim_npmi(word_lists: list[list[str]], docs: list[list[str]]) -> list[float]:
    """The reference: gensim's CoherenceModel ``c_npmi`` per topic, unknown words left out, NaN below two."""
    from gensim.corpora import Dictionary
    from gensim.models.coherencemodel import CoherenceModel

    dictionary = Dictionary(docs)
    known = [[word for word in words if word in dictionary.token2id] for words in word_lists]
    scored = [i for i, words in enumerate(known) if len(words) >= 2]
    result = [math.nan] * len(word_lists)
    if scored:
        model = CoherenceModel(
            topics=[known[i] for i in scored],
            texts=docs,
            dictionary=dictionary,
            coherence="c_npmi",
            topn=max(len(known[i]) for i in scored),
            processes=1,
        )
        for i, value in zip(scored, model.get_coherence_per_topic(), strict=True):
            result[i] = float(value)
    return result


def assert_same_scores(ours: list[float], reference: list[float]) -> None:
    assert [math.isnan(v) for v in ours] == [math.isnan(v) for v in reference]
    for mine, theirs in zip(ours, reference, strict=True):
        if not math.isnan(theirs):
            assert abs(mine - theirs) <= 1e-6


def test_nmi_ari_homogeneity_of_identical_labelings_are_one_whatever_the_names():
    agreement = label_agreement(["a", "a", "b", "b", "c"], np.array([7, 7, 3, 3, 0]))
    assert agreement["nmi"] == pytest.approx(1.0)
    assert agreement["ari"] == pytest.approx(1.0)
    assert agreement["homogeneity"] == pytest.approx(1.0)
    assert (agreement["labelled_papers"], agreement["labels"]) == (5, 3)


def test_one_cluster_for_everything_carries_no_information():
    agreement = label_agreement(["a", "a", "b", "b"], np.zeros(4, dtype=int))
    assert agreement["nmi"] == pytest.approx(0.0)
    assert agreement["ari"] == pytest.approx(0.0)
    assert agreement["homogeneity"] == pytest.approx(0.0)


def test_splitting_a_label_keeps_homogeneity_but_lowers_nmi():
    agreement = label_agreement(["a", "a", "b", "b"], np.array([0, 1, 2, 2]))
    assert agreement["homogeneity"] == pytest.approx(1.0)
    assert agreement["nmi"] < 1.0


def test_diversity_is_one_for_disjoint_lists_and_a_half_for_two_copies():
    assert topic_diversity([["graph", "node"], ["image", "pixel"]]) == 1.0
    assert topic_diversity([["graph", "node"], ["graph", "node"]]) == 0.5
    assert topic_diversity([["graph", "node"], ["graph", "pixel"]]) == 0.75
    assert math.isnan(topic_diversity([]))


def test_topic_words_split_keyphrases_into_distinct_words_without_stop_words():
    tokenize = corpus_tokenizer()
    words = topic_words(["graph neural", "neural network", "the graph", "of", "node"], tokenize, 3)
    assert words == ["graph", "neural", "network"]


def test_npmi_is_one_for_words_always_together_and_negative_for_words_never_together():
    tokenize = corpus_tokenizer()
    docs = [
        tokenize(text) for text in ["cats chase mice", "dogs bark loudly", "cats chase birds", "dogs bark"]
    ]
    together, apart = npmi_coherence([["cats", "chase"], ["cats", "bark"]], docs)
    assert together == pytest.approx(1.0)
    assert apart < -0.9  # -1 up to the smoothing gensim adds to a zero count


def test_npmi_hand_computed_and_unknown_words_ignored():
    tokenize = corpus_tokenizer()
    docs = [
        tokenize(t) for t in ["dogs chase cats", "dogs bark loudly", "cats sleep", "birds sing", "fish swim"]
    ]
    # p(dogs)=2/5, p(bark)=1/5, p(dogs,bark)=1/5: log(0.2/0.08) / -log(0.2)
    (score, lonely) = npmi_coherence([["dogs", "bark", "zebra"], ["zebra", "dogs"]], docs)
    assert score == pytest.approx(math.log(2.5) / math.log(5))
    assert math.isnan(lonely)


def test_evaluate_topics_reports_outliers_groups_and_skips_unlabelled_papers():
    texts = ["graph node edge", "graph node", "image pixel camera", "image pixel", "graph image"]
    topics = np.array([0, 0, 1, 1, 1])
    was_outlier = np.array([False, False, False, False, True])
    metrics = evaluate_topics(
        texts,
        topics,
        was_outlier,
        {0: ["graph", "node"], 1: ["image", "pixel"], -1: ["graph"]},
        top_n_words=10,
        labels=["g", "g", "v", "v", ""],
        group_of={0: 0, 1: 0},
    )
    assert metrics["topics"] == 2
    assert metrics["outlier_share"] == pytest.approx(0.2)
    assert metrics["unassigned_share"] == 0.0
    assert metrics["diversity"] == 1.0
    assert [row["topic"] for row in metrics["per_topic"]] == [0, 1]
    assert metrics["labels"]["labelled_papers"] == 4
    assert metrics["labels"]["nmi"] == pytest.approx(1.0)
    assert metrics["coarse"]["groups"] == 1
    assert metrics["coarse"]["labels"]["nmi"] == pytest.approx(0.0)


def test_evaluate_topics_without_labels_leaves_agreement_out():
    metrics = evaluate_topics(
        ["graph node", "graph edge"], np.array([0, 0]), np.zeros(2, bool), {0: ["graph"]}, 10
    )
    assert metrics["labels"] is None
    assert metrics["coarse"] is None
    assert math.isnan(metrics["npmi"])  # one word is no pair to score


def test_npmi_equals_gensim_on_the_shipped_dumps():
    tokenize = corpus_tokenizer()
    docs = [tokenize(p["text"]) for seed in SEEDS for p in parse_dump(seed, min_abstract_chars=20).papers]
    counts = Counter(word for doc in docs for word in doc)
    in_docs = Counter(word for doc in docs for word in set(doc))
    frequent = sorted(counts, key=lambda word: (-counts[word], word))
    only_first, only_last = (
        next(w for w in sorted(set(doc)) if in_docs[w] == 1) for doc in (docs[0], docs[-1])
    )
    word_lists = [
        frequent[:10],  # words that co-occur, and repeat within windows
        frequent[10:20],
        [only_first, only_last, frequent[0]],  # the first two never share a document
        ["zzzunknown", frequent[1], "qqqmissing", frequent[2], frequent[40]],
        [frequent[0]],
        [frequent[3], "zzzunknown"],  # one known word: no pair to score
        ["zzzunknown", "qqqmissing"],
    ]
    ours = npmi_coherence(word_lists, docs)
    assert_same_scores(ours, gensim_npmi(word_lists, docs))
    assert [math.isnan(v) for v in ours] == [False, False, False, False, True, True, True]


def test_npmi_equals_gensim_on_short_documents_and_repeated_words():
    docs = [
        ["graph", "graph", "node"],  # shorter than the window: one window
        [],  # an empty document still counts as one window
        ["node", "edge", "graph", "edge", "node", "edge", "graph", "edge", "node", "edge", "graph", "edge"],
        [
            "image",
            "pixel",
            "image",
            "graph",
            "pixel",
            "image",
            "pixel",
            "graph",
            "image",
            "pixel",
            "image",
            "pixel",
            "image",
        ],
        ["graph"],
    ]
    word_lists = [
        ["graph", "node", "edge"],
        ["image", "pixel", "graph"],
        ["node", "pixel"],
        ["edge", "image"],
    ]
    assert_same_scores(npmi_coherence(word_lists, docs), gensim_npmi(word_lists, docs))


def test_a_word_whose_earlier_copy_leaves_the_window_is_dropped_as_gensim_does():
    # Windows: "a b a c d e f g h i" and "b a c d e f g h i j". gensim's window update drops "a"
    # from the second window when the first "a" leaves, although another "a" is still inside.
    counts, windows = window_co_occurrences(
        [["a", "b", "a", "c", "d", "e", "f", "g", "h", "i", "j"]], {"a": 0, "j": 1}
    )
    assert windows == 2
    assert counts.tolist() == [[1, 0], [0, 1]]


@settings(max_examples=150, deadline=None)
@given(
    docs=st.lists(st.lists(st.sampled_from("abcdef"), max_size=30), min_size=1, max_size=6),
    word_lists=st.lists(
        st.lists(st.sampled_from("abcdefz"), min_size=1, max_size=5, unique=True), max_size=4
    ),
)
def test_npmi_equals_gensim_on_any_small_corpus(docs, word_lists):
    assert_same_scores(npmi_coherence(word_lists, docs), gensim_npmi(word_lists, docs))
