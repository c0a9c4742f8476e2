"""Guided topics: known category names become topics (papertopics.topics.guided)."""

import numpy as np
import pytest
from papertopics.errors import PipelineInputError
from papertopics.mapping.cluster import OUTLIER
from papertopics.topics.guided import expanded_names, guided_topics, load_guide, unmatched_names


def test_a_guide_is_a_list_or_a_file_of_names(tmp_path):
    assert load_guide(None) == [] and load_guide([]) == []
    assert load_guide([" Computer Vision ", "Search"]) == ["Computer Vision", "Search"]
    (tmp_path / "areas.txt").write_text("# IJCAI areas\nComputer Vision\n\nSearch\n", encoding="utf-8")
    assert load_guide("areas.txt", tmp_path) == ["Computer Vision", "Search"]


@pytest.mark.parametrize(
    "guide, message",
    [
        ("missing.txt", "missing.txt is not a file"),
        (["Search", "Search"], "names given twice: Search"),
        (["Search", " "], "must not be empty"),
    ],
)
def test_a_bad_guide_is_named_in_the_error(tmp_path, guide, message):
    with pytest.raises(PipelineInputError, match=message):
        load_guide(guide, tmp_path)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "areas.txt: category names must not be empty"),
        (b"# only a comment\n\n", "areas.txt: category names must not be empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "areas.txt: this is a PNG image"),
        (b"Search\x00\x00\x01", "areas.txt: this looks like a binary file"),
    ],
)
def test_a_guide_file_that_holds_no_names_is_named_in_the_error(tmp_path, content, message):
    (tmp_path / "areas.txt").write_bytes(content)
    with pytest.raises(PipelineInputError, match=message):
        load_guide("areas.txt", tmp_path)


def test_a_guide_file_in_another_encoding_is_read_as_dumps_are(tmp_path, caplog):
    (tmp_path / "areas.txt").write_bytes("Réseaux de neurones\r\nSearch\r\n".encode("cp1252"))
    assert load_guide("areas.txt", tmp_path) == ["Réseaux de neurones", "Search"]
    assert "areas.txt: not valid UTF-8 (first at line 1); read as cp1252" in caplog.text
    (tmp_path / "utf16.txt").write_bytes("Réseaux\nSearch\n".encode("utf-16"))
    assert load_guide("utf16.txt", tmp_path) == ["Réseaux", "Search"]


def _corpus(seed: int = 0):
    """Papers around three category directions (40 each) and 30 papers of a fourth subject no
    name describes; the names' vectors point roughly (not exactly) at their categories.
    """
    rng = np.random.default_rng(seed)
    axes = np.eye(8)
    truth = np.repeat([0, 1, 2, 3], [40, 40, 40, 30])
    embeddings = axes[truth] + rng.normal(scale=0.15, size=(150, 8))
    names = axes[:3] + 0.6 * axes[4:7] + rng.normal(scale=0.05, size=(3, 8))
    clusters = np.repeat([5, 6, 7, 8], [40, 40, 40, 30])  # what HDBSCAN found, numbered its own way
    return truth, embeddings.astype(np.float32), names.astype(np.float32), clusters


def test_papers_that_fit_a_name_form_its_topic_and_the_rest_keep_their_discovered_topic():
    truth, embeddings, names, clusters = _corpus()
    topics, named = guided_topics(embeddings, names, clusters, min_similarity=0.6)
    assert named == {0: 0, 1: 1, 2: 2}
    assert topics[:120].tolist() == truth[:120].tolist()
    # The unnamed subject's papers are far from every category's papers: their own topic, numbered after the named ones.
    assert set(topics[120:].tolist()) == {3}


def test_what_the_names_leave_of_a_discovered_topic_is_a_topic_only_if_as_large_as_the_smallest():
    truth, embeddings, names, _ = _corpus()
    # HDBSCAN put 3 papers of the unnamed subject in with the first named subject's papers.
    clusters = np.repeat([5, 6, 7, 8], [40, 40, 40, 30])
    clusters[120:123] = 5
    topics, named = guided_topics(embeddings, names, clusters, min_similarity=0.6)
    assert topics[:120].tolist() == truth[:120].tolist()
    # Those 3 are left of topic 5 once its named papers go: fewer than the smallest topic (27).
    assert topics[120:123].tolist() == [OUTLIER] * 3
    assert set(topics[123:].tolist()) == {3}


def test_with_no_similarity_threshold_every_paper_joins_a_named_category():
    truth, embeddings, names, clusters = _corpus()
    topics, named = guided_topics(embeddings, names, clusters, min_similarity=0.0)
    assert set(topics.tolist()) <= set(named)
    assert topics[:120].tolist() == truth[:120].tolist()


def test_a_name_no_paper_fits_makes_no_topic():
    truth, embeddings, names, clusters = _corpus()
    unrelated = np.zeros((1, 8), dtype=np.float32)
    unrelated[0, 7] = 1.0
    topics, named = guided_topics(
        embeddings[:120], np.vstack([names, unrelated]), clusters[:120], min_similarity=0.5
    )
    assert sorted(named.values()) == [0, 1, 2]
    assert topics.tolist() == truth[:120].tolist()
    assert unmatched_names(["A", "B", "C", "Unrelated"], named) == ["Unrelated"]


def test_a_name_is_drawn_towards_the_papers_it_matches_best():
    truth, embeddings, names, _ = _corpus()
    units = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)
    names = names / np.linalg.norm(names, axis=1, keepdims=True)
    expanded = expanded_names(units, names, count=10)
    assert np.allclose(np.linalg.norm(expanded, axis=1), 1.0)
    centroids = np.vstack([units[truth == c].mean(axis=0) for c in range(3)])
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    # The names point partly away from their subject; their nearest papers pull them back to it.
    before, after = np.diag(names @ centroids.T), np.diag(expanded @ centroids.T)
    assert np.all(after > before + 0.05)
    assert np.array_equal(expanded_names(units, names, count=0), names)


@pytest.mark.slow
def test_a_guided_run_labels_named_topics_with_their_names_and_marks_them(seed_run, tmp_path):
    import json

    import pandas as pd
    from conftest import TOPICS_ONWARD, good_run, planned_jobs, run_workflow, write_config

    # A guide given after a first run: the topics stage and those after it run again, nothing before.
    workdir = good_run(seed_run, tmp_path)
    write_config(workdir, topics={"guide": "areas.txt", "guide_min_similarity": 0.0})
    (workdir / "areas.txt").write_text(
        "# two areas\nLanguage models\nNeuroscience and brain imaging\n", encoding="utf-8"
    )
    assert planned_jobs(workdir) == TOPICS_ONWARD
    run_workflow(workdir)
    details = json.loads((workdir / "results" / "topics" / "topic_details.json").read_text())
    named = [t for t in details["topics"] if t["named"]]
    assert {t["label"] for t in named} <= {"Language models", "Neuroscience and brain imaging"} and named
    assert details["settings"]["guide"] == ["Language models", "Neuroscience and brain imaging"]
    # Each name either made a topic or is listed, in the report too, as one no paper fits.
    unmatched = details["settings"]["guide_unmatched"]
    assert sorted({t["label"] for t in named} | set(unmatched)) == details["settings"]["guide"]
    page = (workdir / "results" / "report" / "index.html").read_text(encoding="utf-8")
    assert "<dt>topics.guide</dt><dd>Language models; Neuroscience and brain imaging</dd>" in page
    assert ("topics.guide: no paper fits" in page) == bool(unmatched)
    assert all(not t["named"] for t in details["topics"] if t not in named)
    topics = pd.read_csv(workdir / "results" / "topics" / "topics.csv")
    assert set(t["label"] for t in named) <= set(topics["label"])
    # With no threshold every paper is in a named topic.
    papers = pd.read_csv(workdir / "results" / "topics" / "papers.csv")
    assert set(papers["topic"]) == {t["topic"] for t in named}
    metrics = json.loads((workdir / "results" / "metrics.json").read_text())
    assert metrics["consensus"]["runs"] == 3
