"""Coarse topic groups, the level the map shows zoomed out: topics merged by the average-linkage
clustering of their centroids, no group over ``MAX_GROUP_SHARE`` of the papers in topics. Their
labels are ``papertopics.topics.label_groups``'.

Unbounded, average linkage gathered the spread-out topics into one group: 38% of IJCAI's papers
and 49% of 3,000 arXiv papers, "matrix" over boosting, kernels, ranking and hashing on NeurIPS.
The bound keeps the groups' agreement with the corpora's labels (NMI 0.368 → 0.366 on IJCAI's
areas, 0.386 → 0.390 on arXiv's categories, 0.300 → 0.334 on 800 IJCAI papers) with the largest
group at 25%, 31% and 31% (bench/topic-groups.md).
"""

from __future__ import annotations

import numpy as np

from papertopics.mapping.cluster import OUTLIER, topic_centroids

# The bound (#50), not tuned: a group is a part of the field, not most of it.
MAX_GROUP_SHARE = 1 / 3


def topic_groups(
    embeddings: np.ndarray, topics: np.ndarray, n_groups: int
) -> tuple[dict[int, int], list[dict]]:
    """A coarser layer: topics merged, by average-linkage clustering of their centroids (cosine),
    into ``n_groups`` groups, never two groups that would hold together more than
    ``MAX_GROUP_SHARE`` of the papers in topics (more groups are left where no merge keeps to
    that). Returns topic → group and the groups (number, topics largest first, size; labelled by
    ``papertopics.topics.label_groups.group_labels``), largest first.
    """
    real = sorted(t for t in set(topics.tolist()) if t != OUTLIER)
    if n_groups < 2 or len(real) <= n_groups:
        return {}, []
    sizes = {t: int((topics == t).sum()) for t in real}
    members = bounded_average_linkage(
        topic_centroids(embeddings, topics, real).astype(np.float64),
        np.array([sizes[t] for t in real], dtype=np.float64),
        n_groups,
        MAX_GROUP_SHARE * sum(sizes.values()),
    )
    ordered = sorted(
        ([real[i] for i in group] for group in members), key=lambda ts: (-sum(sizes[t] for t in ts), min(ts))
    )
    group_of, groups = {}, []
    for number, group_topics in enumerate(ordered):
        group_topics = sorted(group_topics, key=lambda t: (-sizes[t], t))
        groups.append({"group": number, "topics": group_topics, "size": sum(sizes[t] for t in group_topics)})
        group_of.update({t: number for t in group_topics})
    return group_of, groups


def bounded_average_linkage(
    centroids: np.ndarray, sizes: np.ndarray, n_groups: int, most_papers: float
) -> list[list[int]]:
    """Average linkage (UPGMA) of the rows of ``centroids`` by cosine distance, each merge the
    closest pair of groups holding together at most ``most_papers`` (``sizes``: each row's
    papers), until ``n_groups`` are left or no pair may merge. Returns the groups' rows.

    SciPy's linkage builds the whole tree without a bound; this is its average linkage with the
    Lance-Williams update, a pair allowed only while its papers fit.
    """
    unit = centroids / np.linalg.norm(centroids, axis=1, keepdims=True)
    distance = 1 - unit @ unit.T
    np.fill_diagonal(distance, np.inf)
    members = [[row] for row in range(len(centroids))]
    papers, rows_in = sizes.astype(np.float64).copy(), np.ones(len(centroids))
    left = len(centroids)
    while left > n_groups:
        allowed = np.where(papers[:, None] + papers[None, :] <= most_papers, distance, np.inf)
        a, b = sorted(np.unravel_index(np.argmin(allowed), allowed.shape))
        if not np.isfinite(allowed[a, b]):
            break
        merged = (rows_in[a] * distance[a] + rows_in[b] * distance[b]) / (rows_in[a] + rows_in[b])
        distance[a], distance[:, a] = merged, merged
        distance[a, a] = np.inf
        distance[b], distance[:, b] = np.inf, np.inf
        papers[a], papers[b] = papers[a] + papers[b], np.inf
        rows_in[a] += rows_in[b]
        members[a], members[b] = members[a] + members[b], []
        left -= 1
    return [sorted(group) for group in members if group]
