"""The mapping stages, file to file: the neighbour graph, the projections, their consensus, the
2-d map, the clusters, and each paper's most similar papers.

Each function is what one Snakemake rule runs. Its parameters are named as the rule's inputs,
outputs and params (paths first), because the rule's script passes them by name; heavy libraries
are imported inside the functions, only when the stage that needs them runs.
"""

from __future__ import annotations

import logging
import sys
import time

import numpy as np

from papertopics import signed, storage
from papertopics.embed.encoders import corpus_embeddings, embedding_text
from papertopics.mapping.cluster import OUTLIER
from papertopics.mapping.cluster_placement import placed_clusters, refit_note, save_clusters
from papertopics.mapping.consensus import cluster_runs
from papertopics.mapping.placement import link_or_copy, placing, project
from papertopics.mapping.reduce import MAP_MIN_DIST, Projection, neighbour_graph, reduce_embeddings
from papertopics.mapping.similar import KeptSimilar, similar_papers_since, vectors_fingerprint
from papertopics.settings import (
    ClusterSettings,
    ClusterSpaceSettings,
    MapSettings,
    NeighbourSettings,
    SimilarSettings,
)

_LOG = logging.getLogger(__name__)


def _reduce_corpus(
    papers_path: str, embedding_paths: list[str], neighbours_path: str, umap: dict, models: list | None = None
) -> tuple[np.ndarray, np.ndarray, dict]:
    """The papers' ids and UMAP coordinates (from the neighbour graph where one was searched);
    the fitted UMAP is appended to ``models`` where given.
    """
    papers, embeddings = corpus_embeddings(papers_path, embedding_paths)
    graph = storage.read_arrays(neighbours_path)
    if graph["ids"].tolist() != [p["id"] for p in papers]:
        raise RuntimeError("the neighbour graph is out of step with the corpus; rerun the neighbours job.")
    neighbours = (graph["indices"], graph["distances"]) if graph["searched"] else None
    coordinates, settings = reduce_embeddings(
        embeddings,
        [embedding_text(p) for p in papers],
        Projection(**umap),
        neighbours=neighbours,
        models=models,
    )
    return np.array([p["id"] for p in papers]), coordinates, settings


def _projection(
    papers: str,
    embeddings: list[str],
    neighbours: str,
    model: str,
    fitted: list[str],
    update_mode: str,
    umap: dict,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """A projection placed on the last fit or fitted afresh (``papertopics.mapping.placement.project``)."""
    # The knobs' names interned, as keyword names are: the saved fit keeps them, and pickle writes
    # a name once where UMAP's own attribute of that name is the same string, so the fit's bytes
    # do not depend on how the rule passed the knobs.
    umap = {sys.intern(name): value for name, value in umap.items()}
    return project(
        fitted,
        update_mode,
        model,
        lambda: corpus_embeddings(papers, embeddings),
        lambda models: _reduce_corpus(papers, embeddings, neighbours, umap, models=models),
        umap,
    )


def neighbours(papers: str, embeddings: list[str], graph: str, fitted_topics: list[str], knobs: dict) -> None:
    """The papers' neighbour graph, searched once for every UMAP projection of them (cluster
    space, map, consensus runs); ``searched`` is false where the projections use none (a
    fit on a sample, a corpus too small for UMAP, or new papers placed on the last fit, whose
    papers' topics are ``fitted_topics``, with ``update: place``). ``knobs``:
    ``papertopics.settings.NeighbourSettings``' fields.
    """
    chosen = NeighbourSettings(**knobs)
    umap = chosen.umap()
    records, vectors = corpus_embeddings(papers, embeddings)
    start = time.perf_counter()
    if placing(fitted_topics, chosen.update_mode, [p["id"] for p in records], umap["word_weight"]):
        # A placement searches only the new papers' neighbours among the fitted ones; a projection
        # that refits after all searches the same graph itself (reduce_embeddings).
        found = None
    else:
        found = neighbour_graph(vectors, [embedding_text(p) for p in records], **umap)
    empty = np.zeros((0, 0))
    storage.write_arrays(
        graph,
        ids=np.array([p["id"] for p in records]),
        searched=np.array(found is not None),
        indices=empty.astype(np.int64) if found is None else found[0],
        distances=empty.astype(np.float32) if found is None else found[1],
    )
    if found is None:
        _LOG.info(
            "no neighbour graph: the projections of %d papers are placed on the last fit, fit on a "
            "sample or are linear",
            len(records),
        )
    else:
        _LOG.info(
            "searched %d nearest neighbours of %d papers in %.1f s",
            found[0].shape[1],
            len(records),
            time.perf_counter() - start,
        )


def reduce(
    papers: str,
    embeddings: list[str],
    neighbours: str,
    fitted: list[str],
    coordinates: str,
    settings: str,
    model: str,
    knobs: dict,
) -> None:
    """The cluster space: the papers' UMAP coordinates in ``umap.n_components`` dimensions, seeded
    with ``umap.random_state`` (a consensus run's is the same with a seed drawn from it). With
    ``update: place`` and a last fit (``fitted``), new papers are placed on it instead; ``model``
    keeps the fit (``papertopics.mapping.placement``). ``knobs``:
    ``papertopics.settings.ClusterSpaceSettings``' fields.
    """
    chosen = ClusterSpaceSettings(**knobs)
    ids, cluster_space, placed, used = _projection(
        papers, embeddings, neighbours, model, fitted, chosen.update_mode, chosen.umap()
    )
    mode = np.array(used["update"]["mode"])
    # The fit file refused as not this installation's, for the cluster stage's note (where one was).
    refused = {"refused": np.array(used["update"]["refused"])} if "refused" in used["update"] else {}
    storage.write_arrays(
        coordinates, ids=ids, cluster_space=cluster_space, placed=placed, mode=mode, **refused
    )
    storage.write_json(settings, used)
    _LOG.info("reduced %d papers with %s", len(ids), used)


def consensus_run(
    papers: str,
    embeddings: list[str],
    neighbours: str,
    fitted: list[str],
    coordinates: str,
    settings: str,
    model: str,
    knobs: dict,
) -> None:
    """A further cluster space of ``umap.consensus_runs``: the reduce stage's projection with
    another seed (``random_state`` here is the run's own, drawn from the configured one).
    """
    reduce(papers, embeddings, neighbours, fitted, coordinates, settings, model, knobs)


def map_layout(
    papers: str,
    embeddings: list[str],
    neighbours: str,
    fitted: list[str],
    layout: str,
    model: str,
    knobs: dict,
) -> None:
    """The 2-d paper map: UMAP with the cluster space's settings, spread by at least ``MAP_MIN_DIST``
    (new papers placed on the last fit with ``update: place``, as in ``reduce``). ``knobs``:
    ``papertopics.settings.MapSettings``' fields.
    """
    chosen = MapSettings(**knobs)
    umap = chosen.umap()

    ids, map_2d, placed, settings = _projection(
        papers,
        embeddings,
        neighbours,
        model,
        fitted,
        chosen.update_mode,
        {
            "n_components": 2,
            "min_dist": max(umap["min_dist"], MAP_MIN_DIST),
            **{name: value for name, value in umap.items() if name != "min_dist"},
        },
    )
    storage.write_arrays(layout, ids=ids, map_2d=map_2d, placed=placed)
    _LOG.info("mapped %d papers in 2-d with %s", len(ids), settings)


def cluster(
    coordinates: list[str],
    papers: str,
    embeddings: list[str],
    fitted: list[str],
    fitted_topics: list[str],
    labels: str,
    settings: str,
    model: str,
    knobs: dict,
) -> None:
    """Topics of the reduce stage's cluster space, or of it and the consensus runs' spaces
    (further seeded UMAP projections, each its own job), joined (see ``papertopics.mapping.consensus``).
    With ``update: place`` and the projections placed on the last fit (``fitted``: its clusters,
    ``fitted_topics``: its papers' topics), the new papers' topics are placed on it instead
    (``papertopics.mapping.cluster_placement``); ``model`` keeps the fit. ``knobs``:
    ``papertopics.settings.ClusterSettings``'s fields.
    """
    chosen = ClusterSettings(**knobs)
    runs = [storage.read_arrays(path) for path in coordinates]
    ids = runs[0]["ids"]
    if any(run["ids"].tolist() != ids.tolist() for run in runs[1:]):
        raise RuntimeError("the consensus runs' cluster spaces are out of step; rerun reduce.")
    refused = []
    try:
        placed = placed_clusters(fitted, fitted_topics, runs, papers, embeddings, chosen)
    except signed.Refused as refusal:
        placed, refused = None, [fitted[0]]
        _LOG.warning("update: place, but %s: clustering afresh", refusal)
    if placed is not None:
        storage.write_arrays(labels, **placed[0])
        storage.write_json(settings, placed[1])
        link_or_copy(fitted[0], model)
        return
    vectors = None
    if len(runs) > 1:
        records, vectors = corpus_embeddings(papers, embeddings)
        if [p["id"] for p in records] != ids.tolist():
            raise RuntimeError("the cluster space is out of step with the corpus; rerun reduce.")
    models: list = []
    assigned, used = cluster_runs(
        [run["cluster_space"] for run in runs],
        vectors,
        models=models,
        min_cluster_size=chosen.min_cluster_size,
        min_samples=chosen.min_samples,
        cluster_selection_method=chosen.cluster_selection_method,
        max_cluster_share=chosen.max_cluster_share,
    )
    used["clusters"] = int(len(set(assigned.tolist()) - {OUTLIER}))
    used["outliers"] = int((assigned == OUTLIER).sum())
    used["spaces"] = len(runs)
    used["placement"] = refit_note(chosen.update_mode, runs, refused)
    save_clusters(model, ids, assigned, models[0], used)
    storage.write_arrays(labels, ids=ids, labels=assigned, mode=np.array("refit"))
    storage.write_json(settings, used)
    _LOG.info("clustered: %s", used)


def similar_papers(
    papers: str, embeddings: list[str], fitted_similar: list[str], similar: str, knobs: dict
) -> None:
    """Each paper's most similar papers by embedding, for the report (``papertopics.mapping.similar``);
    under ``update: place``, the lists kept with the fit (``fitted_similar``; none otherwise)
    extended with the papers added since. ``knobs``: ``SimilarSettings``' fields.
    """
    settings = SimilarSettings(**knobs)
    records, vectors = corpus_embeddings(papers, embeddings)
    ids = [p["id"] for p in records]
    start = time.perf_counter()
    kept = KeptSimilar.read(fitted_similar[0]) if fitted_similar else None
    found = similar_papers_since(vectors, ids, settings.similar_papers, settings.similar_exact_up_to, kept)
    storage.write_arrays(
        similar,
        ids=np.array(ids),
        indices=found.indices,
        similarity=found.similarity,
        search=np.array(found.search),
        fingerprint=np.array(vectors_fingerprint(vectors)),
    )
    _LOG.info(
        "%d similar papers of each of %d papers (%s) in %.1f s",
        found.indices.shape[1],
        len(ids),
        found.how,
        time.perf_counter() - start,
    )
