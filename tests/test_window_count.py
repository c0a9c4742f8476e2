"""Abstracts longer than the embedding model's window: counted with the model's own tokenizer by the
embed stage, and shown in the report's overview.
"""

from __future__ import annotations

import json

import numpy as np
from conftest import SEEDS, default_config
from papertopics import storage
from papertopics.embed import stages as embed_stages
from papertopics.embed.encoders import embedding_text, over_window
from papertopics.embed.models import PACKAGED_MODEL, resolve_model_location
from papertopics.ingest.parse import parse_dump
from papertopics.periods.assign import groups_record, paper_groups
from papertopics.report.inputs import ReportFiles, load_report_inputs
from papertopics.report.overview import method_section
from papertopics.settings import EmbeddingSettings, knobs
from test_report_sections import _inputs


def test_the_count_agrees_with_the_models_own_tokenizer():
    from transformers import AutoTokenizer

    texts = [embedding_text(p) for seed in SEEDS for p in parse_dump(seed, 20).papers]
    texts += ["short", "word " * 254, "word " * 255]  # 256 and 257 tokens with [CLS] and [SEP]
    truncated, window = over_window(texts, PACKAGED_MODEL, 256)
    tokenizer = AutoTokenizer.from_pretrained(resolve_model_location(PACKAGED_MODEL))
    lengths = np.array([len(ids) for ids in tokenizer(texts, truncation=False)["input_ids"]])
    assert window == 256
    assert truncated.tolist() == (lengths > 256).tolist()
    assert truncated[-2:].tolist() == [False, True]
    assert 0 < truncated.sum() < len(texts)
    assert over_window(texts, PACKAGED_MODEL, 128)[0].sum() > truncated.sum()


def test_a_dump_embedded_in_shards_counts_as_one_embedded_whole(tmp_path):
    ids = np.array(["a", "b", "c"])
    for index, (part, flags) in enumerate([(slice(0, 2), [True, False]), (slice(2, 3), [True])]):
        storage.write_arrays(
            tmp_path / f"{index}.npz",
            ids=ids[part],
            vectors=np.ones((len(flags), 2), np.float32),
            truncated=np.array(flags),
        )
    shards = [str(tmp_path / "0.npz"), str(tmp_path / "1.npz")]
    embed_stages.embed_gather(
        shards,
        str(tmp_path / "dump.npz"),
        str(tmp_path / "dump.json"),
        knobs(EmbeddingSettings.from_config(default_config())),
    )
    summary = json.loads((tmp_path / "dump.json").read_text(encoding="utf-8"))
    assert summary == {"papers": 3, "window_tokens": 256, "over_window": ["a", "c"]}


def test_the_overview_counts_the_abstracts_longer_than_the_window(tmp_path):
    inputs = _inputs([0, 1, 0, 1, 0, -1])
    assert "window" not in method_section(inputs)  # not counted (an older embedding)
    inputs.over_window, inputs.window_tokens = {"p0", "p3", "not-in-the-corpus"}, 256
    assert (
        "<dt>Longer than the model&#x27;s window</dt><dd>2 abstracts embedded from their first 256 tokens</dd>"
        in method_section(inputs)
    )
    inputs.over_window = {"p3"}
    assert "<dd>1 abstract embedded from its first 256 tokens</dd>" in method_section(inputs)
    inputs.over_window = set()
    assert "<dt>Longer than the model&#x27;s window</dt><dd>none</dd>" in method_section(inputs)


def test_the_report_reads_the_counts_of_every_dump(tmp_path):
    summaries = []
    for dump, ids in (("a", ["p1"]), ("b", ["p2", "p1"])):  # p1 is in both dumps
        storage.write_json(tmp_path / f"{dump}.json", {"papers": 3, "window_tokens": 256, "over_window": ids})
        summaries.append(str(tmp_path / f"{dump}.json"))
    inputs = _inputs([0])
    paths = {}
    for name, data in {
        "corpus_summary": inputs.corpus_summary,
        "umap_settings": inputs.umap_settings,
        "hdbscan_settings": inputs.hdbscan_settings,
        "details": {"settings": inputs.topic_settings, "topics": inputs.topic_details},
        "figures": inputs.figures,
    }.items():
        storage.write_json(tmp_path / f"{name}.json", data)
        paths[name] = str(tmp_path / f"{name}.json")
    for name, table in (("topics", inputs.topics), ("papers", inputs.papers)):
        table.to_csv(tmp_path / f"{name}.csv", index=False)
        paths[name] = str(tmp_path / f"{name}.csv")
    # The periods stage's files, as it decides the periods.
    dump_order = [d["dump"] for d in inputs.corpus_summary["dumps"]]
    table, record = groups_record(
        inputs.papers["id"].tolist(), *paper_groups(inputs.papers, "auto", dump_order)
    )
    storage.write_csv(tmp_path / "groups.csv", table)
    storage.write_json(tmp_path / "groups.json", record)
    paths |= {
        "periods_table": str(tmp_path / "groups.csv"),
        "periods_settings": str(tmp_path / "groups.json"),
    }
    loaded = load_report_inputs(ReportFiles(embedding_summaries=summaries, **paths))
    assert loaded.over_window == {"p1", "p2"} and loaded.window_tokens == 256
    # One dump embedded before the count existed: nothing is claimed.
    storage.write_json(tmp_path / "b.json", {"papers": 3, "window_tokens": 256, "over_window": None})
    assert load_report_inputs(ReportFiles(embedding_summaries=summaries, **paths)).over_window is None
