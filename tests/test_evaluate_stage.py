"""The evaluate stage: results/metrics.json from the topics stage's outputs."""

import json

import pandas as pd
import pytest
from papertopics import storage
from papertopics.topics import stages as topics_stages


def _topic_outputs(tmp_path, with_labels: bool):
    papers = [
        {"id": "p1", "text": "graph neural networks for node classification"},
        {"id": "p2", "text": "graph neural networks learn node embeddings"},
        {"id": "p3", "text": "image segmentation with convolutional networks"},
        {"id": "p4", "text": "image segmentation of medical scans"},
    ]
    storage.write_jsonl(tmp_path / "corpus.jsonl", papers)
    table = pd.DataFrame(
        {"id": ["p1", "p2", "p3", "p4"], "topic": [0, 0, 1, 1], "outlier": [False, False, False, True]}
    )
    if with_labels:
        table["label"] = ["graphs", "graphs", "vision", ""]
    storage.write_csv(tmp_path / "papers.csv", table)
    topics = [
        {"topic": 0, "keywords": [["graph neural", 0.5], ["node", 0.3]], "group": None},
        {"topic": 1, "keywords": [["image segmentation", 0.5], ["networks", 0.2]], "group": None},
    ]
    storage.write_json(tmp_path / "details.json", {"settings": {}, "topics": topics, "groups": []})
    return [str(tmp_path / name) for name in ("corpus.jsonl", "papers.csv", "details.json")]


def test_evaluate_scores_labels_when_the_papers_carry_them(tmp_path):
    topics_stages.evaluate(
        *_topic_outputs(tmp_path, with_labels=True), str(tmp_path / "metrics.json"), {"top_n_words": 10}
    )
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["topics"] == 2
    assert metrics["outlier_share"] == pytest.approx(0.25)
    assert metrics["diversity"] == 1.0
    assert metrics["per_topic"][0]["words"] == ["graph", "neural", "node"]
    assert metrics["labels"]["labelled_papers"] == 3  # the paper with an empty label is not scored
    assert metrics["labels"]["nmi"] == pytest.approx(1.0)


def test_evaluate_without_a_label_column_leaves_agreement_out(tmp_path):
    topics_stages.evaluate(
        *_topic_outputs(tmp_path, with_labels=False), str(tmp_path / "metrics.json"), {"top_n_words": 10}
    )
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["labels"] is None
    assert -1 <= metrics["npmi"] <= 1


@pytest.mark.slow
def test_evaluate_on_the_shipped_dumps_feeds_the_report(seed_run):
    metrics = json.loads((seed_run / "results" / "metrics.json").read_text())
    details = json.loads((seed_run / "results" / "topics" / "topic_details.json").read_text())
    real = [t for t in details["topics"] if t["topic"] != -1]
    assert metrics["topics"] == len(real) >= 2
    assert metrics["labels"] is None  # .txt dumps carry no labels
    assert 0 < metrics["diversity"] <= 1
    assert -1 <= metrics["npmi"] <= 1
    assert [row["topic"] for row in metrics["per_topic"]] == [t["topic"] for t in real]
    labels = [t["label"] for t in real]
    assert len(set(labels)) == len(labels)
    page = (seed_run / "results" / "report" / "index.html").read_text(encoding="utf-8")
    assert "Coherence (NPMI)" in page
    assert "Topic diversity" in page
    first = metrics["per_topic"][0]
    if first["npmi"] is not None:
        assert f'data-sort="{first["npmi"]}"' in page
