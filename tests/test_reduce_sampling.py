"""UMAP on exact neighbours, or fitted on a sample with the rest placed by transform (the
large-corpus path).
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest
import yaml
from conftest import REPO, default_config
from papertopics.mapping.cluster import cluster_points
from papertopics.mapping.reduce import (
    Projection,
    exact_neighbours,
    most_similar,
    neighbour_graph,
    reduce_embeddings,
)
from sklearn.metrics import normalized_mutual_info_score

# The default a run reads (config.yaml's, the schema's): the one place it is written.
EXACT_UP_TO = default_config()["umap"]["exact_neighbours_up_to"]


def blobs(n_per_blob=120, n_blobs=3, dimension=24, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_blobs, dimension)) * 4
    points = np.vstack([centre + rng.normal(size=(n_per_blob, dimension)) for centre in centres])
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    return points.astype(np.float32), np.repeat(np.arange(n_blobs), n_per_blob)


SETTINGS = dict(
    word_weight=0.0,
    word_dimensions=100,  # embeddings alone, no word vectors
    n_neighbors=10,
    n_components=5,
    min_dist=0.0,
    metric="cosine",
    random_state=42,
    exact_neighbours_up_to=EXACT_UP_TO,
)


def project(points, neighbours=None, **changed):
    """The points' UMAP projection with ``SETTINGS`` (``changed`` replaced), embeddings alone."""
    return reduce_embeddings(points, None, Projection(**{**SETTINGS, **changed}), neighbours=neighbours)


def test_the_exact_neighbours_limit_has_one_default_the_schemas():
    schema = yaml.safe_load(
        (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text(encoding="utf-8")
    )
    assert schema["properties"]["umap"]["properties"]["exact_neighbours_up_to"]["default"] == EXACT_UP_TO
    parameter = inspect.signature(neighbour_graph).parameters["exact_neighbours_up_to"]
    assert parameter.default is inspect.Parameter.empty, "neighbour_graph repeats the default"
    field = next(f for f in dataclasses.fields(Projection) if f.name == "exact_neighbours_up_to")
    assert field.default is dataclasses.MISSING, "Projection repeats the default"


def test_a_corpus_above_the_sample_size_is_fitted_on_a_sample_and_keeps_its_structure():
    points, truth = blobs()
    cluster_space, settings = project(points, fit_sample_size=100)
    map_2d, _ = project(points, fit_sample_size=100, n_components=2)
    assert settings["fitted_on_sample"] and settings["fit_sample_size"] == 100
    assert cluster_space.shape == (len(points), 5) and map_2d.shape == (len(points), 2)
    assert np.isfinite(cluster_space).all() and np.isfinite(map_2d).all()
    labels, _ = cluster_points(
        cluster_space, min_cluster_size=20, min_samples=1, cluster_selection_method="eom"
    )
    assert normalized_mutual_info_score(truth, labels) > 0.9

    again, _ = project(points, fit_sample_size=100)
    np.testing.assert_array_equal(again, cluster_space)


def test_a_corpus_within_the_sample_size_is_fitted_whole():
    points, _ = blobs(n_per_blob=30)
    _, settings = project(points, fit_sample_size=len(points))
    assert not settings["fitted_on_sample"]


def test_exact_neighbours_are_each_papers_closest_by_cosine_itself_first():
    points, _ = blobs(n_per_blob=20)
    indices, distances = exact_neighbours(points, n_neighbors=6, metric="cosine")
    similarity = points @ points.T
    expected = np.argsort(-similarity, axis=1, kind="stable")[:, :6]
    np.testing.assert_array_equal(indices[:, 0], np.arange(len(points)))
    np.testing.assert_array_equal(np.sort(indices, axis=1), np.sort(expected, axis=1))
    np.testing.assert_allclose(distances, 1 - np.take_along_axis(similarity, indices, axis=1), atol=1e-5)


@pytest.mark.parametrize("columns, count", [(103, 7), (64, 8), (9, 9), (500, 1)])
def test_most_similar_is_each_rows_largest_in_order_ties_by_lower_column(columns, count):
    # Few distinct values, so that most rows have ties across the cut and within the kept ones.
    similarity = np.random.default_rng(columns).integers(0, 6, size=(40, columns)).astype(np.float32)
    expected = np.argsort(-similarity, axis=1, kind="stable")[:, :count]
    np.testing.assert_array_equal(most_similar(similarity, count), expected)


def test_a_whole_corpus_fit_on_exact_neighbours_keeps_its_structure_and_repeats():
    points, truth = blobs()
    cluster_space, _ = project(points, fit_sample_size=None)
    labels, _ = cluster_points(
        cluster_space, min_cluster_size=20, min_samples=1, cluster_selection_method="eom"
    )
    assert normalized_mutual_info_score(truth, labels) > 0.9
    again, _ = project(points, fit_sample_size=None)
    np.testing.assert_array_equal(again, cluster_space)


def test_no_topic_exceeds_the_largest_share_where_hdbscan_would_keep_one_big_cluster():
    points, truth = blobs(n_per_blob=150, n_blobs=4)
    points[truth < 2] = points[truth == 0][0]  # two blobs made one dense cluster of half the points
    points[truth < 2] += np.random.default_rng(1).normal(scale=0.05, size=points[truth < 2].shape)
    unlimited, _ = cluster_points(
        points, min_cluster_size=20, min_samples=None, cluster_selection_method="eom"
    )
    limited, settings = cluster_points(
        points, min_cluster_size=20, min_samples=None, cluster_selection_method="eom", max_cluster_share=0.3
    )
    assert settings["max_cluster_size"] == 180
    assert np.bincount(unlimited[unlimited >= 0]).max() > 180
    assert np.bincount(limited[limited >= 0]).max() <= 180


def test_exact_neighbours_put_each_paper_first_among_its_duplicates():
    points, _ = blobs(n_per_blob=10)
    points[1:4] = points[0]  # four identical papers
    indices, distances = exact_neighbours(points, n_neighbors=5, metric="cosine")
    np.testing.assert_array_equal(indices[:, 0], np.arange(len(points)))
    assert set(indices[2, :4].tolist()) == {0, 1, 2, 3}
    np.testing.assert_allclose(distances[:4, :4], 0, atol=1e-6)


def test_exact_neighbours_by_another_metric_agree_with_cosine_on_unit_vectors():
    points, _ = blobs(n_per_blob=20)
    by_cosine, _ = exact_neighbours(points, n_neighbors=6, metric="cosine")
    by_euclidean, _ = exact_neighbours(points, n_neighbors=6, metric="euclidean")
    np.testing.assert_array_equal(np.sort(by_cosine, axis=1), np.sort(by_euclidean, axis=1))


def test_umap_kernels_are_kept_in_numbas_disk_cache_one_variant_per_function():
    import umap.layouts
    import umap.umap_
    from numba.core.caching import NullCache
    from papertopics.mapping.reduce import cache_umap_kernels

    cache_umap_kernels()
    serial_epoch = umap.layouts._nb_optimize_layout_euclidean_single_epoch
    for kernel in (umap.umap_.smooth_knn_dist, umap.umap_.compute_membership_strengths, serial_epoch):
        assert not isinstance(kernel._cache, NullCache), kernel
    # The parallel variant of the same function would share the serial one's cache entries.
    assert isinstance(umap.layouts._nb_optimize_layout_euclidean_single_epoch_parallel._cache, NullCache)


def test_a_projection_from_the_shared_neighbour_graph_equals_one_that_searched_its_own():
    points, _ = blobs(n_per_blob=40)
    graph = neighbour_graph(
        points,
        None,
        n_neighbors=10,
        metric="cosine",
        random_state=42,
        word_weight=0.0,
        word_dimensions=100,
        exact_neighbours_up_to=EXACT_UP_TO,
    )
    kept = (graph[0].copy(), graph[1].copy())
    own, settings = project(points)
    shared, _ = project(points, neighbours=graph)
    np.testing.assert_array_equal(shared, own)
    assert settings["neighbours"] == "exact"
    # The projections share the graph: none may change it for the next.
    np.testing.assert_array_equal(graph[0], kept[0])
    np.testing.assert_array_equal(graph[1], kept[1])


def test_a_graph_of_other_settings_is_refused():
    points, _ = blobs(n_per_blob=40)
    graph = exact_neighbours(points, n_neighbors=6, metric="cosine")
    with pytest.raises(ValueError, match="other settings"):
        project(points, neighbours=graph)


def test_no_graph_is_searched_for_a_fit_on_a_sample():
    points, _ = blobs()
    graph = neighbour_graph(
        points,
        None,
        10,
        "cosine",
        42,
        word_weight=0.0,
        word_dimensions=100,
        fit_sample_size=100,
        exact_neighbours_up_to=EXACT_UP_TO,
    )
    assert graph is None
    _, settings = project(points, fit_sample_size=100)
    assert settings["neighbours"] is None


@pytest.mark.slow  # NN-descent's numba compilation: tens of seconds in a fresh process
def test_above_the_exact_limit_the_graph_is_nn_descent_close_to_exact_and_the_same_for_every_seed():
    points, truth = blobs(n_per_blob=200)
    arguments = dict(n_neighbors=10, metric="cosine", random_state=42, word_weight=0.0, word_dimensions=100)
    approximate = neighbour_graph(points, None, exact_neighbours_up_to=100, **arguments)
    exact, _ = exact_neighbours(points, n_neighbors=10, metric="cosine")
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(approximate[0], exact, strict=True)])
    assert recall > 0.9
    # Like the exact graph, a function of the papers: not of the UMAP seed.
    again = neighbour_graph(points, None, exact_neighbours_up_to=100, **{**arguments, "random_state": 7})
    np.testing.assert_array_equal(again[0], approximate[0])
    cluster_space, settings = project(points, exact_neighbours_up_to=100)
    assert settings["neighbours"] == "nn-descent"
    labels, _ = cluster_points(
        cluster_space, min_cluster_size=20, min_samples=1, cluster_selection_method="eom"
    )
    assert normalized_mutual_info_score(truth, labels) > 0.9
