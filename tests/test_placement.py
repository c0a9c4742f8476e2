"""update: place's parts on the shipped papers' real embeddings: a projection saved without its
training vectors places new papers, keeps the fitted ones' coordinates and repeats itself; the
placed clusters keep the fitted papers' topics; a planted field is found new; the fit figures.
"""

from __future__ import annotations

import numpy as np
import pytest
from papertopics import signed
from papertopics.ingest.parse import parse_dump
from papertopics.mapping.cluster import OUTLIER, topic_centroids
from papertopics.mapping.cluster_placement import (
    cluster_of_topic,
    fit_figures,
    new_groups,
    place_clusters,
    save_clusters,
    unfit_papers,
)
from papertopics.mapping.placement import (
    place_projection,
    placing,
    save_projection,
    vectorised_metric,
    why_not_placed,
)
from papertopics.mapping.reduce import Projection, reduce_embeddings
from papertopics.settings import ClusterSettings, ClusterSpaceSettings, umap_knobs

from tests.workflow_support import REPO, default_config

PLANTED = REPO / "tests" / "data" / "placement" / "reefs.txt"
# The cluster stage's knobs as config.yaml sets them (the placement section's are read here).
PLACEMENT = ClusterSettings.from_config(default_config())


@pytest.fixture(scope="module")
def corpus(seed_papers, seed_embeddings, seed_encoder):
    """The seeds (the first dump fitted, the second placed) and the planted reef papers."""
    from papertopics.embed.encoders import embedding_text

    reefs = parse_dump(PLANTED, min_abstract_chars=20).papers
    vectors = np.vstack(
        [seed_embeddings, seed_encoder.encode([embedding_text(p) for p in reefs], batch_size=16)]
    )
    papers = seed_papers + reefs
    return [p["id"] for p in papers], [p["dump"] for p in papers], vectors


def fitted_projection(tmp_path, ids, dumps, vectors, n_components):
    umap = umap_knobs(ClusterSpaceSettings, default_config()["umap"]) | {"n_components": n_components}
    fitted = np.asarray(dumps) == dumps[0]
    models = []
    coordinates, settings = reduce_embeddings(
        vectors[fitted], ["" for _ in range(fitted.sum())], Projection(**umap), models=models
    )
    path = tmp_path / f"projection-{n_components}.joblib"
    save_projection(str(path), np.asarray(ids)[fitted].tolist(), coordinates, models[0], umap, settings)
    return signed.load(path), umap, fitted


def test_a_saved_projection_places_new_papers_and_keeps_the_fitted_coordinates(tmp_path, corpus):
    ids, dumps, vectors = corpus
    fit, umap, fitted = fitted_projection(tmp_path, ids, dumps, vectors, 5)
    assert fit["model"]._raw_data is None  # the training vectors are given back at placement
    placed = place_projection(fit, ids, dumps, vectors)
    assert np.array_equal(placed[fitted], fit["coordinates"])
    assert np.isfinite(placed).all() and placed.shape == (len(ids), 5)
    again = place_projection(signed.load(tmp_path / "projection-5.joblib"), ids, dumps, vectors)
    assert np.array_equal(placed, again)
    # A new paper lands nearer the fitted papers it resembles than the average fitted paper does.
    nearest = (vectors[~fitted] @ vectors[fitted].T).argmax(axis=1)
    gaps = np.linalg.norm(placed[~fitted] - placed[fitted][nearest], axis=1)
    spread = np.linalg.norm(placed[fitted] - placed[fitted].mean(axis=0), axis=1).mean()
    assert np.median(gaps) < spread


def test_scikit_learns_metric_by_umaps_name_is_umaps_distance(corpus):
    # Placement searches the new papers' neighbours with scikit-learn's metric where it has
    # UMAP's by name: it must be the same distance, not another meaning of the name.
    from sklearn.metrics import pairwise_distances
    from umap.distances import named_distances

    _, _, vectors = corpus
    new, fitted = vectors[:20].astype(np.float32), vectors[20:].astype(np.float32)
    names = [
        name
        for name in ("cosine", "euclidean", "l2", "l1", "manhattan", "haversine")
        if vectorised_metric(name)
    ]
    assert "cosine" in names  # the default metric
    for name in names:
        # Haversine reads two coordinates (latitude, longitude in radians).
        a, b = (new[:, :2], fitted[:, :2]) if name == "haversine" else (new, fitted)
        ours = pairwise_distances(a, b, metric=name)
        umaps = pairwise_distances(a, b, metric=named_distances[name])
        assert np.allclose(ours, umaps, atol=1e-5), name
        assert (np.argsort(ours, axis=1)[:, :5] == np.argsort(umaps, axis=1)[:, :5]).mean() > 0.95
    assert not vectorised_metric("hellinger") and not vectorised_metric("precomputed")


def test_the_vectorised_search_places_papers_where_umaps_own_does(tmp_path, corpus, monkeypatch):
    from papertopics.mapping import placement

    ids, dumps, vectors = corpus
    fit, _, fitted = fitted_projection(tmp_path, ids, dumps, vectors, 2)
    placed = place_projection(fit, ids, dumps, vectors)
    monkeypatch.setattr(placement, "vectorised_metric", lambda metric: False)
    umaps = place_projection(signed.load(tmp_path / "projection-2.joblib"), ids, dumps, vectors)
    assert np.array_equal(placed[fitted], umaps[fitted])
    # UMAP's optimisation carries float32 rounding on: the same places, to a small share of the map.
    spread = np.linalg.norm(umaps[fitted] - umaps[fitted].mean(axis=0), axis=1).mean()
    assert np.median(np.linalg.norm(placed[~fitted] - umaps[~fitted], axis=1)) < 0.1 * spread


def test_a_fit_that_cannot_serve_says_why(tmp_path, corpus):
    ids, dumps, vectors = corpus
    fit, umap, fitted = fitted_projection(tmp_path, ids, dumps, vectors, 5)
    assert why_not_placed(fit, ids, umap) is None
    assert "n_components" in why_not_placed(fit, ids, umap | {"n_components": 3})
    gone = [identifier for identifier, kept in zip(ids, fitted, strict=True) if not kept]
    assert "no longer in the corpus" in why_not_placed(fit, gone, umap)


def test_placed_clusters_keep_the_fitted_topics_and_find_the_planted_field(tmp_path, corpus):
    from papertopics.mapping.cluster import cluster_points

    ids, dumps, vectors = corpus
    fit, _, fitted = fitted_projection(tmp_path, ids, dumps, vectors, 5)
    space = place_projection(fit, ids, dumps, vectors)
    models = []
    labels, settings = cluster_points(space[fitted], 3, None, "eom", models=models)
    fitted_ids = np.asarray(ids)[fitted]
    save_clusters(str(tmp_path / "clusters.joblib"), fitted_ids, labels, models[0], settings)
    final = np.where(labels == OUTLIER, OUTLIER, labels + 10)  # the topics stage's stable ids
    topics = {
        "ids": fitted_ids,
        "topic": final,
        "outlier": labels == OUTLIER,
        "label": np.array([f"topic {t}" for t in final]),
        "group_label": np.array([f"group {t % 2}" for t in final]),
    }
    arrays, figures = place_clusters(
        signed.load(tmp_path / "clusters.joblib"), topics, ids, dumps, [space], vectors, PLACEMENT
    )
    assert np.array_equal(arrays["labels"][fitted], final)
    # Each fitted paper's label and group label go on to the topics stage, "" for the placed papers.
    for name in ("label", "group_label"):
        assert arrays[f"fitted_{name}"][fitted].tolist() == topics[name].tolist()
        assert set(arrays[f"fitted_{name}"][~fitted].tolist()) == {""}
    # A fit kept before group labels were: none for any paper, so the topics stage labels groups afresh.
    older = place_clusters(
        signed.load(tmp_path / "clusters.joblib"),
        {k: v for k, v in topics.items() if k != "group_label"},
        ids,
        dumps,
        [space],
        vectors,
        PLACEMENT,
    )[0]
    assert set(older["fitted_group_label"].tolist()) == {""}
    reefs = np.asarray(dumps) == "reefs"
    assert set(arrays["new_in"][reefs]) <= {"reefs", ""}
    assert (arrays["new_in"][reefs] == "reefs").mean() >= 0.75
    # The reef papers' new topic is theirs alone, numbered above every fitted topic. (On a fit of 19
    # papers, a group of the second seed dump can be new too: its topics are few and coarse.)
    reef_topics = set(arrays["labels"][reefs & (arrays["new_in"] == "reefs")].tolist())
    assert len(reef_topics) == 1 and min(reef_topics) > final.max()
    assert not reef_topics & set(arrays["labels"][~reefs].tolist())
    assert figures["new_papers"] == int((~fitted).sum())


def test_a_group_like_an_existing_topic_is_not_new(corpus):
    ids, dumps, vectors = corpus
    reefs = np.asarray(dumps) == "reefs"
    seeds = np.flatnonzero(~reefs)
    existing = topic_centroids(vectors, np.where(reefs, 1, 0), [0, 1])
    assert new_groups(vectors[reefs], existing, 5, 0.7) == []
    assert len(new_groups(vectors[reefs], existing[:1], 5, 0.7)) == 1
    assert new_groups(vectors[seeds[:6]], existing, 5, 0.7) == []  # too few to group


def test_each_fitted_cluster_maps_to_the_topic_most_of_its_papers_got():
    assert cluster_of_topic(np.array([0, 0, 0, 1, -1]), np.array([7, 7, 3, 4, 9])) == {0: 7, 1: 4}
    assert cluster_of_topic(np.array([0, 0]), np.array([5, 2])) == {0: 2}


def test_a_refit_is_recommended_when_new_papers_fit_worse_alike_or_bring_a_field():
    fitted = {"labels": np.array([0, 0, 1, -1]), "strengths": np.array([1.0, 0.9, 0.8, 0.0])}
    # Many more placed outliers than fitted ones do not by themselves advise a refit (placed
    # papers sit less densely); the like-for-like share of unfit papers does.
    outliers, strengths = np.array([-1, -1, 1, -1]), np.array([0.0, 0.0, 0.5, 0.0])
    fitted_unfit = np.array([False] * 19 + [True])
    alike = fit_figures(fitted, outliers, strengths, (fitted_unfit, np.array([False] * 9 + [True])), 0, 0.1)
    far = fit_figures(fitted, outliers, strengths, (fitted_unfit, np.array([False] * 6 + [True] * 4)), 0, 0.1)
    field = fit_figures(fitted, outliers, strengths, (fitted_unfit, np.array([False] * 10)), 1, 0.1)
    assert not alike["refit_recommended"]
    assert far["refit_recommended"] and field["refit_recommended"]
    assert far["new_unfit_share"] == 0.4 and far["fitted_unfit_share"] == 0.05
    assert far["new_outlier_share"] == 0.75 and far["fitted_outlier_share"] == 0.25


def test_a_placed_paper_is_unfit_by_the_measure_the_fitted_papers_are(corpus):
    ids, dumps, vectors = corpus
    reefs = np.asarray(dumps) == "reefs"
    fitted_rows = np.flatnonzero(~reefs)
    topics = np.zeros(len(fitted_rows), dtype=np.int64)
    centroids = topic_centroids(vectors[fitted_rows], topics, [0])
    own = unfit_papers(vectors, fitted_rows, topics, np.array([0]), centroids, fitted_rows)
    assert abs(own.mean() - 0.05) <= 1 / len(fitted_rows) + 1e-9  # the quantile, by construction
    assert unfit_papers(vectors, fitted_rows, topics, np.array([0]), centroids, np.flatnonzero(reefs)).all()


_SAVE_IN_A_FRESH_PROCESS = """
import sys
import numpy as np
from papertopics.mapping.placement import save_projection
from papertopics.mapping.reduce import Projection, reduce_embeddings
from tests.workflow_support import default_config
from papertopics.settings import ClusterSpaceSettings, umap_knobs

vectors = np.load(sys.argv[1])
umap = umap_knobs(ClusterSpaceSettings, default_config()["umap"])
models = []
coordinates, settings = reduce_embeddings(vectors, ["" for _ in vectors], Projection(**umap), models=models)
save_projection(sys.argv[2], [str(i) for i in range(len(vectors))], coordinates, models[0], umap, settings)
"""


def test_the_same_fit_saved_by_two_processes_is_the_same_file(tmp_path, seed_embeddings):
    # The fit is published with the results, which a rerun reproduces byte for byte
    # (tests/test_interrupted_run.py): nothing process-specific may be pickled into it.
    import os
    import subprocess
    import sys

    np.save(tmp_path / "vectors.npy", seed_embeddings)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "workflow"), str(REPO)])}
    for name in ("first", "second"):
        subprocess.run(
            [
                sys.executable,
                "-c",
                _SAVE_IN_A_FRESH_PROCESS,
                str(tmp_path / "vectors.npy"),
                str(tmp_path / name),
            ],
            check=True,
            env=env,
            timeout=600,
        )
    assert (tmp_path / "first").read_bytes() == (tmp_path / "second").read_bytes()


def test_the_neighbour_graph_is_skipped_only_where_the_fit_can_place_the_corpus(tmp_path):
    from papertopics import storage

    fit = tmp_path / "topics.npz"
    storage.write_arrays(fit, ids=np.array(["a", "b"]), topic=np.array([0, 1]))
    assert placing([str(fit)], "place", ["a", "b", "c"], 0.0)
    assert not placing([str(fit)], "refit", ["a", "b", "c"], 0.0)
    assert not placing([], "place", ["a", "b", "c"], 0.0)  # nothing fitted yet
    assert not placing([str(fit)], "place", ["a", "c"], 0.0)  # a fitted paper gone: a refit
    assert not placing([str(fit)], "place", ["a", "b", "c"], 0.3)  # word vectors refitted


def test_a_placed_update_words_afresh_only_the_periods_whose_topics_papers_changed():
    from papertopics.periods.assign import Periods
    from papertopics.topics.wording import periods_to_word, with_kept_wording

    # Six papers: two in 2022, two in 2023 (one of them placed in topic 1), two in 2024 (a year
    # the fit lacked).
    periods = Periods(
        "year",
        ["2022", "2023", "2024"],
        np.arange(6),
        np.array(["2022", "2022", "2023", "2023", "2024", "2024"]),
        0,
    )
    topics = np.array([0, 1, 0, 1, 1, 1])
    fitted = {
        "0": [
            {"period": "2022", "papers": 1, "keywords": []},
            {"period": "2023", "papers": 1, "keywords": []},
        ],
        "1": [{"period": "2022", "papers": 1, "keywords": []}],
    }
    fresh = periods_to_word(periods, topics, fitted)
    assert fresh.names == periods.names
    assert fresh.rows.tolist() == [2, 3, 4, 5] and sorted(set(fresh.period)) == ["2023", "2024"]
    # A fit of one period worded none: every period is worded afresh.
    assert periods_to_word(periods, topics, {}).rows.tolist() == list(range(6))
    # Nothing placed, nothing changed: nothing is worded afresh.
    assert (
        periods_to_word(
            periods,
            topics,
            {**fitted, "1": [*fitted["1"], {"period": "2023", "papers": 1}, {"period": "2024", "papers": 2}]},
        ).rows.tolist()
        == []
    )

    kept = [
        {"period": "2022", "papers": 2, "keywords": ["kept 2022"]},
        {"period": "2023", "papers": 1, "keywords": ["stale 2023"]},
    ]
    new = [
        {"period": "2024", "papers": 2, "keywords": ["new 2024"]},
        {"period": "2023", "papers": 2, "keywords": ["new 2023"]},
    ]
    assert [
        entry["keywords"][0] for entry in with_kept_wording(kept, new, {"2023", "2024"}, periods.names)
    ] == [
        "kept 2022",
        "new 2023",
        "new 2024",
    ]
