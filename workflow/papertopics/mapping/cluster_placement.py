"""``update: place`` for the clusters: the new papers' topics on the last fit, what is new in a
dump, and how well the fitted map still fits (``papertopics.mapping.placement`` places the projections).

A new paper's topic is HDBSCAN's ``approximate_predict`` on the last fit's clustering of the
joined cluster spaces (the consensus clusters one space, the runs' spaces side by side, so the
new paper's placed coordinates are joined the same way): its nearest fitted paper by mutual
reachability gives its cluster, and the cluster's fitted papers their final topic (the most
of them; the topics stage settled each cluster's id). The fitted papers keep the topic the fit
gave them. The new papers that fit no cluster, or fit it weakly (``WEAK_QUANTILE``), are clustered among
themselves, one dump at a time;
a group whose centroid is less similar than ``new_topic_max_similarity`` (cosine of the mean
embeddings) to every existing topic becomes a new topic, the rest are left to the topics stage's
outlier assignment, as a refit's outliers are.
"""

from __future__ import annotations

import logging
from collections import Counter

import numpy as np

from papertopics import signed, storage
from papertopics.embed.encoders import corpus_embeddings
from papertopics.mapping.cluster import OUTLIER, topic_centroids
from papertopics.settings import ClusterSettings

_LOG = logging.getLogger(__name__)
# A placed paper fits its topic only weakly when its embedding is less similar to every topic's
# centroid than this share of the fitted papers are to their own topic's: UMAP's transform puts
# even a paper of a field the fit never saw beside some fitted papers, where HDBSCAN's prediction
# can give it their cluster, so the embeddings, not the map, tell a new field apart.
WEAK_QUANTILE = 0.05


def save_clusters(path: str, ids: np.ndarray, labels: np.ndarray, clusterer, settings: dict) -> None:
    """Keep the fitted HDBSCAN (with its prediction data), the fitted papers' labels and
    strengths and the fit's settings, for later placements, signed with this installation's key
    (``papertopics.signed``).
    """
    strengths = (
        np.ones(len(labels)) if clusterer is None else np.asarray(clusterer.probabilities_, dtype=np.float64)
    )
    signed.dump(
        {
            "ids": ids.tolist(),
            "labels": labels,
            "strengths": strengths,
            "clusterer": clusterer,
            "settings": settings,
        },
        path,
    )


def cluster_of_topic(fitted_labels: np.ndarray, fitted_topics: np.ndarray) -> dict[int, int]:
    """Each fitted cluster's final topic: the one most of its papers got (the smallest id on a tie)."""
    found = {}
    for cluster in np.unique(fitted_labels[fitted_labels != OUTLIER]).tolist():
        counts = Counter(fitted_topics[fitted_labels == cluster].tolist())
        found[cluster] = min(counts, key=lambda topic: (-counts[topic], topic))
    return found


def new_groups(
    vectors: np.ndarray, existing: np.ndarray, min_size: int, max_similarity: float
) -> list[np.ndarray]:
    """The rows of ``vectors`` (a dump's papers that fit no topic) that form groups of at least
    ``min_size`` unlike every ``existing`` unit centroid (cosine below ``max_similarity``).
    """
    if len(vectors) < max(2 * min_size, 4):
        return []
    # HDBSCAN loads only in the jobs that cluster.
    from hdbscan import HDBSCAN

    units = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    # One coherent group is the common case (a dump bringing one new field): allowed alone.
    labels = HDBSCAN(min_cluster_size=min_size, allow_single_cluster=True).fit_predict(units)
    groups = []
    for group in np.unique(labels[labels != OUTLIER]).tolist():
        rows = np.flatnonzero(labels == group)
        centroid = units[rows].mean(axis=0)
        centroid /= max(np.linalg.norm(centroid), 1e-12)
        if not len(existing) or float((existing @ centroid).max()) < max_similarity:
            groups.append(rows)
    return groups


def _with_nearest(vectors: np.ndarray, existing: np.ndarray, groups: list[np.ndarray]) -> list[np.ndarray]:
    """Each new group with the other rows of ``vectors`` nearer its centroid than any existing
    topic's and any other group's (as a refit moves its outliers to the nearest topic).
    """
    if not groups:
        return groups
    units = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    grouped = np.zeros(len(vectors), dtype=np.int64) - 1
    for index, rows in enumerate(groups):
        grouped[rows] = index
    centroids = np.vstack([units[rows].mean(axis=0) for rows in groups])
    centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
    to_groups = units @ centroids.T
    to_existing = (units @ existing.T).max(axis=1) if len(existing) else np.full(len(units), -np.inf)
    joins = (grouped == -1) & (to_groups.max(axis=1) > to_existing)
    grouped[joins] = to_groups[joins].argmax(axis=1)
    return [np.flatnonzero(grouped == index) for index in range(len(groups))]


def unfit_papers(
    vectors: np.ndarray,
    fitted_rows: np.ndarray,
    fitted_topics: np.ndarray,
    topic_ids: np.ndarray,
    centroids: np.ndarray,
    rows: np.ndarray,
) -> np.ndarray:
    """Which of ``rows`` are less similar to every topic centroid than ``WEAK_QUANTILE`` of the
    fitted papers are to their own topic's (see ``WEAK_QUANTILE``): one measure for fitted and
    placed papers alike, so that their shares compare.
    """
    if not len(rows) or not len(topic_ids):
        return np.zeros(len(rows), dtype=bool)
    units = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    in_topic = fitted_topics != OUTLIER
    own = np.searchsorted(topic_ids, fitted_topics[in_topic])
    fitted_similarity = np.einsum("ij,ij->i", units[fitted_rows[in_topic]], centroids[own])
    threshold = float(np.quantile(fitted_similarity, WEAK_QUANTILE))
    return (units[rows] @ centroids.T).max(axis=1) < threshold


def fit_figures(
    fitted: dict,
    placed_labels: np.ndarray,
    placed_strengths: np.ndarray,
    unfit: tuple[np.ndarray, np.ndarray],
    new_topics: int,
    margin: float,
) -> dict:
    """How well the fitted map still fits the new papers.

    ``unfit`` (the fitted papers', then the new papers' ``unfit_papers``) is measured alike on
    both, so the shares compare: a refit is recommended when the new papers' share passes the
    fitted papers' by more than ``margin``, or when a dump brought a new topic (a field the map
    lacks, drawn on other topics' ground). HDBSCAN's figures (predicted outliers, membership
    strength) are kept for the record, but do not compare: a transformed paper sits less densely
    among the fitted ones than they sit among themselves, so even papers like the fitted ones
    come out as outliers more often and with lower strength.
    """
    fitted_unfit, new_unfit = (float(np.mean(flags)) if len(flags) else 0.0 for flags in unfit)
    fitted_outliers = float(np.mean(fitted["labels"] == OUTLIER)) if len(fitted["labels"]) else 0.0
    new_outliers = float(np.mean(placed_labels == OUTLIER)) if len(placed_labels) else 0.0
    return {
        "fitted_papers": len(fitted["labels"]),
        "new_papers": len(placed_labels),
        "fitted_unfit_share": round(fitted_unfit, 4),
        "new_unfit_share": round(new_unfit, 4),
        "new_topics": new_topics,
        "fitted_outlier_share": round(fitted_outliers, 4),
        "new_outlier_share": round(new_outliers, 4),
        "fitted_mean_strength": round(float(np.mean(fitted["strengths"])), 4)
        if len(fitted["labels"])
        else None,
        "new_mean_strength": round(float(np.mean(placed_strengths)), 4) if len(placed_labels) else None,
        "refit_margin": margin,
        "refit_recommended": bool(len(placed_labels) and (new_topics or new_unfit > fitted_unfit + margin)),
    }


def fit_note(figures: dict) -> str:
    """The report's and log's sentence on the placement."""
    if not figures["refit_recommended"]:
        verdict = "the map still fits"
    elif figures["new_topics"]:
        verdict = "the map lacks a field the new papers bring: refit (update: refit, or make refit)"
    else:
        verdict = "the map no longer fits the new papers well: refit (update: refit, or make refit)"
    strength = (
        f" (mean membership strength {figures['new_mean_strength']:.2f} against {figures['fitted_mean_strength']:.2f})"
        if figures["new_mean_strength"] is not None
        else ""
    )
    return (
        f"update: place: {figures['new_papers']} new papers placed on the map fitted on "
        f"{figures['fitted_papers']}; {figures['new_unfit_share']:.0%} of them are less like every topic "
        f"than 95% of the fitted papers are like theirs, against {figures['fitted_unfit_share']:.0%} of the "
        f"fitted papers; HDBSCAN predicts {figures['new_outlier_share']:.0%} of them outliers against "
        f"{figures['fitted_outlier_share']:.0%} of the fitted papers at the fit{strength}, as placed papers "
        f"sit less densely; new topics: {figures['new_topics']}; {verdict}."
    )


def _new_topics(
    vectors: np.ndarray,
    dump_of: np.ndarray,
    candidates: np.ndarray,
    existing: np.ndarray,
    labels: np.ndarray,
    first_label: int,
    placement: ClusterSettings,
) -> np.ndarray:
    """The new topics among the ``candidates`` (placed papers that fit no topic), one dump at a
    time: each group ``new_groups`` finds gets the next label from ``first_label`` in ``labels``
    (changed in place). Returns the dump each paper's new topic is new in ("" for the others).
    """
    new_in = np.full(len(labels), "", dtype=object)
    next_label = first_label
    for dump in dict.fromkeys(dump_of[candidates].tolist()):
        rows = candidates[dump_of[candidates] == dump]
        groups = new_groups(
            vectors[rows], existing, placement.new_topic_min_size, placement.new_topic_max_similarity
        )
        for group in _with_nearest(vectors[rows], existing, groups):
            labels[rows[group]] = next_label
            new_in[rows[group]] = dump
            next_label += 1
    return new_in


def place_clusters(
    fitted: dict,
    fitted_topics: dict,
    ids: list[str],
    dumps: list[str],
    spaces: list[np.ndarray],
    vectors: np.ndarray,
    placement: ClusterSettings,
) -> tuple[dict, dict]:
    """Every paper's settled topic on the last fit.

    Args:
        fitted: the fit's clusters (``save_clusters``).
        fitted_topics: the fitted papers' final topics (``keep_fit``'s ``topics.npz``).
        ids: the corpus's paper ids.
        dumps: each paper's dump.
        spaces: the cluster spaces, the new papers placed on them.
        vectors: the papers' embeddings.
        placement: the cluster stage's knobs, of which the placement section's are read.

    Returns:
        The arrays of ``labels.npz`` (``labels``: a topic id, a new topic's number above every
        id, or -1 for the topics stage to assign; ``outlier``; ``strength``; ``new_in``: the dump a
        new topic's paper is new in; ``fitted_label`` and ``fitted_group_label``: a fitted paper's
        topic label and its topic's group label) and the fit figures.
    """
    # HDBSCAN loads only in the jobs that cluster.
    from hdbscan.prediction import approximate_predict

    row = {identifier: i for i, identifier in enumerate(ids)}
    fitted_rows = np.array([row[identifier] for identifier in fitted["ids"]], dtype=np.int64)
    topic_of = dict(zip(fitted_topics["ids"].tolist(), fitted_topics["topic"].tolist(), strict=True))
    outlier_of = dict(zip(fitted_topics["ids"].tolist(), fitted_topics["outlier"].tolist(), strict=True))
    fitted_label, fitted_group_label = (
        _fitted_per_paper(fitted_topics, name, fitted["ids"], fitted_rows, len(ids))
        for name in ("label", "group_label")
    )
    labels = np.full(len(ids), OUTLIER, dtype=np.int64)
    outlier = np.zeros(len(ids), dtype=bool)
    strength = np.zeros(len(ids), dtype=np.float64)
    labels[fitted_rows] = [topic_of[identifier] for identifier in fitted["ids"]]
    outlier[fitted_rows] = [outlier_of[identifier] for identifier in fitted["ids"]]
    strength[fitted_rows] = fitted["strengths"]
    placed = np.setdiff1d(np.arange(len(ids)), fitted_rows)
    predicted = np.zeros(0, dtype=np.int64)
    if len(placed) and fitted["clusterer"] is not None:
        predicted, strength[placed] = approximate_predict(fitted["clusterer"], np.hstack(spaces)[placed])
    elif len(placed):  # the fit was one topic (too few papers to cluster): so are the new papers
        predicted, strength[placed] = np.zeros(len(placed), dtype=np.int64), 1.0
    mapping = cluster_of_topic(np.asarray(fitted["labels"]), labels[fitted_rows])
    labels[placed] = [mapping.get(int(c), OUTLIER) for c in predicted]
    outlier[placed] = labels[placed] == OUTLIER
    existing_ids = np.unique(labels[fitted_rows][labels[fitted_rows] != OUTLIER])
    existing = topic_centroids(vectors[fitted_rows], labels[fitted_rows], existing_ids)
    unfit = [
        unfit_papers(vectors, fitted_rows, labels[fitted_rows], existing_ids, existing, rows)
        for rows in (fitted_rows, placed)
    ]
    candidates = placed[(labels[placed] == OUTLIER) | unfit[1]]
    first_new = int(max(existing_ids.max(initial=-1), fitted_topics["topic"].max(initial=-1))) + 1
    new_in = _new_topics(vectors, np.asarray(dumps), candidates, existing, labels, first_new, placement)
    outlier[new_in != ""] = False
    new_topics = len(set(labels[new_in != ""].tolist()))
    figures = fit_figures(
        fitted, np.asarray(predicted), strength[placed], tuple(unfit), new_topics, placement.refit_margin
    )
    arrays = {
        "labels": labels,
        "outlier": outlier,
        "strength": strength,
        "new_in": new_in.astype(str),
        "fitted_label": fitted_label.astype(str),
        "fitted_group_label": fitted_group_label.astype(str),
    }
    return arrays, figures


def _fitted_per_paper(
    fitted_topics: dict, name: str, fitted_ids: list[str], fitted_rows: np.ndarray, papers: int
) -> np.ndarray:
    """``keep_fit``'s per-paper field ``name`` of each fitted paper in the corpus's rows, "" for
    the others (and for all where the fit kept no such field: one kept before it was added).
    """
    values = np.full(papers, "", dtype=object)
    if name in fitted_topics:
        of = dict(zip(fitted_topics["ids"].tolist(), fitted_topics[name].tolist(), strict=True))
        values[fitted_rows] = [of[identifier] for identifier in fitted_ids]
    return values


def placed_clusters(
    fitted: list[str],
    fitted_topics: list[str],
    runs: list[dict],
    papers: str,
    embeddings: list[str],
    placement: ClusterSettings,
) -> tuple[dict, dict] | None:
    """The cluster stage's labels and settings placed on the last fit, or None where the
    projections were fitted afresh (or no fit is kept): the stage then clusters afresh too.

    Raises:
        signed.Refused: the kept clusters are not this installation's (not loaded).
    """
    if not fitted or not fitted_topics or any(str(run.get("mode", "refit")) != "place" for run in runs):
        return None
    saved = signed.load(fitted[0])
    if saved["settings"].get("spaces", 1) != len(runs):
        return None
    records, vectors = corpus_embeddings(papers, embeddings)
    ids = [p["id"] for p in records]
    arrays, figures = place_clusters(
        saved,
        storage.read_arrays(fitted_topics[0]),
        ids,
        [p["dump"] for p in records],
        [run["cluster_space"] for run in runs],
        vectors,
        placement,
    )
    figures["note"] = fit_note(figures)
    _LOG.warning("%s", figures["note"])
    settings = {**saved["settings"], "placement": figures}
    return {"ids": np.array(ids), "mode": np.array("place"), **arrays}, settings


def refit_note(update: str, runs: list[dict], refused: list[str]) -> dict | None:
    """The cluster stage's placement record where ``update: place`` was asked but the clusters
    were refitted; ``refused``: the kept clusters' file where it was not this installation's (the
    cluster spaces' files refused are in ``runs``, each its ``refused`` where one was).
    """
    if update != "place":
        return None
    files = [str(run["refused"]) for run in runs if "refused" in run] + refused
    if files:
        return {
            "refused": files,
            "note": f"update: place did not load {', '.join(files)} (not signed by this installation: "
            "written elsewhere, edited, truncated, or kept before fits were signed; never unpickled): "
            "what they held was fitted afresh.",
        }
    return {
        "note": "update: place found no fitted map to place the new papers on (the first run, changed "
        "settings, or papers gone from the corpus): everything was refitted."
    }
