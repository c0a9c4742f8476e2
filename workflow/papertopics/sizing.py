"""Resolve the size-dependent knobs that accept ``auto`` from the corpus size."""

from __future__ import annotations


def _clamp(value: float, low: int, high: int) -> int:
    return int(max(low, min(high, round(value))))


def resolve_n_neighbors(setting: int | str, n_papers: int) -> int:
    """UMAP neighbourhood size: about n/8 between 2 and 15, always below the corpus size."""
    wanted = _clamp(n_papers / 8, 2, 15) if setting == "auto" else int(setting)
    return max(1, min(wanted, n_papers - 1))


def resolve_min_cluster_size(setting: int | str, n_papers: int) -> int:
    """Smallest topic: about n/10 between 2 and 10 for small corpora, growing slowly beyond."""
    if setting != "auto":
        return int(setting)
    return _clamp(n_papers / 10, 2, max(10, round(n_papers / 250)))


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
