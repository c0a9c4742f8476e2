"""The topics stage's orchestration (papertopics.topics.run) and curation, without Snakemake."""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np
import pytest
from conftest import default_config
from papertopics.errors import PipelineInputError
from papertopics.mapping.cluster import OUTLIER, assign_outliers
from papertopics.settings import TopicStageSettings
from papertopics.topics.curation import Curation, load_curation
from papertopics.topics.history import TopicHistory
from papertopics.topics.ids import TopicIds
from papertopics.topics.run import NOT_A_TOPIC, Given, run_topics
from test_labels import _corpus

# The stage's knobs as config.yaml sets them, with two representative papers and two topic groups.
SETTINGS = replace(TopicStageSettings.from_config(default_config()), n_representative_docs=2, coarse_topics=3)


def _synthetic(seed: int, prefix: str):
    """The labeller's synthetic topics (papers drawn with ``seed``), each paper a vector near its
    topic's direction, and the cluster stage's labels: the topics, every tenth paper an outlier.
    """
    texts, topics, names = _corpus(seed)
    directions = np.random.default_rng(0).normal(size=(len(names), 16))
    vectors = directions[topics] + 0.3 * np.random.default_rng(seed + 1).normal(size=(len(texts), 16))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    clusters = topics.copy()
    clusters[::10] = OUTLIER
    return texts, [f"{prefix}{i}" for i in range(len(texts))], vectors, clusters, names


@pytest.fixture(scope="module")
def corpus():
    return _synthetic(0, "p")


def _with_a_new_dump(corpus):
    """The corpus and as many new papers on the same topics, as after a new dump."""
    new = _synthetic(1, "q")
    return (
        corpus[0] + new[0],
        corpus[1] + new[1],
        np.vstack([corpus[2], new[2]]),
        np.concatenate([corpus[3], new[3]]),
        corpus[4],
    )


def _run(corpus, history, curation=None):
    texts, ids, vectors, clusters, _ = corpus
    return run_topics(
        texts, ids, vectors, clusters, history, SETTINGS, given=Given(curation=curation or Curation())
    )


def _curation(tmp_path, text: str):
    path = tmp_path / "curation.yaml"
    path.write_text(text, encoding="utf-8")
    return load_curation(path)


def test_a_first_run_numbers_topics_by_size_and_keeps_the_clusters(corpus, tmp_path):
    _, _, vectors, clusters, _ = corpus
    found = _run(corpus, TopicHistory(tmp_path))
    assigned = assign_outliers(vectors, clusters)
    # The partition is the clusters with outliers assigned: labels never move a paper.
    assert len(set(zip(assigned.tolist(), found.topics.tolist(), strict=True))) == len(set(assigned.tolist()))
    sizes = [d["size"] for d in found.details]
    assert [d["topic"] for d in found.details] == list(range(len(sizes)))
    assert sizes == sorted(sizes, reverse=True)
    assert (found.was_outlier == (clusters == OUTLIER)).all()
    assert all(d["label"] and not d["curated"] for d in found.details)
    assert len(found.groups) == 3 and all(g["label"] for g in found.groups)
    assert found.lineage["first_run"] and found.summary["curation"] is None
    # A first run's stable ids are the topics' numbers by size, each shown as itself.
    assert found.topic_ids.stable.tolist() == found.topic_ids.shown.tolist() == list(range(len(sizes)))
    assert found.topic_ids.size.tolist() == sizes
    found.record()
    assert (tmp_path / "topics.json").exists()


def test_curation_renames_merges_hides_and_names_ids_it_cannot_find(corpus, tmp_path, caplog):
    history = TopicHistory(tmp_path)
    first = _run(corpus, history)
    first.record()
    labels = {d["topic"]: d["label"] for d in first.details}
    curation = _curation(
        tmp_path,
        'rename: {0: "Model compression", 99: "Gone"}\nmerge: [[1, 2]]\nhide: [3]\nnote: {0: "Pruning"}\n',
    )
    with caplog.at_level(logging.WARNING):
        second = _run(corpus, history, curation)
    by_id = {d["topic"]: d for d in second.details}
    assert by_id[0]["label"] == "Model compression" and by_id[0]["curated"] and by_id[0]["note"] == "Pruning"
    assert 2 not in by_id and by_id[1]["size"] == sum((first.topics == t).sum() for t in (1, 2))
    assert 3 not in by_id and by_id[OUTLIER]["label"] == NOT_A_TOPIC
    hidden = first.topics == 3
    assert (second.topics[hidden] == OUTLIER).all()
    assert {second.paper_labels[i] for i in np.flatnonzero(hidden)} == {NOT_A_TOPIC}
    summary = second.summary["curation"]
    assert summary["merged"] == [{"into": 1, "from": [2]}] and summary["renamed"] == [0]
    assert summary["hidden"] == [{"id": 3, "papers": int(hidden.sum()), "label": labels[3]}]
    assert all(s["label"] for s in summary["hidden"])
    assert [m["id"] for m in summary["missing"]] == [99]
    assert "topic 99 (rename) no longer exists" in caplog.text
    # The table's numberings agree with what BERTopic fitted: each paper's shown topic, turned
    # into the model's number by the table, is the topic the model gave it.
    assert (second.model_topics == np.asarray(second.model.topics_)).all()
    assert {d["topic"]: d["model_topic"] for d in second.details}[OUTLIER] == OUTLIER
    # History keeps the topics as found: after a new dump the merged pair is matched apart, each
    # keeping its id, then merged again; the curation holds.
    second.record()
    third = _run(_with_a_new_dump(corpus), history, curation)
    assert {k["id"] for k in third.lineage["kept"]} >= {0, 1, 2, 3}
    assert set(third.topics.tolist()) == set(second.topics.tolist())
    assert {d["topic"]: d["label"] for d in third.details}[0] == "Model compression"


def test_topics_keep_their_ids_and_labels_after_a_new_dump(corpus, tmp_path):
    history = TopicHistory(tmp_path)
    first = _run(corpus, history)
    first.record()
    again = _run(_with_a_new_dump(corpus), history)
    assert {k["id"] for k in again.lineage["kept"]} == set(range(len(corpus[4])))
    assert again.lineage["relabelled"] == []
    assert {d["topic"]: d["label"] for d in again.details} == {d["topic"]: d["label"] for d in first.details}


def test_a_placed_update_keeps_the_fitted_topics_labels_and_labels_its_new_topic(corpus, tmp_path):
    texts, ids, vectors, clusters, _ = _with_a_new_dump(corpus)
    fitted = np.arange(len(ids)) < len(corpus[1])
    # The new dump's papers of the last topic are a topic the fit never had.
    new_topic = int(clusters.max()) + 1
    clusters = np.where(~fitted & (clusters == clusters.max()), new_topic, clusters)
    # As placed: the fitted papers in the topics the fit settled (its outliers assigned).
    clusters[fitted] = fitted_topics = assign_outliers(vectors[fitted], clusters[fitted])
    # Labels no labeller would choose, as a reader saw them: they must come back as they were.
    fitted_labels = np.full(len(ids), "", dtype=object)
    fitted_labels[fitted] = [f"fitted topic {t}" for t in fitted_topics]
    found = run_topics(
        texts,
        ids,
        vectors,
        clusters,
        TopicHistory(tmp_path),
        SETTINGS,
        given=Given(fitted_labels=fitted_labels.astype(str)),
    )
    labels = np.array(found.paper_labels)
    assert (labels[fitted] == fitted_labels[fitted]).all()
    new_papers = ~fitted & (clusters == new_topic)
    new_label = {str(label) for label in labels[new_papers]}
    assert len(new_label) == 1 and not next(iter(new_label)).startswith("fitted topic")
    shown = {d["label"] for d in found.details}
    assert {f"fitted topic {t}" for t in set(fitted_topics.tolist())} | new_label <= shown
    assert all(group["label"] for group in found.groups)


def _placed_on_a_fit(corpus, tmp_path, fitted_group_label, before_placing=lambda: None):
    """A fit on the corpus, then (``before_placing`` called) a placed update bringing a new dump on
    the same topics: the fitted papers' labels given as the fit's, their group labels by
    ``fitted_group_label`` (the fit's group record → the label to give its papers). Returns the
    fit and the update.
    """
    fit = _run(corpus, TopicHistory(tmp_path / "fit"))
    before_placing()
    texts, ids, vectors, clusters, _ = _with_a_new_dump(corpus)
    fitted = np.arange(len(ids)) < len(corpus[1])
    clusters[fitted] = fit.topics  # as placed: the fitted papers in the topics the fit settled
    group_of = {topic: fitted_group_label(group) for group in fit.groups for topic in group["topics"]}
    labels = np.full(len(ids), "", dtype=object)
    group_labels = np.full(len(ids), "", dtype=object)
    labels[fitted] = fit.paper_labels
    group_labels[fitted] = [group_of.get(t, "") for t in fit.topics.tolist()]
    given = Given(fitted_labels=labels.astype(str), fitted_group_labels=group_labels.astype(str))
    placed = run_topics(
        texts, ids, vectors, clusters, TopicHistory(tmp_path / "placed"), SETTINGS, given=given
    )
    return fit, placed


def test_a_placed_update_that_brings_no_topic_keeps_the_fitted_groups_unread(corpus, tmp_path, monkeypatch):
    from papertopics.topics import phrase_table

    def no_table(*args, **kwargs):
        raise AssertionError("nothing to label: no phrase table is made")

    # Group labels no labeller would choose, as a reader saw them: they must come back as they were.
    fit, placed = _placed_on_a_fit(
        corpus,
        tmp_path,
        lambda group: f"fitted group {group['group']}",
        before_placing=lambda: monkeypatch.setattr(phrase_table, "PhraseTable", no_table),
    )
    assert len(fit.groups) == 3
    assert [(g["topics"], g["label"]) for g in placed.groups] == [
        (g["topics"], f"fitted group {g['group']}") for g in fit.groups
    ]
    assert {d["topic"]: d["label"] for d in placed.details} == {d["topic"]: d["label"] for d in fit.details}
    # The sizes are the update's: the new papers count.
    assert sum(g["size"] for g in placed.groups) > sum(g["size"] for g in fit.groups)


def test_a_placed_update_whose_groups_moved_labels_them_afresh(corpus, tmp_path):
    # Every fitted topic recorded in one group, unlike the three the topics make now: no label kept.
    fit, placed = _placed_on_a_fit(corpus, tmp_path, lambda group: "one fitted group")
    assert len(placed.groups) == 3
    assert all(g["label"] and g["label"] != "one fitted group" for g in placed.groups)
    assert {d["topic"]: d["label"] for d in placed.details} == {d["topic"]: d["label"] for d in fit.details}


def test_the_numbering_table_orders_clusters_by_size_and_turns_any_numbering_into_another():
    clusters = np.array([5, 5, 2, 2, 2, OUTLIER, 9, 9, 7, 7])
    table, rows = TopicIds.by_size(clusters)
    # Largest first; of the clusters of two papers, the lower label first.
    assert table.cluster.tolist() == [2, 5, 7, 9] and table.size.tolist() == [3, 2, 2, 2]
    assert rows.tolist() == [1, 1, 0, 0, 0, OUTLIER, 3, 3, 2, 2]
    # Stable ids from history; curation merges stable id 7 into 0 and hides 1.
    table = table.with_stable({0: 4, 1: 0, 2: 7, 3: 1}).with_curation({7: 0}, {1})
    assert table.shown.tolist() == [4, 0, 0, OUTLIER]
    assert table.stable_of_cluster(7) == 7 and table.curated.tolist() == [4, 0, 0, 1]
    shown = TopicIds.of_papers(table.shown, rows)
    assert shown.tolist() == [0, 0, 4, 4, 4, OUTLIER, OUTLIER, OUTLIER, 0, 0]
    # BERTopic numbers the shown topics by size: 0 (four papers) is its 0, 4 (three) its 1.
    table = table.with_model_topics(rows, np.array([{0: 0, 4: 1, OUTLIER: OUTLIER}[t] for t in shown]))
    assert table.model_topic.tolist() == [1, 0, 0, OUTLIER]
    assert [table.model_topic_of(t) for t in (4, 0, OUTLIER)] == [1, 0, OUTLIER]
    assert [table.shown_of_model(m) for m in (0, 1, OUTLIER)] == [0, 4, OUTLIER]


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("rename:\n  25: Model compression\n  26: 7\n", 3, "rename/26: 7 is not of type 'string'"),
        ("merge:\n  - [7, 2]\n  - [4]\n", 3, "merge/1: [4] is too short"),
        ("hide: [31]\nrenam: {1: x}\n", 2, "Additional properties are not allowed"),
        ("hide: [-1]\n", 1, "hide/0: -1 is less than the minimum of 0"),
        ("note: {x: text}\n", 1, "note"),
        ("rename: {1: a\n", 2, "not valid YAML"),
    ],
)
def test_a_malformed_curation_file_names_the_file_and_line(tmp_path, text, line, problem):
    path = tmp_path / "curation.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PipelineInputError) as error:
        load_curation(path)
    assert f"{path} line {line}" in str(error.value) and problem in str(error.value)


def test_inconsistent_curation_is_refused(tmp_path):
    for text, problem in [
        ("merge: [[1, 2], [2, 3]]\n", "more than one merge"),
        ("merge: [[1, 2]]\nhide: [2]\n", "both hidden and merged"),
        ("merge: [[1, 2]]\nrename: {2: x}\n", "rename that one"),
    ]:
        path = tmp_path / "curation.yaml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(PipelineInputError, match=problem):
            load_curation(path)
    assert load_curation(None).source is None
    with pytest.raises(PipelineInputError, match="is not a file"):
        load_curation(tmp_path / "absent.yaml")
