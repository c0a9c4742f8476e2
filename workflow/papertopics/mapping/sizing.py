"""Resolve the size-dependent knobs that accept ``auto`` from the corpus size.

Below about 150 papers the neighbourhood is a tenth of the corpus and the smallest topic a
twelfth. With n/8 and n/10 (before issue #28) HDBSCAN kept two topics of the 38 shipped abstracts
(large language models, and everything else); with these, five (language models, diffusion
models, reinforcement learning, tabular and graph networks, and a mixed one of time series and
vision). On 8 random sets each of 30, 38 and 50 IJCAI abstracts of one year they gave 4.9, 3.2
and 2.9 topics on average instead of 3.0, 2.4 and 2.4, agreeing better with the area labels (NMI
0.47, 0.46, 0.33 against 0.38, 0.41, 0.31). From 150 papers the neighbourhood is 15 and from
120 the smallest topic at least 10, as before.
"""

from __future__ import annotations


def _clamp(value: float, low: int, high: int) -> int:
    return int(max(low, min(high, round(value))))


def resolve_n_neighbors(setting: int | str, n_papers: int) -> int:
    """UMAP neighbourhood size: about n/10 between 2 and 15, always below the corpus size."""
    wanted = _clamp(n_papers / 10, 2, 15) if setting == "auto" else int(setting)
    return max(1, min(wanted, n_papers - 1))


def resolve_min_cluster_size(setting: int | str, n_papers: int) -> int:
    """Smallest topic: about n/12 between 2 and 10 for small corpora, n/250 for large ones."""
    if setting != "auto":
        return int(setting)
    return _clamp(n_papers / 12, 2, max(10, round(n_papers / 250)))


# Below this many papers "auto" selects HDBSCAN's leaves: on a few dozen abstracts the condensed
# tree is shallow and excess of mass can keep one cluster of most of the corpus (the shipped
# dumps' 38 abstracts: 33 in one topic of 2 with fp32 vectors, 5 topics with bf16; leaves: 5 with
# both). On 8 random sets each of 30 to 120 papers of one year, leaves agreed better with
# IJCAI's areas at every size and backend (NMI 0.36-0.59 against 0.30-0.50) and as well with
# arXiv's coarse categories (within ±0.03); from 150 papers the size limit keeps eom's clusters
# in bounds (resolve_max_cluster_size). bench/small-corpora.md has the table.
LEAVES_BELOW = 150


def resolve_selection_method(setting: str, n_papers: int) -> str:
    """HDBSCAN's cluster selection: ``leaf`` or ``eom`` as set, or for ``auto`` leaves below
    ``LEAVES_BELOW`` papers and excess of mass from there.
    """
    if setting != "auto":
        return setting
    return "leaf" if n_papers < LEAVES_BELOW else "eom"


def resolve_max_cluster_size(share: float, n_papers: int, min_cluster_size: int) -> int:
    """Largest topic HDBSCAN may keep (0 = no limit): ``share`` of the corpus, where that leaves
    room for at least two topics of ``min_cluster_size``; smaller corpora get no limit.
    """
    limit = int(share * n_papers)
    return limit if 0 < share < 1 and limit >= 2 * min_cluster_size else 0


def resolve_coarse_topics(setting: int | str, n_topics: int) -> int:
    """Topic groups in the coarse layer; "auto" is about a fifth of the topics, 2 to 12.

    0 means no coarse layer, as does a corpus with too few topics to group.
    """
    wanted = _clamp(n_topics / 5, 2, 12) if setting == "auto" else int(setting)
    return wanted if 2 <= wanted < n_topics and n_topics >= 6 else 0
