"""``update: place``: a new dump's papers placed on the last fitted map instead of a refit.

A refit (``update: refit``, the default) fits every UMAP projection and HDBSCAN afresh and keeps
each fitted model in its job's ``model`` output; ``keep_fit`` gathers them, with each fitted
paper's final topic, under ``results/staged/fit/``, which the publish rule puts in
``results/fit/`` once the whole run has succeeded. A failed run therefore leaves the last good
fit in place, and a placement never reads its own job's outputs (Snakemake deletes those first).

With ``update: place`` each projection job reads its model from ``results/fit/``: the fitted
papers keep the coordinates they were fitted with, and every other paper is placed by the
model's ``transform``, one dump at a time (so a dump placed once is placed alike later, whatever
dumps follow it). Its ``model`` output is a hard link to the fitted file: the fit, and its
modification time, stay as they were, so that the next run sees nothing new in it.
Where the fit cannot serve (none yet, other settings, a fitted paper gone from the corpus, a
file this installation did not sign, ``papertopics.signed``) the job fits afresh and says why;
the cluster stage then refits too (``papertopics.mapping.cluster_placement``).
"""

from __future__ import annotations

import copy
import errno
import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from papertopics import signed, storage
from papertopics.mapping.reduce import cache_umap_kernels, fitted_rows

# Where the publish rule puts the last good fit (results/staged/fit of the run that fitted it).
FIT = "results/fit"
_LOG = logging.getLogger(__name__)
# What a UMAP model needs for transform that the fitted papers' embeddings do not give back:
# the rest (the raw vectors, the fit's neighbour graph and search index) is dropped before saving.
_DROPPED = ("_raw_data", "graph_", "_knn_indices", "_knn_dists", "knn_indices", "knn_dists")
# And the numba-compiled distance functions: pickled, each carries an id drawn afresh in every
# process, so the same fit saved twice would differ byte for byte. UMAP sets them again from its
# metric names when the training vectors are given back (``place_projection``).
_COMPILED = ("_input_distance_func", "_inverse_distance_func", "_output_distance_func")


def link_or_copy(source: str, target: str) -> None:
    """``target`` the same file as ``source`` (a hard link; a copy keeping its time elsewhere),
    so that the fit's modification time does not change when a placement passes it on.
    """
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(target):
        os.remove(target)
    try:
        os.link(source, target)
    except OSError as error:
        if error.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EACCES):
            raise
        shutil.copy2(source, target)


def save_projection(
    path: str, ids: list[str], coordinates: np.ndarray, model, umap: dict, settings: dict
) -> None:
    """Keep a fitted projection for later placements: the papers' ids and coordinates, the
    settings it was fitted with and the UMAP model without its training vectors (the fitted
    papers' embeddings, given back at placement), so that the file grows with the coordinates only;
    ``settings``: the fit's own record (``umap.json``), which a placement reports as its own.
    Signed with this installation's key (``papertopics.signed``): only this installation loads it.
    """
    if model is not None:
        model = _without_training_data(model)
    signed.dump(
        {
            "ids": list(ids),
            "coordinates": coordinates,
            "model": model,
            "umap": dict(umap),
            "settings": settings,
        },
        path,
    )


def _without_training_data(model):

    kept = copy.copy(model)
    for name in _DROPPED + _COMPILED:
        if hasattr(kept, name):
            setattr(kept, name, None)
    # A sampled fit's search index holds the sample's vectors; placement searches exactly instead.
    kept.__dict__.pop("_knn_search_index", None)
    kept.__dict__.pop("knn_search_index", None)
    return kept


def why_not_placed(fit: dict, ids: list[str], umap: dict) -> str | None:
    """Why the saved projection ``fit`` cannot place the corpus ``ids`` with settings ``umap``; None if it can."""
    if fit["model"] is None:
        return "the fitted map was too small for UMAP"
    if fit["umap"] != umap:
        changed = sorted(k for k in set(fit["umap"]) | set(umap) if fit["umap"].get(k) != umap.get(k))
        return f"umap settings changed since the fit ({', '.join(changed)})"
    if umap.get("word_weight", 0) > 0:
        return "umap.word_weight above 0 (word vectors are refitted with the corpus)"
    missing = set(fit["ids"]) - set(ids)
    if missing:
        return f"{len(missing)} fitted papers are no longer in the corpus"
    return None


def placing(fitted_topics: list[str], update: str, ids: list[str], word_weight: float) -> bool:
    """Whether the projections will place ``ids`` on the last fit (``fitted_topics``: its papers'
    topics, a plain array file, read without unpickling a UMAP), as far as the neighbour graph's
    job can tell: every fitted paper still in the corpus, no word vectors. A projection that refits
    after all (its layout settings changed) searches the same graph itself.
    """
    if update != "place" or not fitted_topics or word_weight > 0:
        return False
    return set(storage.read_arrays(fitted_topics[0])["ids"].tolist()) <= set(ids)


def vectorised_metric(metric) -> bool:
    """Whether scikit-learn's pairwise distances have UMAP's input ``metric`` under its name (the
    same distance), computed in matrix products rather than one call per pair.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from sklearn.metrics.pairwise import distance_metrics
    from umap.distances import named_distances

    return (
        isinstance(metric, str)
        and metric != "precomputed"
        and metric in distance_metrics()
        and metric in named_distances
    )


def place_projection(fit: dict, ids: list[str], dumps: list[str], vectors: np.ndarray) -> np.ndarray:
    """The corpus's coordinates on the fitted projection ``fit``: a fitted paper's as fitted, the
    others ``transform``ed, one dump (``dumps``: each paper's) at a time, in order of first appearance.
    """
    row = {identifier: i for i, identifier in enumerate(ids)}
    fitted_rows_now = np.array([row[identifier] for identifier in fit["ids"]], dtype=np.int64)
    model = fit["model"]
    settings = fit["umap"]
    trained = fitted_rows_now[
        fitted_rows(len(fit["ids"]), settings.get("fit_sample_size"), settings["random_state"])
    ]
    model._raw_data = np.ascontiguousarray(vectors[trained], dtype=np.float32)
    model._validate_parameters()  # UMAP's own: the distance functions from the metric names
    # Exact neighbours of the new papers among the fitted ones (UMAP's own path for small fits):
    # the model keeps no search index, and the placement does not depend on one.
    model._small_data = True
    if vectorised_metric(model.metric):
        # That path hands scikit-learn UMAP's numba metric, which it calls from Python once per
        # pair of papers (10 million calls to place 1,000 papers on 10,000: nearly all of a
        # placed projection's time); scikit-learn's own metric of that name is a few matrix
        # products, with the same neighbours (the distances agree to float32 rounding).
        model._input_distance_func = model.metric
    cache_umap_kernels()
    coordinates = np.zeros((len(ids), fit["coordinates"].shape[1]), dtype=np.float32)
    coordinates[fitted_rows_now] = fit["coordinates"]
    is_new = np.ones(len(ids), dtype=bool)
    is_new[fitted_rows_now] = False
    for dump in dict.fromkeys(np.asarray(dumps)[is_new].tolist()):
        rows = np.flatnonzero(is_new & (np.asarray(dumps) == dump))
        coordinates[rows] = model.transform(vectors[rows])
    return coordinates


def project(
    fitted: list[str],
    update: str,
    model: str,
    records: Callable[[], tuple[list[dict], np.ndarray]],
    fit: Callable[[list], tuple[np.ndarray, np.ndarray, dict]],
    umap: dict,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """A projection job's coordinates: placed on the last fit (``update: place`` and ``fitted``,
    the fit's file, given) or fitted afresh (``fit``, which appends its UMAP to the list it is
    given); the fit is written to ``model`` either way (a link to ``fitted`` when placed).

    Returns:
        The papers' ids, coordinates, which of them were placed (not fitted), and the settings,
        whose ``update`` says how the projection was made, why not placed where asked, and
        (``refused``) the fit file refused as not this installation's.
    """
    reason = refused = None
    if update == "place":
        reason = "no fitted map yet (the first run, or after make clean)"
        saved = None
        if fitted:
            try:
                saved = signed.load(fitted[0])
            except signed.Refused as refusal:
                reason, refused = str(refusal), fitted[0]
        if saved is not None:
            papers, vectors = records()
            ids = [p["id"] for p in papers]
            reason = why_not_placed(saved, ids, umap)
            if reason is None:
                coordinates = place_projection(saved, ids, [p["dump"] for p in papers], vectors)
                link_or_copy(fitted[0], model)
                placed = ~np.isin(np.array(ids), np.array(saved["ids"]))
                settings = {**saved["settings"], "update": {"mode": "place", "placed": int(placed.sum())}}
                _LOG.info("placed %d new papers on the fitted map of %d", placed.sum(), len(saved["ids"]))
                return np.array(ids), coordinates, placed, settings
        _LOG.warning("update: place, but %s: fitting afresh", reason)
    models: list = []
    ids, coordinates, settings = fit(models)
    save_projection(model, ids.tolist(), coordinates, models[0] if models else None, umap, settings)
    settings["update"] = {
        "mode": "refit",
        "asked": update,
        **({"why_not_placed": reason} if reason else {}),
        **({"refused": refused} if refused else {}),
    }
    return ids, coordinates, np.zeros(len(ids), dtype=bool), settings


@dataclass(frozen=True)
class LastFit:
    """The last fit's files that a placed run passes on unchanged (``results/fit/``; zero or one
    path each, none under a refit): each fitted paper's topic and labels (``topics.npz``), each
    topic's wording per period (``wording.json``), the papers' similar papers (``similar.npz``).
    """

    fitted_topics: list[str]
    fitted_wording: list[str]
    fitted_similar: list[str]


def keep_fit(
    projections: list[str],
    map_model: str,
    clusters: str,
    labels: str,
    topic_papers: str,
    details: str,
    similar: str,
    last: LastFit,
    fit: str,
) -> None:
    """``fit`` (``results/staged/fit``, published as ``results/fit``): the run's fitted models
    (``projections``: the reduce stage's, then each consensus run's; the map's; the clusters'),
    each fitted paper's final topic, its label and its group's label ("" in none; from the
    topic records, ``details``), each topic's wording per period (from them too), and the
    papers' similar papers (``similar``), which a placed run extends. After a placement every
    file is the ``last`` fit's own (hard links: a placed run publishes the fit it placed on
    unchanged); after a refit, this run's.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    folder = Path(fit)
    folder.mkdir(parents=True, exist_ok=True)
    for run, path in enumerate(projections):
        link_or_copy(path, str(folder / "projections" / f"{run}.joblib"))
    link_or_copy(map_model, str(folder / "map.joblib"))
    link_or_copy(clusters, str(folder / "clusters.joblib"))
    if str(storage.read_arrays(labels)["mode"]) == "place" and last.fitted_topics:
        for name, kept in (
            ("topics.npz", last.fitted_topics),
            ("wording.json", last.fitted_wording),
            ("similar.npz", last.fitted_similar),
        ):
            for path in kept:
                link_or_copy(path, str(folder / name))
        return
    link_or_copy(similar, str(folder / "similar.npz"))
    table = pd.read_csv(topic_papers, dtype={"id": str}, usecols=["id", "topic", "topic_label", "outlier"])
    found = storage.read_json(details)
    group_label = {topic: group["label"] for group in found["groups"] for topic in group["topics"]}
    wording = {str(record["topic"]): record.get("wording", []) for record in found["topics"]}
    storage.write_json(folder / "wording.json", {"by": found["settings"]["wording_by"], "topics": wording})
    storage.write_arrays(
        folder / "topics.npz",
        ids=table["id"].to_numpy(dtype=str),
        topic=table["topic"].to_numpy(dtype=np.int64),
        label=table["topic_label"].fillna("").to_numpy(dtype=str),
        group_label=np.array([group_label.get(topic, "") for topic in table["topic"].tolist()], dtype=str),
        outlier=table["outlier"].to_numpy(dtype=bool),
    )
    _LOG.info("kept the fit of %d papers in %s", len(table), fit)
