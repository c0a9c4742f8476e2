"""Each paper's most similar papers by embedding (papertopics.mapping.similar, rule similar_papers)."""

from __future__ import annotations

import numpy as np
import pytest
from papertopics import storage
from papertopics.mapping.similar import (
    KeptSimilar,
    similar_papers,
    similar_papers_added,
    vectors_fingerprint,
    why_not_added,
)
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
        f"mapping_stages.similar_papers({str(tmp_path / 'papers.jsonl')!r}, [{str(tmp_path / 'd.npz')!r}], [], {str(out)!r}, {{'similar_papers': 5, 'similar_exact_up_to': 1000}})\n"
    )
    assert imported_after(code) == []
    stored = storage.read_arrays(out)
    assert stored["ids"].tolist() == [r["id"] for r in records]
    assert (stored["indices"] == _brute_force(vectors, 5)).mean() > 0.99


def _kept(vectors: np.ndarray, ids: list[str], count: int) -> KeptSimilar:
    """The lists the stage would keep with a fit of these papers, searched exactly."""
    indices, similarity = similar_papers(vectors, count, exact_up_to=10_000)
    return KeptSimilar(np.array(ids), indices, similarity, "exact", vectors_fingerprint(vectors))


def test_papers_added_to_kept_lists_get_the_lists_an_exact_search_of_all_gives():
    vectors = _vectors(700, seed=3)
    ids = [f"p{i}" for i in range(700)]
    # The fit had 600 of these papers, in another order; 100 were added since, among them.
    fitted = np.random.default_rng(1).permutation(700)[:600]
    kept = _kept(vectors[fitted], [ids[i] for i in fitted], 10)
    assert why_not_added(kept, ids, vectors, 10, exact_up_to=10_000) == ""
    indices, similarity = similar_papers_added(vectors, 10, kept, ids)
    expected_indices, expected_similarity = similar_papers(vectors, 10, exact_up_to=10_000)
    assert indices.dtype == np.int32 and similarity.dtype == np.float32
    assert (indices == expected_indices).mean() > 0.999  # ties may swap
    np.testing.assert_allclose(similarity, expected_similarity, atol=1e-6)
    added = np.setdiff1d(np.arange(700), fitted)
    kept_listing_an_added = np.isin(indices[fitted], added).any(axis=1)
    assert kept_listing_an_added.sum() > 50, "kept papers' lists take in the added papers"


@pytest.mark.parametrize("fitted", [37, 5, 1])
def test_kept_lists_are_extended_with_fewer_added_papers_or_kept_papers_than_a_list(fitted):
    vectors = _vectors(40, seed=5)
    ids = [f"p{i}" for i in range(40)]
    kept = _kept(vectors[:fitted], ids[:fitted], 10)
    indices, similarity = similar_papers_added(vectors, 10, kept, ids)
    assert (indices == similar_papers(vectors, 10, exact_up_to=10_000)[0]).all()
    assert not (indices == np.arange(40)[:, None]).any()


def test_kept_lists_that_no_longer_hold_are_not_extended():
    vectors = _vectors(60, seed=7)
    ids = [f"p{i}" for i in range(60)]
    kept = _kept(vectors[:50], ids[:50], 5)
    assert why_not_added(kept, ids[1:], vectors[1:], 5, exact_up_to=1000) == (
        "their paper p0 is no longer in the corpus"
    )
    changed = vectors.copy()
    changed[3] *= 1.001
    assert why_not_added(kept, ids, changed, 5, 1000) == "their papers' embeddings changed"
    assert why_not_added(kept, ids, vectors, 8, 1000) == "they list 5 similar papers a paper, not 8"
    approximate = KeptSimilar(kept.ids, kept.indices, kept.similarity, "nn-descent", kept.fingerprint)
    assert why_not_added(approximate, ids, vectors, 5, 1000) == (
        "they were searched approximately, and this corpus is searched exactly"
    )
    assert why_not_added(approximate, ids, vectors, 5, 55) == ""


def test_the_stage_extends_the_fits_kept_lists_or_searches_again(tmp_path, caplog):
    from papertopics.mapping import stages as mapping_stages

    vectors = _vectors(80, seed=11)
    records = [{"id": f"p{i}", "dump": "d", "text": f"paper {i}"} for i in range(80)]
    storage.write_jsonl(tmp_path / "papers.jsonl", records)
    storage.write_arrays(tmp_path / "d.npz", ids=np.array([r["id"] for r in records]), vectors=vectors)
    storage.write_jsonl(tmp_path / "fitted.jsonl", records[:70])
    knobs = {"similar_papers": 5, "similar_exact_up_to": 1000}
    fitted_similar = str(tmp_path / "fit.npz")
    mapping_stages.similar_papers(
        str(tmp_path / "fitted.jsonl"), [str(tmp_path / "d.npz")], [], fitted_similar, knobs
    )
    stored = storage.read_arrays(fitted_similar)
    assert str(stored["search"]) == "exact" and str(stored["fingerprint"]) == vectors_fingerprint(
        vectors[:70]
    )
    out = tmp_path / "similar.npz"
    with caplog.at_level("INFO"):
        mapping_stages.similar_papers(
            str(tmp_path / "papers.jsonl"), [str(tmp_path / "d.npz")], [fitted_similar], str(out), knobs
        )
    assert "10 added to the fit's kept lists" in caplog.text
    assert (storage.read_arrays(out)["indices"] == _brute_force(vectors, 5)).mean() > 0.99
    caplog.clear()
    with caplog.at_level("INFO"):
        mapping_stages.similar_papers(
            str(tmp_path / "papers.jsonl"),
            [str(tmp_path / "d.npz")],
            [fitted_similar],
            str(out),
            {**knobs, "similar_papers": 6},
        )
    assert "exact: they list 5 similar papers a paper, not 6" in caplog.text
    assert (storage.read_arrays(out)["indices"] == _brute_force(vectors, 6)).mean() > 0.99
