"""Topics of several seeded UMAP runs clustered together (papertopics.mapping.consensus)."""

import numpy as np
from papertopics.mapping.cluster import cluster_points
from papertopics.mapping.consensus import cluster_runs, consensus_seeds, mean_pairwise_ari
from sklearn.metrics import adjusted_rand_score

HDBSCAN = {"min_cluster_size": 10, "min_samples": None, "cluster_selection_method": "eom"}


def test_seeds_start_with_the_configured_one_and_two_settings_share_no_other_run():
    first, second = consensus_seeds(42, 5), consensus_seeds(7, 5)
    assert first[0] == 42 and second[0] == 7
    assert len(set(first)) == 5
    assert not set(first) & set(second)
    assert consensus_seeds(42, 5) == first
    assert consensus_seeds(42, 1) == [42]


def test_one_run_is_hdbscan_alone_with_its_outliers():
    rng = np.random.default_rng(1)
    points = np.vstack(
        [rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + 8, rng.uniform(-20, 30, size=(6, 2))]
    )
    points = points.astype(np.float32)
    topics, used = cluster_runs([points], None, **HDBSCAN)
    assert "consensus" not in used
    assert topics.tolist() == cluster_points(points, **HDBSCAN)[0].tolist()


def _noisy_runs(seed: int, runs: int):
    """Three topics of 60 papers; each 'run' places every paper near its topic's centre with
    noise of its own, so that single runs blur where the topics meet (as UMAP layouts do).
    """
    rng = np.random.default_rng(seed)
    truth = np.repeat([0, 1, 2], 60)
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [1.5, 2.6]])
    embeddings = (np.eye(3)[truth] + rng.normal(scale=0.05, size=(180, 3))).astype(np.float32)
    spaces = [(centres[truth] + rng.normal(scale=0.9, size=(180, 2))).astype(np.float32) for _ in range(runs)]
    return truth, embeddings, spaces


def test_runs_clustered_together_agree_with_the_topics_better_than_any_run_alone():
    truth, embeddings, spaces = _noisy_runs(0, 5)
    alone = [adjusted_rand_score(truth, cluster_points(space, **HDBSCAN)[0]) for space in spaces]
    topics, settings = cluster_runs(spaces, embeddings, **HDBSCAN)
    assert adjusted_rand_score(truth, topics) > max(alone) + 0.1
    consensus = settings["consensus"]
    assert consensus["runs"] == 5 and len(consensus["topics_per_run"]) == 5
    assert (
        0 <= consensus["mean_pairwise_ari_of_runs"] < 1 and 0 < consensus["mean_ari_consensus_to_runs"] <= 1
    )


def test_mean_pairwise_ari_is_one_for_relabelled_copies_and_lower_otherwise():
    a = np.array([0, 0, 1, 1, 2, 2])
    assert mean_pairwise_ari([a, (a + 1) % 3, a]) == 1.0
    assert mean_pairwise_ari([a, np.array([0, 1, 0, 1, 2, 2])]) < 1.0


def test_the_report_overview_gives_the_seed_stability_of_a_run_with_joined_runs():
    from papertopics.report.quality import quality_figures

    metrics = {"top_n_words": 10, "npmi": 0.1, "diversity": 0.8, "outlier_share": 0.2, "labels": None}
    assert not any("Seed stability" in name for name in quality_figures(metrics))
    consensus = {
        "runs": 3,
        "topics_per_run": [50, 52, 49],
        "mean_pairwise_ari_of_runs": 0.791,
        "mean_ari_consensus_to_runs": 0.873,
    }
    figures = quality_figures({**metrics, "consensus": consensus})
    assert figures["Seed stability (3 seeded UMAP runs; topics are their consensus)"] == (
        "single runs agree ARI 0.791, consensus to each run ARI 0.873"
    )
