"""Each paper's most similar papers by embedding (papertopics.mapping.similar, rule similar_papers)."""

from __future__ import annotations

import numpy as np
import pytest
from papertopics import storage
from papertopics.mapping.similar import similar_papers
from test_light_imports import imported_after


def _vectors(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(8, 24))
    return (centres[rng.integers(0, 8, n)] + 0.6 * rng.normal(size=(n, 24))).astype(np.float32)


def _brute_force(vectors: np.ndarray, count: int) -> np.ndarray:
    units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    similarity = units @ units.T
    np.fill_diagonal(similarity, -np.inf)
    return np.argsort(-similarity, axis=1, kind="stable")[:, :count]


def test_exact_similar_papers_are_the_nearest_others_most_similar_first():
    vectors = _vectors(500)
    indices, similarity = similar_papers(vectors, 10, exact_up_to=1000)
    assert indices.shape == similarity.shape == (500, 10) and indices.dtype == np.int32
    assert not (indices == np.arange(500)[:, None]).any(), "a paper is not its own similar paper"
    assert (indices == _brute_force(vectors, 10)).mean() > 0.999  # ties may swap
    assert (np.diff(similarity, axis=1) <= 1e-6).all()


def test_a_paper_and_its_duplicate_are_each_others_most_similar():
    vectors = _vectors(50)
    vectors[7] = vectors[3]
    indices, similarity = similar_papers(vectors, 5, exact_up_to=1000)
    assert indices[3, 0] == 7 and indices[7, 0] == 3
    assert similarity[3, 0] == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("n, expected", [(1, 0), (2, 1), (4, 3), (30, 10)])
def test_a_small_corpus_gives_every_other_paper_at_most(n, expected):
    indices, similarity = similar_papers(_vectors(n), 10, exact_up_to=1000)
    assert indices.shape == similarity.shape == (n, expected)


@pytest.mark.slow(reason="compiles NN-descent's kernels")
def test_above_the_exact_limit_the_approximate_search_finds_nearly_the_same_papers():
    vectors = _vectors(2000)
    indices, _ = similar_papers(vectors, 10, exact_up_to=1000)
    assert not (indices == np.arange(2000)[:, None]).any()
    exact = _brute_force(vectors, 10)
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(indices, exact, strict=True)])
    assert recall > 0.9


def test_the_stage_writes_the_corpus_ids_and_imports_no_heavy_library(tmp_path):
    records = [{"id": f"p{i}", "dump": "d", "text": f"paper {i}"} for i in range(40)]
    storage.write_jsonl(tmp_path / "papers.jsonl", records)
    vectors = _vectors(40)
    # The embeddings file lists the papers in another order than the corpus does.
    storage.write_arrays(
        tmp_path / "d.npz", ids=np.array([r["id"] for r in records][::-1]), vectors=vectors[::-1]
    )
    out = tmp_path / "similar.npz"
    code = (
        "from papertopics.mapping import stages as mapping_stages\n"
        f"mapping_stages.similar_papers({str(tmp_path / 'papers.jsonl')!r}, [{str(tmp_path / 'd.npz')!r}], {str(out)!r}, {{'similar_papers': 5, 'similar_exact_up_to': 1000}})\n"
    )
    assert imported_after(code) == []
    stored = storage.read_arrays(out)
    assert stored["ids"].tolist() == [r["id"] for r in records]
    assert (stored["indices"] == _brute_force(vectors, 5)).mean() > 0.99
