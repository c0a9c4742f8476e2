"""Papers between topics: each paper's further topics, and the topic pairs that share most papers.

A paper is in one topic (its cluster's), but its abstract can be as much about a second or third.
Its further topics are the topics whose centroids (the unit mean embedding of their papers,
``topic_centroids``) are nearest it after its own, each weighed by its cosine similarity to that
centroid relative to its similarity to its own topic's: 1 is as near as its own, above 1 nearer
(a paper clustered in the 5-d projection can sit nearer another centroid in the full space). A
further topic counts from ``min_weight`` up. The weights are the embeddings' own geometry, the
space the topics were found in; bench/bridges.md measures them against IJCAI's sub-area keywords
and COLM's and CoRL's free keywords. Trends and shares stay on each paper's main topic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from papertopics.mapping.cluster import OUTLIER, topic_centroids, unit_rows

# papers.csv's columns of each further topic and its weight, nearest first: a paper gets at most
# two topics beside its own (OpenAlex gives a work up to three topics).
FURTHER_TOPIC_COLUMNS = (("second_topic", "second_weight"), ("third_topic", "third_weight"))
MOST_FURTHER_TOPICS = len(FURTHER_TOPIC_COLUMNS)
# The weights as written in papers.csv: three decimals tell the threshold's side apart.
WEIGHT_DECIMALS = 3


@dataclass(frozen=True)
class FurtherTopics:
    """Each paper's further topics, nearest first: ``topics[i, k]`` (``OUTLIER`` where none) and
    its weight ``weights[i, k]`` (NaN where none), ``k`` < ``MOST_FURTHER_TOPICS``.
    """

    topics: np.ndarray
    weights: np.ndarray


def further_topics(vectors: np.ndarray, topics: np.ndarray, min_weight: float) -> FurtherTopics:
    """Each paper's further topics (up to ``MOST_FURTHER_TOPICS``), those whose centroid's cosine
    similarity to it is at least ``min_weight`` times its own topic's. A paper in no topic, or not
    nearer its own topic's centroid than orthogonal, has none.

    Args:
        vectors: each paper's embedding.
        topics: each paper's topic (``OUTLIER``: none), as shown.
        min_weight: the least weight a further topic has, relative to the paper's own topic (1).
    """
    topics = np.asarray(topics)
    found = np.full((len(topics), MOST_FURTHER_TOPICS), OUTLIER, dtype=np.int64)
    weights = np.full((len(topics), MOST_FURTHER_TOPICS), np.nan)
    real = np.unique(topics[topics != OUTLIER])
    if len(real) < 2:
        return FurtherTopics(found, weights)
    in_topic = np.flatnonzero(topics != OUTLIER)
    similarity = unit_rows(vectors[in_topic]) @ topic_centroids(vectors, topics, real).T
    own_column = np.searchsorted(real, topics[in_topic])
    own = similarity[np.arange(len(in_topic)), own_column]
    relative = similarity / np.where(own > 0, own, np.nan)[:, None]
    relative[np.arange(len(in_topic)), own_column] = -np.inf
    # Nearest first; the stable sort breaks ties by topic number, so a run is repeatable.
    nearest = np.argsort(-np.nan_to_num(relative, nan=-np.inf), axis=1, kind="stable")
    for k in range(min(MOST_FURTHER_TOPICS, len(real) - 1)):
        weight = relative[np.arange(len(in_topic)), nearest[:, k]]
        counts = weight >= min_weight  # NaN (own similarity not positive) never counts
        found[in_topic[counts], k] = real[nearest[counts, k]]
        weights[in_topic[counts], k] = np.round(weight[counts], WEIGHT_DECIMALS)
    return FurtherTopics(found, weights)


def further_topic_columns(further: FurtherTopics) -> dict[str, np.ndarray]:
    """``papers.csv``'s columns of the further topics: ``second_topic``, ``second_weight``,
    ``third_topic``, ``third_weight`` (-1 and empty where none).
    """
    columns = {}
    for k, (topic, weight) in enumerate(FURTHER_TOPIC_COLUMNS):
        columns[topic] = further.topics[:, k]
        columns[weight] = further.weights[:, k]
    return columns


def bridges_table(topics: np.ndarray, further: FurtherTopics, label_of: dict[int, str]):
    """``bridges.csv``: each pair of topics that papers share (one's main topic, the other a
    further topic of theirs), most shared first: ``topic_a`` < ``topic_b``, their labels, how many
    papers of each are also about the other, and ``papers`` (the two together).
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    main = np.repeat(np.asarray(topics), MOST_FURTHER_TOPICS)
    other = further.topics.ravel()
    shared = other != OUTLIER
    pairs = pd.DataFrame({"main": main[shared], "other": other[shared]})
    pairs["topic_a"] = pairs[["main", "other"]].min(axis=1)
    pairs["topic_b"] = pairs[["main", "other"]].max(axis=1)
    pairs["from_a"] = pairs["main"] == pairs["topic_a"]
    table = (
        pairs.groupby(["topic_a", "topic_b"])["from_a"]
        .agg(a_papers_about_b="sum", papers="size")
        .reset_index()
    )
    table["b_papers_about_a"] = table["papers"] - table["a_papers_about_b"]
    table["label_a"] = table["topic_a"].map(label_of)
    table["label_b"] = table["topic_b"].map(label_of)
    table = table.sort_values(["papers", "topic_a", "topic_b"], ascending=[False, True, True])
    columns = ["topic_a", "label_a", "topic_b", "label_b", "papers", "a_papers_about_b", "b_papers_about_a"]
    return table[columns].reset_index(drop=True)
