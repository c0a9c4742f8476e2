"""Coarse topic groups, the level the map shows zoomed out: topics merged by average linkage of
their papers (the mean distance between every paper of one group and every paper of the other),
each topic kept whole, no group over ``MAX_GROUP_SHARE`` of the papers in topics. Their labels are
``papertopics.topics.label_groups``'.

Unbounded, average linkage gathered the spread-out topics into one group: 38% of IJCAI's papers
and 49% of 3,000 arXiv papers, "matrix" over boosting, kernels, ranking and hashing on NeurIPS.
The bound brought the largest group to 25% and 31% (bench/topic-groups.md). Linking the topics'
papers rather than their unit-length centroids (each topic then weighing as one, however many
papers it holds) puts the groups where the papers are: NMI against the corpora's labels 0.366 →
0.376 on IJCAI's areas, 0.390 → 0.400 on arXiv's categories, 0.250 → 0.318 on 800 IJCAI papers,
each at least k-means on the papers themselves with as many groups (0.374, 0.389, 0.297).
"""

from __future__ import annotations

import numpy as np

from papertopics.mapping.cluster import OUTLIER, unit_rows

# The bound (#50), not tuned: a group is a part of the field, not most of it ...
MAX_GROUP_SHARE = 1 / 3
# ... unless the data has that shape: a merged group whose topics are on average at most this
# share as far from each other as from the other topics. COLM's and CoRL's halves of their papers
# are 0.40 and 0.42, IJCAI's catch-all of spread-out topics 0.68: chosen between those two
# corpora, and judged on arXiv and on 800 IJCAI papers (bench/topic-groups.md).
TIGHT_GROUP_RATIO = 0.55


def topic_groups(
    embeddings: np.ndarray, topics: np.ndarray, n_groups: int
) -> tuple[dict[int, int], list[dict]]:
    """A coarser layer: topics merged, by average linkage of their papers (cosine), into
    ``n_groups`` groups, never two groups that would hold together more than ``MAX_GROUP_SHARE``
    of the papers in topics (more groups are left where no merge keeps to that). Returns topic →
    group and the groups (number, topics largest first, size; labelled by
    ``papertopics.topics.label_groups.group_labels``), largest first.
    """
    real = sorted(t for t in set(topics.tolist()) if t != OUTLIER)
    if n_groups < 2 or len(real) <= n_groups:
        return {}, []
    sizes = {t: int((topics == t).sum()) for t in real}
    members = bounded_average_linkage(
        np.vstack([unit_rows(embeddings[topics == t].astype(np.float64)).mean(axis=0) for t in real]),
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
    means: np.ndarray, sizes: np.ndarray, n_groups: int, most_papers: float
) -> list[list[int]]:
    """Average linkage (UPGMA) of the papers of the rows' topics by cosine distance, each topic's
    papers kept together (``means``: each topic's mean unit-length paper vector, ``sizes``: its
    papers); each merge the closest pair of groups holding together at most ``most_papers``, or a
    closer pair over that bound whose merged group is tight (``_tightness`` at most
    ``TIGHT_GROUP_RATIO``), until ``n_groups`` are left or no pair may merge. Returns the groups'
    rows.

    The mean cosine distance between the papers of two topics is one less the product of their
    mean vectors; a merged group's to any other is its parts' weighted by their papers
    (Lance-Williams), so each distance stays the mean over the two groups' pairs of papers.
    SciPy's linkage takes no weights and builds the whole tree without a bound.
    """
    distance = 1 - means @ means.T
    np.fill_diagonal(distance, np.inf)
    # Tightness reads the topics' centroids, as TIGHT_GROUP_RATIO was chosen on them.
    unit = unit_rows(means)
    pairwise = 1 - unit @ unit.T
    members = [[row] for row in range(len(means))]
    papers = sizes.astype(np.float64).copy()
    while len([group for group in members if group]) > n_groups:
        fits = np.where(papers[:, None] + papers[None, :] <= most_papers, distance, np.inf)
        best = np.unravel_index(np.argmin(fits), fits.shape)
        closer = np.argwhere(np.triu(distance < fits[best], 1)).tolist()
        closer.sort(key=lambda pair: (distance[pair[0], pair[1]], pair))
        tight = next(
            (pair for pair in closer if _tightness(pairwise, members, *pair) <= TIGHT_GROUP_RATIO), None
        )
        if tight is not None:
            a, b = tight
        elif np.isfinite(fits[best]):
            a, b = sorted(best)
        else:
            break
        merged = (papers[a] * distance[a] + papers[b] * distance[b]) / (papers[a] + papers[b])
        distance[a], distance[:, a] = merged, merged
        distance[a, a] = np.inf
        distance[b], distance[:, b] = np.inf, np.inf
        papers[a], papers[b] = papers[a] + papers[b], np.inf
        members[a], members[b] = members[a] + members[b], []
    return [sorted(group) for group in members if group]


def _tightness(pairwise: np.ndarray, members: list[list[int]], a: int, b: int) -> float:
    """The merged group's mean distance between its own rows over their mean distance to every
    other row (infinite with no other row): small where the data has the shape of one group.
    """
    inside = members[a] + members[b]
    outside = np.setdiff1d(np.arange(len(pairwise)), inside)
    if not len(outside):
        return np.inf
    block = pairwise[np.ix_(inside, inside)]
    within = block[np.triu_indices(len(inside), 1)].mean()
    return within / pairwise[np.ix_(inside, outside)].mean()
