"""Keywords (c-TF-IDF, shared keywords first), the text they are read from, and topic groups."""

import numpy as np
from papertopics.mapping.cluster import topic_centroids
from papertopics.mapping.sizing import resolve_coarse_topics
from papertopics.text import keyword_text, singular
from papertopics.topics.representation import SharedKeywords, shared_keywords_first
from papertopics.topics.topic_groups import MAX_GROUP_SHARE, bounded_average_linkage, topic_groups
from scipy.cluster.hierarchy import fcluster, linkage


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
    topics = np.repeat(np.arange(6), [4, 2, 3, 3, 3, 3])
    embeddings = directions[topics] + 0.01 * rng.standard_normal((len(topics), 4))
    group_of, groups = topic_groups(embeddings, topics, 3)
    assert [g["topics"] for g in groups] == [[0, 1], [2, 3], [4, 5]]
    assert [g["size"] for g in groups] == [6, 6, 6]
    assert group_of == {0: 0, 1: 0, 2: 1, 3: 1, 4: 2, 5: 2}
    assert topic_groups(embeddings, topics, 6) == ({}, [])


def _six_topics(directions: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Five papers on each of six topic directions; the groups average linkage alone makes (2)."""
    rng = np.random.default_rng(seed)
    topics = np.repeat(np.arange(6), 5)
    embeddings = directions[topics] + 0.001 * rng.standard_normal((len(topics), directions.shape[1]))
    tree = linkage(topic_centroids(embeddings, topics, list(range(6))), "average", "cosine")
    return embeddings, topics, fcluster(tree, 2, "maxclust")


def test_no_topic_group_of_spread_out_topics_holds_over_a_third_of_the_papers():
    # Four topics nearer each other than the rest, yet spread out (their mean distance to each
    # other 0.72 of that to the other two), and two others together: average linkage alone puts
    # the four, two thirds of the papers, in one group.
    axes = np.eye(6)
    shared = axes[:4].sum(axis=0) / 2
    directions = np.vstack([axes[:4] + 0.3 * shared, axes[4], axes[5] + 0.3 * axes[4]])
    embeddings, topics, unbounded = _six_topics(directions, seed=1)
    assert sorted(np.bincount(unbounded)[1:].tolist()) == [2, 4]
    _, groups = topic_groups(embeddings, topics, 2)
    # No merge keeps to the bound once three groups of ten are left: three, not two.
    assert MAX_GROUP_SHARE * len(topics) == 10
    assert [g["size"] for g in groups] == [10, 10, 10]
    found = sorted(sorted(g["topics"]) for g in groups)
    assert [4, 5] in found and sorted(sum((g for g in found if g != [4, 5]), [])) == [0, 1, 2, 3]


def test_a_tight_group_of_topics_may_hold_over_a_third_of_the_papers():
    # Four topics close together (the data has the shape of one group) and two others together.
    rng = np.random.default_rng(1)
    directions = np.eye(3)[[0, 0, 0, 0, 1, 1]] + 0.02 * rng.standard_normal((6, 3))
    embeddings, topics, _ = _six_topics(directions, seed=1)
    _, groups = topic_groups(embeddings, topics, 2)
    assert [g["topics"] for g in groups] == [[0, 1, 2, 3], [4, 5]]
    assert [g["size"] for g in groups] == [20, 10]


def test_unbounded_groups_are_scipys_average_linkage_of_the_papers():
    # Ten topics of 1 to 12 papers, each tight around a direction of its own: SciPy's average
    # linkage of the papers keeps every topic whole, and groups them as the stage does.
    rng = np.random.default_rng(2)
    sizes = rng.integers(1, 13, size=10)
    topics = np.repeat(np.arange(10), sizes)
    papers = rng.standard_normal((10, 8))[topics] + 0.05 * rng.standard_normal((len(topics), 8))
    papers /= np.linalg.norm(papers, axis=1, keepdims=True)
    means = np.vstack([papers[topics == t].mean(axis=0) for t in range(10)])
    tree = linkage(papers, "average", "cosine")
    for n_groups in range(2, 8):
        scipy_groups = fcluster(tree, n_groups, "maxclust")
        expected = sorted(sorted(set(topics[scipy_groups == g].tolist())) for g in set(scipy_groups.tolist()))
        assert sorted(bounded_average_linkage(means, sizes, n_groups, np.inf)) == expected


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


def test_shared_keywords_ranks_only_stored_weights_as_the_whole_vocabulary_would_rank():
    import pandas as pd
    from scipy.sparse import csr_matrix
    from sklearn.feature_extraction.text import CountVectorizer

    rng = np.random.default_rng(3)
    vocabulary = [f"w{i}" for i in range(60)]
    texts = [" ".join(rng.choice(vocabulary, size=8)) for _ in range(30)]
    documents = pd.DataFrame({"Document": texts, "Topic": rng.integers(0, 3, size=30)})

    class FittedModel:
        vectorizer_model = CountVectorizer().fit(texts)

    words = FittedModel.vectorizer_model.get_feature_names_out()
    # Few distinct weights (ties broken by the word's place in the vocabulary) and many zeros,
    # stored with their columns out of order, as a product of sparse matrices may leave them.
    dense = rng.integers(0, 4, size=(3, len(words))) * (rng.random((3, len(words))) < 0.5) / 4
    stored = csr_matrix(dense)
    for row in range(3):
        cells = slice(stored.indptr[row], stored.indptr[row + 1])
        stored.indices[cells], stored.data[cells] = stored.indices[cells][::-1], stored.data[cells][::-1]
    candidates = {t: [("", 0.0)] * 12 for t in range(3)}
    kept = SharedKeywords(min_share=0.2).extract_topics(FittedModel(), documents, stored, candidates)
    used = FittedModel.vectorizer_model.transform(texts).toarray() > 0
    for topic in range(3):
        shares = used[documents.Topic.to_numpy() == topic].mean(axis=0)
        expected = shared_keywords_first(dense[topic], shares, 0.2, 12)
        assert [w for w, _ in kept[topic]] == [words[i] for i in expected]


def test_shared_keywords_reads_each_text_once_and_answers_as_a_fresh_reading_would():
    """topics_over_time asks again about each period's papers: the answer must be what reading
    them afresh gives, without the vectorizer reading them again, until it is refitted.
    """
    import pandas as pd
    from scipy.sparse import csr_matrix
    from sklearn.feature_extraction.text import CountVectorizer

    texts = ["graph node", "graph zebra", "graph node", "image pixel", "image zebra", "pixel image"]
    documents = pd.DataFrame({"Document": texts, "Topic": [0, 0, 0, 1, 1, 1]})
    period = documents.iloc[[1, 2, 4]]

    class CountingVectorizer(CountVectorizer):
        read: list = []

        def transform(self, raw_documents):
            self.read.extend(raw_documents)
            return super().transform(raw_documents)

    class FittedModel:
        vectorizer_model = CountingVectorizer().fit(texts)

    def ask(keywords, frame):
        words = FittedModel.vectorizer_model.get_feature_names_out().tolist()
        c_tf_idf = csr_matrix(np.random.default_rng(0).random((2, len(words))))
        candidates = {0: [(w, 0.0) for w in words[:3]], 1: [(w, 0.0) for w in words[:3]]}
        return keywords.extract_topics(FittedModel(), frame, c_tf_idf, candidates)

    reused = SharedKeywords(min_share=0.5)
    ask(reused, documents)
    assert sorted(CountingVectorizer.read) == sorted(set(texts))
    CountingVectorizer.read.clear()
    assert ask(reused, period) == ask(SharedKeywords(min_share=0.5), period)
    assert CountingVectorizer.read == ["graph zebra", "graph node", "image zebra"]  # the fresh one's
    # A refitted vectorizer (another vocabulary) is read afresh.
    FittedModel.vectorizer_model.fit([*texts, "graph ocean"])
    CountingVectorizer.read.clear()
    ask(reused, period)
    assert CountingVectorizer.read == ["graph zebra", "graph node", "image zebra"]


def test_keyword_text_reads_words_as_the_vectorizer_does_and_breaks_at_punctuation():
    assert keyword_text(["Graph neural networks (GNNs) learn; a multi-agent system."]) == (
        "graph neural networks\ngnns\nlearn\nmulti agent system"
    )
