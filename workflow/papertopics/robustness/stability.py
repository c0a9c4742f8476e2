"""Each topic of the main run matched in each replicate, and graded by how often it comes back.

Hennig's cluster-wise stability (``clusterboot`` in R's fpc): a topic's papers that a replicate
drew are compared with each of the replicate's topics by Jaccard (papers in both over papers in
either); the best is the topic's match there, and its stability the mean of its best matches over
the replicates. A paper the replicate left as an outlier is in none of its topics, so it counts
against the match. Hennig's reading of the figure gives the grades.
"""

from __future__ import annotations

import numpy as np

from papertopics.mapping.cluster import OUTLIER

# A topic matches a replicate's topic above this Jaccard (clusterboot: at most 0.5, dissolved).
MATCH_JACCARD = 0.5
# Hennig's cut-offs: at least 0.85 highly stable, at least 0.75 stable; 0.6 to 0.75 a pattern whose
# members are doubtful; below 0.6 not to be trusted.
HIGHLY_STABLE = 0.85
STABLE = 0.75
TRUSTED = 0.6


def best_matches(topic_of: np.ndarray, rows: np.ndarray, labels: np.ndarray, topics: list[int]):
    """Each of ``topics``' best-matching topic in one replicate and their Jaccard.

    Args:
        topic_of: every paper's topic in the main run (``OUTLIER`` for a paper in none).
        rows: the papers the replicate drew.
        labels: their topics in the replicate (``OUTLIER``: left out of every topic).
        topics: the main run's topics to match.

    Returns:
        Two arrays in ``topics``' order: the replicate's best topic (``OUTLIER`` where the topic
        has no paper in the replicate's topics) and the Jaccard (0 then).
    """
    drawn = np.asarray(topic_of)[rows]
    replicate_topics = np.unique(labels[labels != OUTLIER])
    column = np.searchsorted(replicate_topics, labels)
    in_topic = labels != OUTLIER
    # Papers each main topic shares with each replicate topic, and each side's size.
    topic_index = {topic: index for index, topic in enumerate(topics)}
    main_rows = np.array([topic_index.get(topic, -1) for topic in drawn.tolist()], dtype=np.int64)
    shared = np.zeros((len(topics), len(replicate_topics)), dtype=np.int64)
    both = (main_rows >= 0) & in_topic
    np.add.at(shared, (main_rows[both], column[both]), 1)
    topic_sizes = np.bincount(main_rows[main_rows >= 0], minlength=len(topics))
    replicate_sizes = np.bincount(column[in_topic], minlength=len(replicate_topics))
    union = topic_sizes[:, None] + replicate_sizes[None, :] - shared
    jaccard = np.divide(shared, union, out=np.zeros(shared.shape), where=union > 0)
    if not len(replicate_topics):
        return np.full(len(topics), OUTLIER, dtype=np.int64), np.zeros(len(topics))
    best = jaccard.argmax(axis=1)
    best_jaccard = jaccard[np.arange(len(topics)), best]
    return np.where(best_jaccard > 0, replicate_topics[best], OUTLIER), best_jaccard


def stability_grade(stability: float | None) -> str:
    """Hennig's reading of a stability: ``highly stable``, ``stable``, ``doubtful`` (a pattern
    whose papers are uncertain), ``not to be trusted`` (below 0.6) or ``dissolved`` (at most 0.5);
    empty where no replicate was drawn.
    """
    if stability is None or np.isnan(stability):
        return ""
    if stability >= HIGHLY_STABLE:
        return "highly stable"
    if stability >= STABLE:
        return "stable"
    if stability >= TRUSTED:
        return "doubtful"
    if stability > MATCH_JACCARD:
        return "not to be trusted"
    return "dissolved"


def trusted(stability: float | None) -> bool:
    """Whether a topic's stability is at least ``TRUSTED`` (or unmeasured: no replicates)."""
    return stability is None or np.isnan(stability) or stability >= TRUSTED
