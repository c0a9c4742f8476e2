"""Papers between topics (``papertopics.topics.bridges``) on the shipped papers' real embeddings."""

import numpy as np
import pytest
from papertopics.mapping.cluster import OUTLIER, topic_centroids, unit_rows
from papertopics.topics.bridges import bridges_table, further_topic_columns, further_topics
from sklearn.cluster import KMeans


@pytest.fixture(scope="module")
def seed_topics(seed_embeddings):
    """The 38 shipped papers in three topics (k-means, seeded), the first two papers outliers."""
    topics = KMeans(3, n_init=10, random_state=0).fit_predict(seed_embeddings).astype(np.int64)
    topics[:2] = OUTLIER
    return topics


def _with_paper(vectors, topics, vector, topic):
    return np.vstack([vectors, vector[None, :]]), np.append(topics, topic)


def test_a_paper_midway_between_two_topics_gets_both(seed_embeddings, seed_topics):
    centroids = topic_centroids(seed_embeddings, seed_topics, [0, 1])
    midway = unit_rows((centroids[0] + centroids[1])[None, :])[0]
    vectors, topics = _with_paper(seed_embeddings, seed_topics, midway, 0)

    further = further_topics(vectors, topics, min_weight=0.9)

    assert further.topics[-1, 0] == 1
    # As near the other centroid as its own (its own moved a little towards it by its joining).
    assert 0.95 <= further.weights[-1, 0] <= 1.0


def test_a_paper_at_its_topics_centre_gets_no_further_topic(seed_embeddings, seed_topics):
    centre = topic_centroids(seed_embeddings, seed_topics, [0])[0]
    vectors, topics = _with_paper(seed_embeddings, seed_topics, centre, 0)

    further = further_topics(vectors, topics, min_weight=0.9)

    assert (further.topics[-1] == OUTLIER).all() and np.isnan(further.weights[-1]).all()
    # With no threshold it has the other two, nearest first.
    unlimited = further_topics(vectors, topics, min_weight=0.0)
    assert sorted(unlimited.topics[-1].tolist()) == [1, 2]
    assert unlimited.weights[-1, 0] >= unlimited.weights[-1, 1] > 0


@pytest.mark.parametrize("min_weight", [0.0, 0.8, 0.9, 1.0])
def test_further_topics_are_other_topics_weighed_nearest_first_above_the_threshold(
    seed_embeddings, seed_topics, min_weight
):
    further = further_topics(seed_embeddings, seed_topics, min_weight)
    has = further.topics != OUTLIER

    assert not has[seed_topics == OUTLIER].any(), "a paper in no topic has no further topic"
    assert (further.topics != seed_topics[:, None])[has].all()
    assert (further.topics[:, 0] != further.topics[:, 1])[has[:, 1]].all()
    assert (has[:, 0] | ~has[:, 1]).all(), "a third topic only beside a second"
    assert (further.weights[has] >= min_weight).all() and np.isnan(further.weights[~has]).all()
    assert (further.weights[has[:, 1], 0] >= further.weights[has[:, 1], 1]).all()
    # Weights are the cosine to the further topic's centroid over that to the paper's own.
    rows = np.flatnonzero(has[:, 0])
    centroids = topic_centroids(seed_embeddings, seed_topics, [0, 1, 2])
    cosine = unit_rows(seed_embeddings[rows]) @ centroids.T
    expected = (
        cosine[np.arange(len(rows)), further.topics[rows, 0]]
        / cosine[np.arange(len(rows)), seed_topics[rows]]
    )
    np.testing.assert_allclose(further.weights[rows, 0], expected, atol=5e-4)


def test_a_stricter_threshold_keeps_fewer_further_topics(seed_embeddings, seed_topics):
    counts = [
        int((further_topics(seed_embeddings, seed_topics, w).topics != OUTLIER).sum())
        for w in (0.0, 0.9, 1.1)
    ]
    assert counts[0] == 2 * int((seed_topics != OUTLIER).sum()) > counts[1] > counts[2]


def test_one_topic_has_no_further_topics(seed_embeddings):
    further = further_topics(seed_embeddings, np.zeros(len(seed_embeddings), dtype=np.int64), 0.0)
    assert (further.topics == OUTLIER).all()


def test_bridges_count_the_papers_each_pair_of_topics_shares(seed_embeddings, seed_topics):
    further = further_topics(seed_embeddings, seed_topics, 0.85)
    columns = further_topic_columns(further)
    labels = {0: "zero", 1: "one", 2: "two"}

    table = bridges_table(seed_topics, further, labels)

    # By hand, from papers.csv's columns: each paper counts once for its own topic and each other.
    hand: dict[tuple[int, int], list[int]] = {}
    for own, second, third in zip(seed_topics, columns["second_topic"], columns["third_topic"], strict=True):
        for other in (second, third):
            if other != OUTLIER:
                counts = hand.setdefault((min(own, other), max(own, other)), [0, 0])
                counts[0 if own < other else 1] += 1
    assert hand, "the seed papers share some topics at 0.85"
    found = {
        (row.topic_a, row.topic_b): [row.a_papers_about_b, row.b_papers_about_a] for row in table.itertuples()
    }
    assert found == hand
    assert (table["papers"] == table["a_papers_about_b"] + table["b_papers_about_a"]).all()
    assert table["papers"].is_monotonic_decreasing
    assert (table["label_a"] == table["topic_a"].map(labels)).all()


def test_no_shared_papers_make_an_empty_bridges_table(seed_embeddings, seed_topics):
    table = bridges_table(seed_topics, further_topics(seed_embeddings, seed_topics, 5.0), {})
    assert table.empty and "papers" in table.columns


def test_the_bench_measures_keyword_nearness_with_the_paper_left_out_of_its_own_topic():
    from bench.bridges import beats_random_topic, keyword_matrix, keyword_nearness

    keywords = [
        ["graph neural networks", "drug discovery"],
        ["Graph neural network"],
        ["drug discovery"],
        ["planning"],
    ]
    topics = np.array([0, 0, 1, 2])
    nearness = keyword_nearness(keyword_matrix(keywords), topics, np.array([0, 1, 2]))

    # Paper 0 alone in its topic but for paper 1, which shares one of its two keywords (singular
    # and case aside): cosine 1 / (sqrt 2 * 1); topic 1 holds its other keyword; topic 2 nothing.
    np.testing.assert_allclose(nearness[0], [1 / np.sqrt(2), 1 / np.sqrt(2), 0.0])
    np.testing.assert_allclose(nearness[3], [0.0, 0.0, 0.0])  # alone in its topic, left out of it
    # Paper 0's topic 1 against the one other topic (2): nearer; against none but a tie: half.
    assert beats_random_topic(nearness[:1], np.array([1]), np.array([[0, 1]])).tolist() == [1.0]
    assert beats_random_topic(nearness[3:], np.array([1]), np.array([[2, 1]])).tolist() == [0.5]
