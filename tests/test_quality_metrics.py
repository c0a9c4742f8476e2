"""Topic-quality metrics on cases small enough to check by hand."""

import math

import numpy as np
import pytest

from papertopics.quality import (
    corpus_tokenizer,
    evaluate_topics,
    label_agreement,
    npmi_coherence,
    topic_diversity,
    topic_words,
)


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
    docs = [tokenize(text) for text in ["cats chase mice", "dogs bark loudly", "cats chase birds", "dogs bark"]]
    together, apart = npmi_coherence([["cats", "chase"], ["cats", "bark"]], docs)
    assert together == pytest.approx(1.0)
    assert apart < -0.9  # -1 up to the smoothing gensim adds to a zero count


def test_npmi_hand_computed_and_unknown_words_ignored():
    tokenize = corpus_tokenizer()
    docs = [tokenize(t) for t in ["dogs chase cats", "dogs bark loudly", "cats sleep", "birds sing", "fish swim"]]
    # p(dogs)=2/5, p(bark)=1/5, p(dogs,bark)=1/5: log(0.2/0.08) / -log(0.2)
    (score, lonely) = npmi_coherence([["dogs", "bark", "zebra"], ["zebra", "dogs"]], docs)
    assert score == pytest.approx(math.log(2.5) / math.log(5))
    assert math.isnan(lonely)


def test_evaluate_topics_reports_outliers_groups_and_skips_unlabelled_papers():
    texts = ["graph node edge", "graph node", "image pixel camera", "image pixel", "graph image"]
    topics = np.array([0, 0, 1, 1, 1])
    was_outlier = np.array([False, False, False, False, True])
    metrics = evaluate_topics(
        texts, topics, was_outlier, {0: ["graph", "node"], 1: ["image", "pixel"], -1: ["graph"]},
        top_n_words=10, labels=["g", "g", "v", "v", ""], group_of={0: 0, 1: 0},
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
    metrics = evaluate_topics(["graph node", "graph edge"], np.array([0, 0]), np.zeros(2, bool), {0: ["graph"]}, 10)
    assert metrics["labels"] is None
    assert metrics["coarse"] is None
    assert math.isnan(metrics["npmi"])  # one word is no pair to score
