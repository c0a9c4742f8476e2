"""Each paper's most similar papers, for the report's paper panel: nearest by cosine similarity of
the embeddings, exact up to ``exact_up_to`` papers (a few matrix products, growing as n^2), UMAP's
approximate search (NN-descent, with a fixed seed of its own) above.

Under ``update: place`` the lists of the fitted corpus are kept with the fit (``KeptSimilar``), and
a rerun compares only the papers added since with all (``similar_papers_added``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from papertopics import storage
from papertopics.mapping.cluster import unit_rows
from papertopics.mapping.reduce import (
    approximate_neighbours,
    exact_neighbours,
    most_similar,
    neighbour_search,
)


def similar_papers(vectors: np.ndarray, count: int, exact_up_to: int) -> tuple[np.ndarray, np.ndarray]:
    """Each paper's ``count`` most similar other papers, most similar first (row indices, int32),
    and their cosine similarities (float32); fewer columns where the corpus has fewer other papers.
    """
    wanted = min(count, len(vectors) - 1)
    if wanted <= 0:
        return np.zeros((len(vectors), 0), np.int32), np.zeros((len(vectors), 0), np.float32)
    search = (
        exact_neighbours if neighbour_search(len(vectors), exact_up_to) == "exact" else approximate_neighbours
    )
    indices, distances = search(vectors, wanted + 1, "cosine")
    # Each paper's own row is among its nearest (first, in the exact search); left out here. Where
    # the approximate search missed it, the least similar neighbour is left out instead.
    own = indices == np.arange(len(vectors))[:, None]
    own[~own.any(axis=1), -1] = True
    keep = ~own
    return (
        indices[keep].reshape(len(vectors), wanted).astype(np.int32),
        (1.0 - distances[keep].reshape(len(vectors), wanted)).astype(np.float32),
    )


@dataclass(frozen=True)
class KeptSimilar:
    """An earlier corpus's similar papers, kept with its fit (``results/fit/similar.npz``): its
    papers (``ids``), each one's similar papers (``indices`` into ``ids``) and ``similarity`` as
    ``similar_papers`` found them, how they were searched (``search``, ``neighbour_search``'s
    word), and ``vectors_fingerprint`` of its papers' vectors in that order (``fingerprint``).
    """

    ids: np.ndarray
    indices: np.ndarray
    similarity: np.ndarray
    search: str
    fingerprint: str

    @classmethod
    def read(cls, path: str) -> KeptSimilar | None:
        """The lists the similar-papers stage wrote to ``path``; None where they lack a field."""
        stored = storage.read_arrays(path)
        fields = ("ids", "indices", "similarity", "search", "fingerprint")
        if not set(fields) <= stored.keys():
            return None
        return cls(
            stored["ids"],
            stored["indices"],
            stored["similarity"],
            str(stored["search"]),
            str(stored["fingerprint"]),
        )


@dataclass(frozen=True)
class FoundSimilar:
    """``similar_papers_since``' answer: the lists, how they were searched (``neighbour_search``'s
    word, kept with a fit), and how they were found (for the log).
    """

    indices: np.ndarray
    similarity: np.ndarray
    search: str
    how: str


def similar_papers_since(
    vectors: np.ndarray, ids: list[str], count: int, exact_up_to: int, kept: KeptSimilar | None
) -> FoundSimilar:
    """``similar_papers``, or ``similar_papers_added`` where lists ``kept`` with the fit hold."""
    why_not = why_not_added(kept, ids, vectors, count, exact_up_to) if kept else "none kept"
    if not why_not:
        indices, similarity = similar_papers_added(vectors, count, kept, ids)
        added = len(ids) - len(kept.ids)
        return FoundSimilar(indices, similarity, kept.search, f"{added} added to the fit's kept lists")
    search = neighbour_search(len(ids), exact_up_to)
    indices, similarity = similar_papers(vectors, count, exact_up_to)
    return FoundSimilar(indices, similarity, search, search if kept is None else f"{search}: {why_not}")


def vectors_fingerprint(vectors: np.ndarray) -> str:
    """A digest of the vectors' float32 values, in order: kept lists hold for these vectors only."""
    return hashlib.sha256(np.ascontiguousarray(vectors, dtype=np.float32).tobytes()).hexdigest()


def why_not_added(
    kept: KeptSimilar, ids: list[str], vectors: np.ndarray, count: int, exact_up_to: int
) -> str:
    """Why the kept lists cannot be extended to this corpus (``ids``, ``vectors``) by
    ``similar_papers_added``: a reason to log, or "" where they can.
    """
    row_of = {paper: row for row, paper in enumerate(ids)}
    rows = [row_of.get(paper) for paper in kept.ids.tolist()]
    if None in rows:
        return f"their paper {kept.ids[rows.index(None)]} is no longer in the corpus"
    if vectors_fingerprint(vectors[rows]) != kept.fingerprint:
        return "their papers' embeddings changed"
    if kept.indices.shape[1] != min(count, len(kept.ids) - 1):
        return f"they list {kept.indices.shape[1]} similar papers a paper, not {count}"
    if kept.search != "exact" and neighbour_search(len(ids), exact_up_to) == "exact":
        return "they were searched approximately, and this corpus is searched exactly"
    return ""


def similar_papers_added(
    vectors: np.ndarray, count: int, kept: KeptSimilar, ids: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    """``similar_papers`` of a corpus (``ids``, ``vectors``) whose kept papers have theirs among
    themselves already (``why_not_added`` says none): only the papers added since are compared
    with all, (added x all) products instead of (all x all). An added paper's list is searched
    exactly; a kept paper's is its kept list merged with its most similar added papers. Equal to
    the exact search (up to float rounding) where the kept lists are exact.
    """
    wanted = min(count, len(vectors) - 1)
    if wanted <= 0:
        return np.zeros((len(vectors), 0), np.int32), np.zeros((len(vectors), 0), np.float32)
    row_of = {paper: row for row, paper in enumerate(ids)}
    kept_rows = np.array([row_of[paper] for paper in kept.ids.tolist()], dtype=np.int64)
    added = np.setdiff1d(np.arange(len(vectors)), kept_rows)
    units = unit_rows(vectors).astype(np.float32)
    indices = np.empty((len(vectors), wanted), dtype=np.int32)
    similarity = np.empty((len(vectors), wanted), dtype=np.float32)
    everyone = np.arange(len(vectors))
    # Ranked by the similarities themselves, as the exact search ranks them, then rounded as it
    # rounds them: only the few kept per row.
    for block in _blocks(len(added), len(vectors)):
        rows = added[block]
        scores = units[rows] @ units.T
        scores[np.arange(len(rows)), rows] = -np.inf  # a paper is not its own similar paper
        indices[rows], nearest = _best(np.broadcast_to(everyone, scores.shape), scores, wanted)
        similarity[rows] = _as_searched(nearest)
    full = kept.indices.shape[1] == wanted
    if full:
        indices[kept_rows], similarity[kept_rows] = kept_rows[kept.indices], kept.similarity
    # An added paper enters a kept paper's list only if at least as similar as the list's last
    # (the margin covers rounding): most lists take none, and are left as they were kept.
    floor = kept.similarity[:, -1] - 1e-6 if full else np.full(len(kept_rows), -np.inf, np.float32)
    for block in _blocks(len(kept_rows), len(added)):
        scores = units[kept_rows[block]] @ units[added].T
        taking = np.flatnonzero((scores >= floor[block, None]).any(axis=1))
        at = taking + block.start
        nearest, closest = _best(np.broadcast_to(added, (len(at), len(added))), scores[taking], wanted)
        indices[kept_rows[at]], similarity[kept_rows[at]] = _best(
            np.hstack([kept_rows[kept.indices[at]], nearest]),
            np.hstack([kept.similarity[at], _as_searched(closest)]),
            wanted,
        )
    return indices, similarity


def _as_searched(similarity: np.ndarray) -> np.ndarray:
    """Cosine similarities rounded as ``similar_papers`` gives them (1 - a distance clipped to
    [0, 2], in float32), so that kept and new ones compare alike.
    """
    return (1.0 - np.clip(1.0 - similarity, 0.0, 2.0)).astype(np.float32)


def _blocks(rows: int, columns: int):
    """Slices of ``rows`` whose similarities to ``columns`` papers stay under 2^25 values at once."""
    step = max(1, (1 << 25) // max(columns, 1))
    return (slice(start, start + step) for start in range(0, rows, step))


def _best(candidates: np.ndarray, scores: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``count`` candidates of highest score, highest first, ties by the lower candidate
    (``candidates`` ascending along each row where it has more than ``4 * count`` columns).
    """
    if scores.shape[1] > 4 * count:
        columns = most_similar(scores, count)
        candidates = np.take_along_axis(candidates, columns, axis=1)
        scores = np.take_along_axis(scores, columns, axis=1)
    order = np.lexsort((candidates, -scores), axis=1)[:, :count]
    return np.take_along_axis(candidates, order, axis=1), np.take_along_axis(scores, order, axis=1)
