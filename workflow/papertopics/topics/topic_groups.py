"""Coarse topic groups, the level the map shows zoomed out: topics merged by the average-linkage
clustering of their centroids. Their labels are ``papertopics.topics.label_groups``'.
"""

from __future__ import annotations

import numpy as np

from papertopics.mapping.cluster import OUTLIER, topic_centroids


def topic_groups(
    embeddings: np.ndarray, topics: np.ndarray, n_groups: int
) -> tuple[dict[int, int], list[dict]]:
    """A coarser layer: topics merged, by average-linkage clustering of their centroids
    (cosine), into ``n_groups`` groups. Returns topic → group and the groups (number, topics
    largest first, size; labelled by ``papertopics.topics.label_groups.group_labels``), largest first.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.cluster.hierarchy import fcluster, linkage

    real = sorted(t for t in set(topics.tolist()) if t != OUTLIER)
    if n_groups < 2 or len(real) <= n_groups:
        return {}, []
    tree = linkage(
        topic_centroids(embeddings, topics, real).astype(np.float64), method="average", metric="cosine"
    )
    clusters = fcluster(tree, t=n_groups, criterion="maxclust")
    sizes = {t: int((topics == t).sum()) for t in real}
    members: dict[int, list[int]] = {}
    for topic, cluster in zip(real, clusters.tolist(), strict=True):
        members.setdefault(cluster, []).append(topic)
    ordered = sorted(members.values(), key=lambda ts: (-sum(sizes[t] for t in ts), ts[0]))
    group_of, groups = {}, []
    for number, group_topics in enumerate(ordered):
        group_topics = sorted(group_topics, key=lambda t: (-sizes[t], t))
        groups.append(
            {
                "group": number,
                "topics": group_topics,
                "size": sum(sizes[t] for t in group_topics),
            }
        )
        group_of.update({t: number for t in group_topics})
    return group_of, groups
