"""Readable topic labels: clean keyphrases, no twins, no two topics alike."""

import numpy as np
from papertopics.sizing import resolve_coarse_topics
from papertopics.topics import (
    SharedKeywords,
    complete_phrase,
    distinct_labels,
    keyword_text,
    label_phrases,
    shared_keywords_first,
    singular,
    topic_groups,
)
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

STOP = frozenset(ENGLISH_STOP_WORDS)


def test_singular_handles_the_common_plural_endings_and_leaves_singulars_alone():
    assert [singular(w) for w in ["policies", "graphs", "classes", "boxes", "approaches"]] == [
        "policy",
        "graph",
        "class",
        "box",
        "approach",
    ]
    assert [singular(w) for w in ["analysis", "corpus", "class", "bus", "gas"]] == [
        "analysis",
        "corpus",
        "class",
        "bus",
        "gas",
    ]


def test_numbers_and_stop_words_never_make_it_into_a_label():
    assert label_phrases(["2020", "3.5%", "the", "of the", "we propose", "graph"], STOP) == ["graph"]


def test_plural_twins_are_merged_keeping_the_first_form():
    assert label_phrases(["networks", "network", "policy", "policies"], STOP) == ["networks", "policy"]


def test_a_longer_phrase_replaces_the_words_it_covers():
    assert label_phrases(["graph", "neural", "graph neural networks", "node"], STOP) == [
        "graph neural networks",
        "node",
    ]


def test_labels_have_two_phrases_when_available_and_never_repeat():
    labels = distinct_labels(
        {
            0: ["graph", "learning", "node", "edge"],
            1: ["graph", "learning", "molecule"],
            2: ["image", "segmentation", "pixels"],
            3: ["image"],
        },
        STOP,
    )
    assert labels[0] == "graph, learning, node"
    assert labels[1] == "graph, learning, molecule"
    assert labels[2] == "image, segmentation"
    assert labels[3] == "image"
    assert len(set(labels.values())) == len(labels)


def test_topics_whose_keyphrases_run_out_are_told_apart_by_number():
    labels = distinct_labels({4: ["graph", "node"], 9: ["graphs", "nodes"], 2: ["image"]}, STOP)
    assert labels == {2: "image", 4: "graph, node", 9: "graphs, nodes (topic 9)"}


def test_labels_stop_at_four_phrases():
    labels = distinct_labels({0: list("abcdefg"), 1: list("abcdefh")}, frozenset())
    assert all(len(label.split(", ")) <= 4 for label in labels.values())


def test_coarse_layer_size_follows_the_number_of_topics():
    assert resolve_coarse_topics("auto", 50) == 10
    assert resolve_coarse_topics("auto", 100) == 12
    assert resolve_coarse_topics("auto", 12) == 2
    assert resolve_coarse_topics("auto", 4) == 0
    assert resolve_coarse_topics(0, 50) == 0
    assert resolve_coarse_topics(60, 50) == 0
    assert resolve_coarse_topics(8, 50) == 8


def test_topic_groups_merge_topics_with_nearby_centroids():
    rng = np.random.default_rng(0)
    directions = np.eye(4)[[0, 0, 1, 1, 2, 2]] + 0.05 * np.eye(4)[[1, 2, 0, 2, 0, 1]]
    topics = np.repeat(np.arange(6), [5, 4, 3, 3, 2, 2])
    embeddings = directions[topics] + 0.01 * rng.standard_normal((len(topics), 4))
    labels = {t: f"topic{t}, words" for t in range(6)}
    group_of, groups = topic_groups(embeddings, topics, labels, 3)
    assert [g["topics"] for g in groups] == [[0, 1], [2, 3], [4, 5]]
    assert [g["size"] for g in groups] == [9, 6, 4]
    assert groups[0]["label"] == "topic0, topic1"
    assert group_of == {0: 0, 1: 0, 2: 1, 3: 1, 4: 2, 5: 2}
    assert topic_groups(embeddings, topics, labels, 6) == ({}, [])


def test_keywords_most_papers_of_a_topic_use_come_first():
    scores = np.array([0.9, 0.5, 0.4, 0.0, 0.2])
    shares = np.array([0.05, 0.5, 0.1, 0.9, 0.0])
    # 0 (one paper's word) falls behind 1 and 2; 3 has no c-TF-IDF weight and never counts.
    assert shared_keywords_first(scores, shares, 0.1, 3) == [1, 2, 0]
    assert shared_keywords_first(scores, shares, 0.1, 10) == [1, 2, 0, 4]
    assert shared_keywords_first(scores, shares, 0.0, 2) == [0, 1]


def test_shared_keywords_reads_the_share_of_each_topics_papers_using_a_word():
    import pandas as pd
    from scipy.sparse import csr_matrix
    from sklearn.feature_extraction.text import CountVectorizer

    documents = pd.DataFrame(
        {
            "Document": [
                "graph graph zebra",
                "graph node",
                "graph node",
                "graph node",
                "image pixel",
                "image pixel",
            ],
            "Topic": [0, 0, 0, 0, 1, 1],
        }
    )

    class FittedModel:
        vectorizer_model = CountVectorizer().fit(documents.Document)

    words = FittedModel.vectorizer_model.get_feature_names_out().tolist()
    weights = {0: {"zebra": 0.9, "graph": 0.5, "node": 0.4}, 1: {"image": 0.6, "pixel": 0.5}}
    c_tf_idf = csr_matrix([[weights[t].get(w, 0.0) for w in words] for t in (0, 1)])
    candidates = {0: [("zebra", 0.9), ("graph", 0.5), ("node", 0.4)], 1: [("image", 0.6), ("pixel", 0.5)]}
    kept = SharedKeywords(min_share=0.5).extract_topics(FittedModel(), documents, c_tf_idf, candidates)
    # "zebra" is in 1 of topic 0's 4 papers (25%): it drops behind the words most of them use.
    assert [w for w, _ in kept[0]] == ["graph", "node", "zebra"]
    assert [w for w, _ in kept[1]] == ["image", "pixel"]


GNN_PAPERS = [
    "Graph neural networks (GNNs) learn node representations by message passing.",
    "We study the expressive power of graph neural networks on molecules.",
    "A graph neural network for traffic forecasting; graph neural networks scale poorly.",
    "Over-smoothing limits deep graph neural network models.",
]


def test_keyword_text_reads_words_as_the_vectorizer_does_and_breaks_at_punctuation():
    assert keyword_text(["Graph neural networks (GNNs) learn; a multi-agent system."]) == (
        "graph neural networks\ngnns\nlearn\nmulti agent system"
    )


def test_a_fragment_is_completed_by_the_word_that_nearly_always_follows_it():
    text = keyword_text(GNN_PAPERS)
    assert complete_phrase("graph neural", text, STOP) == "graph neural networks"
    # "networks" follows "neural" in all its occurrences, then "graph" precedes "neural networks" in all.
    assert complete_phrase("neural", text, STOP) == "graph neural networks"
    # Followed by "passing" in its only occurrence: chance, not a phrase.
    assert complete_phrase("message", text, STOP) == "message"
    # Never grown past a punctuation mark ("networks (GNNs)") or into a stop word ("of graph").
    assert complete_phrase("gnns", text + "\ngnns of graph" * 3, STOP) == "gnns"


def test_a_word_that_follows_only_some_occurrences_does_not_complete_a_phrase():
    text = keyword_text(
        ["graph neural networks here", "graph kernels there", "graph coloring", "random graph"]
    )
    assert complete_phrase("graph", text, STOP) == "graph"


def test_labels_never_end_in_a_fragment_that_a_longer_keyphrase_completes():
    keywords = ["graph neural", "gnns", "neural networks", "node", "message passing"]
    before = distinct_labels({0: keywords}, STOP)
    after = distinct_labels({0: keywords}, STOP, texts_of={0: keyword_text(GNN_PAPERS)})
    assert before[0] == "graph neural, gnns"
    assert after[0] == "graph neural networks, gnns"


def test_a_keyphrase_found_only_across_punctuation_is_dropped():
    papers = [
        "Reinforcement learning (RL) agents explore.",
        "Deep reinforcement learning (RL) for control.",
    ] * 2
    keywords = ["learning rl", "reinforcement learning", "agents"]
    assert label_phrases(keywords, STOP) == ["learning rl", "reinforcement learning", "agents"]
    assert label_phrases(keywords, STOP, keyword_text(papers)) == ["reinforcement learning", "agents"]
    assert complete_phrase("learning rl", keyword_text(papers), STOP) is None


FORECASTING_PAPERS = [
    "Multivariate time series forecasting with transformers.",
    "Long-term time series forecasting is hard; the series forecasting literature is large.",
    "We study time series forecasting. Probabilistic time series forecasting follows.",
    "Traffic: series forecasting for roads.",
]


def test_a_fragment_is_completed_by_the_word_that_nearly_always_precedes_it():
    text = keyword_text(FORECASTING_PAPERS)
    # "time" precedes 4 of the 6 occurrences of "series forecasting", "the" one, and nothing (it
    # follows a punctuation mark) the last.
    assert complete_phrase("series forecasting", text, STOP) == "time series forecasting"
    assert label_phrases(["series forecasting", "transformers"], STOP, text) == [
        "time series forecasting",
        "transformers",
    ]


def test_a_word_that_precedes_only_some_occurrences_or_is_a_stop_word_does_not_complete_a_phrase():
    few = keyword_text(
        ["time series forecasting", "series forecasting", "series forecasting", "series forecasting"]
    )
    assert complete_phrase("series forecasting", few, STOP) == "series forecasting"
    stop = keyword_text(["the series forecasting here"] * 4)
    assert complete_phrase("series forecasting", stop, STOP) == "series forecasting"
    # Never across a punctuation mark: "time; series forecasting" is two stretches.
    broken = keyword_text(["time; series forecasting"] * 4)
    assert complete_phrase("series forecasting", broken, STOP) == "series forecasting"


def test_completion_in_both_directions_stops_at_four_words():
    text = keyword_text(["deep graph neural networks models"] * 4)
    assert complete_phrase("neural", text, STOP) == "graph neural networks models"
