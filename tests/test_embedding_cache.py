"""The per-abstract embedding cache: hits, misses, one edited abstract, damaged entries, concurrent writers."""

from __future__ import annotations

import hashlib
import io
import multiprocessing

import numpy as np
import pytest
from conftest import SEEDS
from papertopics.embed import embedding_text, resolve_backend
from papertopics.embedding_cache import EmbeddingCache, embed_with_cache, encoder_key, text_key
from papertopics.parse import parse_dump

IDENTITY = {"model": "test", "files": "0", "backend": "fake", "max_seq_length": 256}
DIMENSION = 16


class CountingEncoder:
    """A deterministic stand-in for a model: unit vectors derived from each text's hash."""

    def __init__(self):
        self.embedded: list[str] = []

    def encode(self, texts, batch_size):
        self.embedded.extend(texts)
        return np.vstack([fake_vector(text) for text in texts])


def fake_vector(text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).normal(size=DIMENSION).astype(np.float32)
    return vector / np.linalg.norm(vector)


@pytest.fixture(scope="module")
def seed_texts() -> list[str]:
    return [embedding_text(p) for p in parse_dump(SEEDS[0], min_abstract_chars=20).papers]


def run(texts, cache_dir, encoder=None):
    encoder = encoder or CountingEncoder()
    vectors, computed = embed_with_cache(
        texts, EmbeddingCache(cache_dir, IDENTITY), lambda: encoder, batch_size=4
    )
    return vectors, computed, encoder


def entry_path(cache_dir, text):
    return next(cache_dir.rglob(f"{text_key(text)}.npy"))


def test_a_miss_embeds_every_text_and_a_rerun_embeds_none(tmp_path, seed_texts):
    vectors, computed, encoder = run(seed_texts, tmp_path)
    assert computed == len(set(seed_texts)) == len(encoder.embedded)
    np.testing.assert_array_equal(vectors, np.vstack([fake_vector(t) for t in seed_texts]))

    again, computed, encoder = run(seed_texts, tmp_path)
    assert computed == 0 and encoder.embedded == []
    np.testing.assert_array_equal(again, vectors)


def test_a_full_hit_never_loads_the_encoder(tmp_path, seed_texts):
    run(seed_texts, tmp_path)

    def refuse():
        raise AssertionError("the encoder was loaded although every text was cached")

    vectors, computed = embed_with_cache(seed_texts, EmbeddingCache(tmp_path, IDENTITY), refuse, batch_size=4)
    assert computed == 0 and len(vectors) == len(seed_texts)


def test_editing_one_abstract_embeds_only_that_abstract(tmp_path, seed_texts):
    run(seed_texts, tmp_path)
    edited = list(seed_texts)
    edited[3] = edited[3] + " An added sentence."
    vectors, computed, encoder = run(edited, tmp_path)
    assert computed == 1 and encoder.embedded == [edited[3]]
    np.testing.assert_array_equal(vectors[3], fake_vector(edited[3]))


def test_entries_are_npy_files_as_numpy_writes_and_reads_them(tmp_path):
    written, by_numpy = "A text the cache wrote.", "A text numpy wrote, as earlier versions of the cache did."
    EmbeddingCache(tmp_path, IDENTITY).put(written, fake_vector(written))
    expected = io.BytesIO()
    np.save(expected, fake_vector(written))
    assert entry_path(tmp_path, written).read_bytes() == expected.getvalue()

    key = text_key(by_numpy)
    (tmp_path / encoder_key(IDENTITY) / key[:2]).mkdir(exist_ok=True)
    np.save(tmp_path / encoder_key(IDENTITY) / key[:2] / f"{key}.npy", fake_vector(by_numpy))
    for dimension in (None, DIMENSION):  # the entry's size not yet known, or known
        cache = EmbeddingCache(tmp_path, IDENTITY, dimension=dimension)
        for text in (written, by_numpy, written):
            np.testing.assert_array_equal(cache.get(text), fake_vector(text))
        assert cache.rebuilt == 0


def test_another_model_or_backend_does_not_share_entries(tmp_path, seed_texts):
    run(seed_texts, tmp_path)
    encoder = CountingEncoder()
    other = EmbeddingCache(tmp_path, {**IDENTITY, "backend": "onnx-int8"})
    _, computed = embed_with_cache(seed_texts, other, lambda: encoder, batch_size=4)
    assert computed == len(set(seed_texts))


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2]),  # truncated
        lambda path: path.write_bytes(b"not a numpy file at all"),  # garbage
        lambda path: path.write_bytes(b""),  # empty
        lambda path: np.save(path, np.full(DIMENSION, 7, dtype=np.float32)),  # loads, but not a unit vector
        lambda path: np.save(path, np.full(DIMENSION, np.nan, dtype=np.float32)),  # loads, but not finite
        lambda path: np.save(path, np.ones(3, dtype=np.float32) / np.sqrt(3)),  # wrong size
    ],
    ids=["truncated", "garbage", "empty", "not-unit", "not-finite", "wrong-size"],
)
def test_a_damaged_entry_is_detected_and_rebuilt(tmp_path, seed_texts, damage):
    run(seed_texts, tmp_path)
    damaged = seed_texts[2]
    damage(entry_path(tmp_path, damaged))

    cache = EmbeddingCache(tmp_path, IDENTITY, dimension=DIMENSION)
    encoder = CountingEncoder()
    vectors, computed = embed_with_cache(seed_texts, cache, lambda: encoder, batch_size=4)
    assert computed == 1 and encoder.embedded == [damaged] and cache.rebuilt == 1
    np.testing.assert_array_equal(vectors[2], fake_vector(damaged))
    np.testing.assert_array_equal(np.load(entry_path(tmp_path, damaged)), fake_vector(damaged))


def _fill(cache_dir, texts):
    run(texts, cache_dir)


def test_concurrent_jobs_leave_only_complete_entries(tmp_path, seed_texts):
    texts = [f"{text} (variant {i})" for i in range(10) for text in seed_texts]
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_fill, args=(tmp_path, texts)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert all(worker.exitcode == 0 for worker in workers)
    assert not list(tmp_path.rglob("*.part")), "a temporary file was left behind"
    assert len(list(tmp_path.rglob("*.npy"))) == len(set(texts))
    vectors, computed, _ = run(texts, tmp_path)
    assert computed == 0
    np.testing.assert_array_equal(vectors, np.vstack([fake_vector(t) for t in texts]))


@pytest.mark.slow
def test_editing_one_abstract_of_a_dump_embeds_one_abstract_in_the_workflow(seed_run, tmp_path):
    from conftest import good_run, planned_jobs, run_workflow

    workdir = good_run(seed_run, tmp_path)  # the default backend, auto; the cache the seed run filled
    dump = workdir / "data" / "raw" / SEEDS[0].name
    title, first, *rest = dump.read_text(encoding="utf-8").split("\n\n")
    dump.write_text("\n\n".join([title, first + " One sentence more.", *rest]), encoding="utf-8")
    plan = planned_jobs(workdir)
    assert plan["parse"] == 1 and plan["embed"] == 1

    run_workflow(workdir)
    log = (workdir / "results" / "logs" / "embed" / f"{SEEDS[0].stem}.log").read_text(encoding="utf-8")
    assert f"1 embedded now ({resolve_backend('auto')} on cpu)" in log, log
