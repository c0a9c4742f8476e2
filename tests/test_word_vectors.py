"""Word vectors joined to the embeddings before UMAP (umap.word_weight)."""

import numpy as np
import pytest
from papertopics.mapping.reduce import hybrid_vectors, word_vectors

TEXTS = [
    "graph neural networks for node classification",
    "graph neural networks and node embeddings",
    "image segmentation with convolutional networks",
    "medical image segmentation",
    "planning with temporal constraints",
    "temporal planning and scheduling",
]


def _embeddings(seed=0):
    vectors = np.random.default_rng(seed).standard_normal((len(TEXTS), 8)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_word_vectors_are_unit_length_and_put_shared_words_close():
    words = word_vectors(TEXTS, dimensions=4, random_state=0)
    assert words.shape == (6, 4)
    assert np.allclose(np.linalg.norm(words, axis=1), 1, atol=1e-5)
    similarity = words @ words.T
    assert similarity[0, 1] > similarity[0, 4]
    assert similarity[4, 5] > similarity[4, 2]


def test_hybrid_similarity_is_the_weighted_mean_of_both_similarities():
    embeddings = _embeddings()
    words = word_vectors(TEXTS, dimensions=4, random_state=0)
    joined = hybrid_vectors(embeddings, TEXTS, word_weight=0.3, word_dimensions=4, random_state=0)
    expected = 0.7 * embeddings @ embeddings.T + 0.3 * words @ words.T
    assert joined @ joined.T == pytest.approx(expected, abs=1e-5)


def test_weight_zero_and_wordless_texts_leave_the_embeddings_alone():
    embeddings = _embeddings()
    assert hybrid_vectors(embeddings, TEXTS, 0.0, 4, 0) is embeddings
    numbers = ["1 2 3", "4 5 6", "7 8 9", "1 2", "3 4", "5 6"]
    assert hybrid_vectors(embeddings, numbers, 0.5, 4, 0) is embeddings
