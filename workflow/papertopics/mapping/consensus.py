"""Topics that do not move with the UMAP seed: one clustering of several seeded UMAP runs.

A single UMAP + HDBSCAN run is one draw: on IJCAI, many papers change topic when only UMAP's
seed changes (bench/quality.md). Here several seeded runs' cluster spaces are joined side by side and
HDBSCAN clusters the joined space once: two papers' squared distance there is the sum of their
squared distances in the runs, so what one run's layout happens to put close or far counts for
a share of it only. (A co-association consensus, papers that most runs put in one topic, was
measured too and chained topics together or moved more with the seed; see docs/quality.md.)
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from papertopics.mapping.cluster import OUTLIER, assign_outliers, cluster_points


def consensus_seeds(random_state: int, runs: int) -> list[int]:
    """UMAP seeds of the runs: ``random_state`` first (the reduce stage's run, which the 2-d map
    shares), then seeds drawn from it, so that two settings' runs do not overlap by construction.
    """
    drawn = np.random.default_rng(random_state).integers(0, 2**31 - 1, size=runs - 1)
    return [int(random_state)] + [int(seed) for seed in drawn]


def mean_pairwise_ari(partitions: list[np.ndarray]) -> float:
    """Mean adjusted Rand index over all pairs of the partitions."""
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from sklearn.metrics import adjusted_rand_score

    return float(np.mean([adjusted_rand_score(a, b) for a, b in combinations(partitions, 2)]))


def cluster_runs(
    cluster_spaces: list[np.ndarray], embeddings: np.ndarray | None, models: list | None = None, **hdbscan
) -> tuple[np.ndarray, dict]:
    """HDBSCAN's topics (outliers -1) of one cluster space, or of several runs' spaces joined,
    with the settings used. For several runs, ``settings["consensus"]`` says how far apart the
    runs clustered alone are (``embeddings`` join each one's outliers to a topic, as the topics
    stage does) and how close the joined clustering is to each of them. ``models``: where given,
    the HDBSCAN of the (joined) space is appended to it (``papertopics.mapping.cluster.cluster_points``).
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from sklearn.metrics import adjusted_rand_score

    if len(cluster_spaces) == 1:
        return cluster_points(cluster_spaces[0], models=models, **hdbscan)
    labels, settings = cluster_points(np.hstack(cluster_spaces), models=models, **hdbscan)
    joined = assign_outliers(embeddings, labels)
    alone = [assign_outliers(embeddings, cluster_points(space, **hdbscan)[0]) for space in cluster_spaces]
    settings["consensus"] = {
        "runs": len(cluster_spaces),
        "topics_per_run": [int(len(set(p.tolist()) - {OUTLIER})) for p in alone],
        "mean_pairwise_ari_of_runs": mean_pairwise_ari(alone),
        "mean_ari_consensus_to_runs": float(np.mean([adjusted_rand_score(joined, p) for p in alone])),
    }
    return labels, settings
