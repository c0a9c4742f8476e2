"""Each paper's most similar papers, for the report's paper panel: nearest by cosine similarity of
the embeddings, exact up to ``exact_up_to`` papers (a few matrix products, growing as n^2), UMAP's
approximate search (NN-descent, with a fixed seed of its own) above.
"""

from __future__ import annotations

import numpy as np

from papertopics.mapping.reduce import approximate_neighbours, exact_neighbours, neighbour_search


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
