"""File-to-file stages: read a stage's inputs, call its logic, write its outputs atomically.

Each function here is what one Snakemake rule runs. Its parameters are named as the rule's
inputs, outputs and params (paths first), because the rule's script passes them by name;
heavy libraries are imported inside the stage modules only when the stage that needs them runs.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from pathlib import Path

import numpy as np

from papertopics import storage

_LOG = logging.getLogger(__name__)


def parse(dump: str, papers: str, summary: str, min_abstract_chars: int, abstract_column: str | None) -> None:
    """Read one dump file into its papers (JSON Lines) and a summary of what was kept and rejected."""
    from papertopics.parse import parse_dump

    parsed = parse_dump(dump, min_abstract_chars=min_abstract_chars, abstract_column=abstract_column)
    record = {
        **parsed.summary(),
        "source": str(dump),
        "sha256": hashlib.sha256(Path(dump).read_bytes()).hexdigest(),
    }
    for warning in parsed.warnings:
        _LOG.warning("%s", warning)
    if parsed.artefacts["papers"]:
        _LOG.info(
            "%s: PDF-extraction artefacts removed from %d papers' text: %d glyph codes like (cid:173), "
            "%d ligatures like \ufb01 folded to letters",
            dump,
            parsed.artefacts["papers"],
            parsed.artefacts["glyph_codes"],
            parsed.artefacts["ligatures"],
        )
    for rejection in parsed.rejected:
        _LOG.info(
            "%s %s: rejected (%s): %s",
            dump,
            rejection["location"],
            rejection["reason"],
            rejection["detail"],
        )
    for cut in parsed.boilerplate:
        _LOG.info("%s %s: publisher boilerplate cut from the abstract: %r", dump, cut["location"], cut["cut"])
    storage.write_jsonl(papers, parsed.papers)
    storage.write_json(summary, record)
    _LOG.info(
        "%s (%s, %s): %d records read = %d kept + %d duplicates + %d rejected %s%s%s",
        dump,
        record["format"],
        record["encoding"],
        record["records_read"],
        record["kept"],
        record["duplicates"],
        record["rejected"],
        record["rejected_by_reason"] or "",
        f"; {record['placeholders']} placeholder abstracts rejected as empty"
        if record["placeholders"]
        else "",
        f"; publisher boilerplate cut from {record['boilerplate_cut']} abstracts"
        if record["boilerplate_cut"]
        else "",
    )


def corpus(parsed: list[str], summaries: list[str], papers: str, summary: str) -> None:
    """Merge the parsed dumps (in order) into the corpus: one record per paper, with the dumps it is in."""
    from papertopics.corpus import merge_dumps

    dumps = [
        (storage.read_json(dump_summary), storage.read_jsonl(dump_papers))
        for dump_papers, dump_summary in zip(parsed, summaries, strict=True)
    ]
    merged, record = merge_dumps(dumps)
    storage.write_jsonl(papers, merged)
    storage.write_json(summary, record)
    _LOG.info("corpus: %d papers from %d dumps", record["papers"], len(dumps))


def embed_shard(
    papers: str,
    embeddings: str,
    model: str,
    backend: str,
    batch_size: int,
    max_seq_length: int,
    cache_dir: str,
    model_cache_dir: str,
    threads: int = 1,
    shard: int = 0,
    shards: int = 1,
    device: str = "cpu",
) -> None:
    """Embed the papers of one dump (or of its shard ``shard`` of ``shards``), reusing cached vectors;
    ``truncated`` marks those longer than the model's window (when it can be counted).
    """
    from papertopics.sharding import shard_bounds

    records = storage.read_jsonl(papers)
    start, end = shard_bounds(len(records), shard, shards)
    embedder = _Embedder(
        model, backend, batch_size, max_seq_length, cache_dir, model_cache_dir, threads, device
    )
    embedder.embed(records[start:end], embeddings, f"papers {start}-{end}")


class _Embedder:
    """Embeds papers through the embedding cache, loading the model at most once, and only when
    some text is not cached: one job can embed many dumps for the cost of one model load.
    """

    def __init__(
        self,
        model: str,
        backend: str,
        batch_size: int,
        max_seq_length: int,
        cache_dir: str,
        model_cache_dir: str,
        threads: int,
        device: str,
    ):
        from papertopics.embed import encoder_identity, load_encoder, resolve_backend
        from papertopics.embedding_cache import EmbeddingCache

        self.model, self.batch_size, self.max_seq_length = model, batch_size, max_seq_length
        self.backend, self.device = resolve_backend(backend, device), device
        self.cache = EmbeddingCache(cache_dir, encoder_identity(model, self.backend, max_seq_length, device))
        self._load = lambda: load_encoder(
            model, self.backend, max_seq_length, model_cache_dir, threads, device
        )
        self.loaded = None
        self.computed = self.cached = 0

    def encoder(self):
        """The model, loaded on first use."""
        if self.loaded is None:
            self.loaded = self._load()
        return self.loaded

    def embed(self, records: list[dict], embeddings: str, what: str) -> None:
        """Write ``records``' embeddings (and which are over the window) to ``embeddings``; log
        how many were embedded now and how many came from the cache, naming them ``what``.
        """
        self.embed_dumps([(records, embeddings, what)])

    def embed_dumps(self, dumps: list[tuple[list[dict], str, str]]) -> None:
        """``embed`` for each of ``dumps`` (records, embeddings file, name), with one encode call
        for all their texts missing from the cache: embedding many small dumps costs what
        embedding their papers as one dump does.
        """
        from papertopics.embed import embedding_text
        from papertopics.embedding_cache import embed_missing

        texts = [[embedding_text(p) for p in records] for records, _, _ in dumps]
        flat = [text for dump_texts in texts for text in dump_texts]
        rebuilt = self.cache.rebuilt
        vectors, missing = embed_missing(flat, self.cache, self.encoder, batch_size=self.batch_size)
        counted: set[str] = set()
        start = 0
        for (records, embeddings, what), dump_texts in zip(dumps, texts, strict=True):
            # Embedded now for this dump: its texts that were missing and no earlier dump had.
            computed = {text for text in dump_texts if text in missing} - counted
            counted |= computed
            self._write(records, dump_texts, vectors[start : start + len(records)], embeddings, what)
            start += len(records)
            self.computed += len(computed)
            self.cached += len(records) - len(computed)
            _LOG.info(
                "%s: %d embedded now (%s on %s), %d from the cache",
                what,
                len(computed),
                self.backend,
                self.device,
                len(records) - len(computed),
            )
        if self.cache.rebuilt > rebuilt:
            _LOG.warning("%d corrupt cache entries were embedded again", self.cache.rebuilt - rebuilt)

    def _write(
        self, records: list[dict], texts: list[str], vectors: np.ndarray, embeddings: str, what: str
    ) -> None:
        from papertopics.embed import over_window

        truncated, window = over_window(texts, self.model, self.max_seq_length)
        counted = {} if truncated is None else {"truncated": truncated}
        if not len(records):
            vectors = np.zeros((0, self.cache.dimension or 0), dtype=np.float32)
        storage.write_arrays(
            embeddings, ids=np.array([p["id"] for p in records], dtype=str), vectors=vectors, **counted
        )
        if truncated is not None and truncated.any():
            _LOG.warning(
                "%s: %d of %d abstracts are longer than the model's window and are embedded from their "
                "first %d tokens",
                what,
                truncated.sum(),
                len(records),
                window,
            )


def embed(
    papers: list[str],
    embeddings: list[str],
    summaries: list[str],
    model: str,
    backend: str,
    batch_size: int,
    max_seq_length: int,
    cache_dir: str,
    model_cache_dir: str,
    threads: int = 1,
    device: str = "cpu",
) -> None:
    """Embed every dump embedded whole (each at most ``embedding.shard_size`` papers) in one job,
    which loads the model once, and only when some abstract is not in the cache: each dump's
    ``papers`` give its own ``embeddings`` file and ``summaries`` record (see ``embedding_summary``).
    """
    import time

    started = time.perf_counter()
    embedder = _Embedder(
        model, backend, batch_size, max_seq_length, cache_dir, model_cache_dir, threads, device
    )
    embedder.embed_dumps(
        [
            (storage.read_jsonl(dump_papers), dump_embeddings, f"dump {Path(dump_papers).stem}")
            for dump_papers, dump_embeddings in zip(papers, embeddings, strict=True)
        ]
    )
    for dump_embeddings, summary in zip(embeddings, summaries, strict=True):
        embedding_summary(dump_embeddings, summary, model, max_seq_length)
    _LOG.info(
        "%d dumps in one job: %d abstracts embedded now (%s on %s, model %s), %d from the cache, in %.1f s",
        len(papers),
        embedder.computed,
        embedder.backend,
        device,
        "loaded once" if embedder.loaded is not None else "not loaded",
        embedder.cached,
        time.perf_counter() - started,
    )


def embed_gather(shards: list[str], embeddings: str, summary: str, model: str, max_seq_length: int) -> None:
    """A dump embedded in shards (one above ``embedding.shard_size`` papers): its ``shards``
    gathered into its embedding file, and its ``summary`` (see ``embedding_summary``).
    """
    gather_embedding_shards(shards, embeddings)
    embedding_summary(embeddings, summary, model, max_seq_length)


def embedding_summary(embeddings: str, summary: str, model: str, max_seq_length: int) -> None:
    """A dump's embedding ``summary``: its papers, the model's window, and the papers longer than
    the window (ids; null where they could not be counted), read by the report.
    """
    from papertopics.models import effective_max_seq_length, resolve_model_location

    stored = storage.read_arrays(embeddings)
    location = resolve_model_location(model)
    storage.write_json(
        summary,
        {
            "papers": len(stored["ids"]),
            "window_tokens": effective_max_seq_length(location, max_seq_length),
            "over_window": stored["ids"][stored["truncated"]].tolist() if "truncated" in stored else None,
        },
    )


def gather_embedding_shards(shards: list[str], embeddings: str) -> None:
    """Concatenate a dump's shard embeddings, in shard order, into the dump's embedding file."""
    parts = [storage.read_arrays(path) for path in shards]
    filled = [part for part in parts if len(part["ids"])]
    ids = np.concatenate([part["ids"] for part in filled]) if filled else np.array([], dtype=str)
    vectors = (
        np.vstack([part["vectors"] for part in filled]).astype(np.float32)
        if filled
        else np.zeros((0, 0), np.float32)
    )
    counted = (
        {"truncated": np.concatenate([part["truncated"] for part in parts]).astype(bool)}
        if all("truncated" in part for part in parts)
        else {}
    )
    storage.write_arrays(embeddings, ids=ids, vectors=vectors, **counted)
    _LOG.info("gathered %d embeddings from %d shards", len(ids), len(parts))


def _corpus_embeddings(papers_path: str, embedding_paths: list[str]) -> tuple[list[dict], np.ndarray]:
    from papertopics.embed import gather_embeddings

    papers = storage.read_jsonl(papers_path)
    stored = [storage.read_arrays(path) for path in embedding_paths]
    return papers, gather_embeddings([p["id"] for p in papers], stored)


def _reduce_corpus(
    papers_path: str, embedding_paths: list[str], neighbours_path: str, models: list | None = None, **umap
) -> tuple[np.ndarray, np.ndarray, dict]:
    """The papers' ids and UMAP coordinates (from the neighbour graph where one was searched);
    the fitted UMAP is appended to ``models`` where given.
    """
    from papertopics.embed import embedding_text
    from papertopics.reduce import reduce_embeddings

    papers, embeddings = _corpus_embeddings(papers_path, embedding_paths)
    graph = storage.read_arrays(neighbours_path)
    if graph["ids"].tolist() != [p["id"] for p in papers]:
        raise RuntimeError("the neighbour graph is out of step with the corpus; rerun the neighbours job.")
    neighbours = (graph["indices"], graph["distances"]) if graph["searched"] else None
    coordinates, settings = reduce_embeddings(
        embeddings, [embedding_text(p) for p in papers], neighbours=neighbours, models=models, **umap
    )
    return np.array([p["id"] for p in papers]), coordinates, settings


def _projection(
    papers: str,
    embeddings: list[str],
    neighbours: str,
    model: str,
    fitted: list[str],
    update_mode: str,
    **umap,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """A projection placed on the last fit or fitted afresh (``papertopics.placement.project``)."""
    from papertopics.placement import project

    return project(
        fitted,
        update_mode,
        model,
        lambda: _corpus_embeddings(papers, embeddings),
        lambda models: _reduce_corpus(papers, embeddings, neighbours, models=models, **umap),
        umap,
    )


def neighbours(papers: str, embeddings: list[str], graph: str, **umap) -> None:
    """The papers' neighbour graph, searched once for every UMAP projection of them (cluster
    space, map, consensus runs); ``searched`` is false where the projections use none (a
    fit on a sample, a corpus too small for UMAP).
    """
    import time

    from papertopics.embed import embedding_text
    from papertopics.reduce import neighbour_graph

    records, vectors = _corpus_embeddings(papers, embeddings)
    start = time.perf_counter()
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
            "no neighbour graph: the projections of %d papers fit on a sample or are linear", len(records)
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
    update_mode: str,
    **umap,
) -> None:
    """The cluster space: the papers' UMAP coordinates in ``umap.n_components`` dimensions, seeded
    with ``umap.random_state`` (a consensus run's is the same with a seed drawn from it). With
    ``update: place`` and a last fit (``fitted``), new papers are placed on it instead; ``model``
    keeps the fit (``papertopics.placement``).
    """
    ids, cluster_space, placed, used = _projection(
        papers, embeddings, neighbours, model, fitted, update_mode, **umap
    )
    mode = np.array(used["update"]["mode"])
    storage.write_arrays(coordinates, ids=ids, cluster_space=cluster_space, placed=placed, mode=mode)
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
    update_mode: str,
    **umap,
) -> None:
    """A further cluster space of ``umap.consensus_runs``: the reduce stage's projection with
    another seed (``umap.random_state`` here is the run's own, drawn from the configured one).
    """
    reduce(papers, embeddings, neighbours, fitted, coordinates, settings, model, update_mode, **umap)


def map_layout(
    papers: str,
    embeddings: list[str],
    neighbours: str,
    fitted: list[str],
    layout: str,
    model: str,
    update_mode: str,
    min_dist: float,
    **umap,
) -> None:
    """The 2-d paper map: UMAP with the cluster space's settings, spread by at least ``MAP_MIN_DIST``
    (new papers placed on the last fit with ``update: place``, as in ``reduce``).
    """
    from papertopics.reduce import MAP_MIN_DIST

    ids, map_2d, placed, settings = _projection(
        papers,
        embeddings,
        neighbours,
        model,
        fitted,
        update_mode,
        n_components=2,
        min_dist=max(min_dist, MAP_MIN_DIST),
        **umap,
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
    update_mode: str,
    placement: dict,
    **hdbscan,
) -> None:
    """Topics of the reduce stage's cluster space, or of it and the consensus runs' spaces
    (further seeded UMAP projections, each its own job), joined (see ``papertopics.consensus``).
    With ``update: place`` and the projections placed on the last fit (``fitted``: its clusters,
    ``fitted_topics``: its papers' topics), the new papers' topics are placed on it instead
    (``papertopics.place_topics``); ``model`` keeps the fit.
    """
    from papertopics.consensus import cluster_runs
    from papertopics.place_topics import placed_clusters, refit_note, save_clusters
    from papertopics.placement import link_or_copy
    from papertopics.topics import OUTLIER

    runs = [storage.read_arrays(path) for path in coordinates]
    ids = runs[0]["ids"]
    if any(run["ids"].tolist() != ids.tolist() for run in runs[1:]):
        raise RuntimeError("the consensus runs' cluster spaces are out of step; rerun reduce.")
    placed = placed_clusters(fitted, fitted_topics, runs, papers, embeddings, placement)
    if placed is not None:
        storage.write_arrays(labels, **placed[0])
        storage.write_json(settings, placed[1])
        link_or_copy(fitted[0], model)
        return
    vectors = None
    if len(runs) > 1:
        records, vectors = _corpus_embeddings(papers, embeddings)
        if [p["id"] for p in records] != ids.tolist():
            raise RuntimeError("the cluster space is out of step with the corpus; rerun reduce.")
    models: list = []
    assigned, used = cluster_runs([run["cluster_space"] for run in runs], vectors, models=models, **hdbscan)
    used["clusters"] = int(len(set(assigned.tolist()) - {OUTLIER}))
    used["outliers"] = int((assigned == OUTLIER).sum())
    used["spaces"] = len(runs)
    used["placement"] = refit_note(update_mode, runs)
    save_clusters(model, ids, assigned, models[0], used)
    storage.write_arrays(labels, ids=ids, labels=assigned, mode=np.array("refit"))
    storage.write_json(settings, used)
    _LOG.info("clustered: %s", used)


def groups(papers: str, table: str, settings: str, compare_by, dump_order: list[str]) -> None:
    """Each paper's period and group (``papertopics.groups``), decided once for every later stage.

    Args:
        papers: the corpus (JSON Lines).
        table: output, one row per paper: its ``id``, ``period`` and ``group``.
        settings: output, the periods' and groups' names, order and the papers left out.
        compare_by: ``compare.by``: auto, dump, year, a paper field (venue), or a list of a field and one of those.
        dump_order: the dumps in the order of ``inputs`` (their order when comparing dumps).
    """
    import pandas as pd

    from papertopics.groups import PIPELINE_COLUMNS, groups_record, paper_groups
    from papertopics.parse import input_columns

    records = storage.read_jsonl(papers)
    paper_table = pd.DataFrame(
        {
            "id": [p["id"] for p in records],
            "dumps": [";".join(p["dumps"]) for p in records],
            **input_columns(records, reserved=set(PIPELINE_COLUMNS)),
        }
    )
    periods, found = paper_groups(paper_table, compare_by, dump_order)
    rows, record = groups_record(paper_table["id"].tolist(), periods, found)
    storage.write_csv(table, rows)
    storage.write_json(settings, record)
    _LOG.info(
        "%d papers: %d %ss%s",
        len(rows),
        len(periods.names),
        periods.by,
        f", {len(found.names)} {found.by} groups" if found is not None and found is not periods else "",
    )


def topics(
    papers: str,
    embeddings: list[str],
    layout: str,
    labels: str,
    cluster_settings: str,
    guide_file: list[str],
    curation_file: list[str],
    groups_table: str,
    groups_settings: str,
    topics: str,
    topic_papers: str,
    details: str,
    model: str,
    figures: str,
    lineage: str,
    history_dir: str,
    embedding_model: str,
    max_seq_length: int,
    guide_names: list[str],
    save_ctfidf: bool,
    **knobs,
) -> None:
    """Find the topics of the clusters (``papertopics.topic_run``) and write them.

    Args:
        papers: the corpus (JSON Lines).
        embeddings: the dumps' embedding files.
        layout: the 2-d map's coordinates.
        labels: the cluster stage's labels.
        cluster_settings: the cluster stage's settings, whose consensus figures are kept.
        guide_file: ``topics.guide`` when it is a file (zero or one path); an input, so that
            editing the file reruns the stage.
        curation_file: ``topics.curation`` (zero or one path); an input, likewise.
        groups_table: the groups stage's papers (each paper's period and group), for each
            topic's wording per period (and per group, with ``compare.by`` naming a field).
        groups_settings: the groups stage's settings (``groups.json``).
        topics: output, ``topics.csv`` (see ``topic_table``).
        topic_papers: output, ``papers.csv``: every paper with its topic and map position.
        details: output, ``topic_details.json``: settings, topics and topic groups.
        model: output folder of the saved BERTopic model.
        figures: output, the model's figures (``papertopics.figures``).
        lineage: output, how this run's topics continue the previous run's.
        history_dir: where each run's topics are kept for the next run to match against.
        embedding_model: the embedding model's name or path (for guide names and representations).
        max_seq_length: the embedding model's token limit.
        guide_names: ``topics.guide`` when it is a list of category names.
        save_ctfidf: save the model's c-TF-IDF matrix and vocabulary too (``_save_model``).
        **knobs: the fields of ``papertopics.topic_run.TopicSettings``, and the keyword settings
            of ``papertopics.topics.fit_topic_model``.
    """
    from dataclasses import fields

    from papertopics.curation import load_curation
    from papertopics.embed import load_model
    from papertopics.figures import model_figures
    from papertopics.groups import load_groups
    from papertopics.guided import load_guide
    from papertopics.lineage import TopicHistory
    from papertopics.models import resolve_model_location
    from papertopics.place_topics import settle_placed_topics
    from papertopics.topic_run import TopicSettings, run_topics
    from papertopics.topic_wording import wording_per_period

    records, vectors = _corpus_embeddings(papers, embeddings)
    ids = [p["id"] for p in records]
    map_2d, cluster_labels = _clustered_layout(layout, labels, ids)
    names = load_guide(guide_file[0] if guide_file else guide_names)
    curation = load_curation(curation_file[0] if curation_file else None)
    stage_knobs = {f.name for f in fields(TopicSettings)} - {"keywords"}
    settings = TopicSettings(
        **{k: v for k, v in knobs.items() if k in stage_knobs},
        keywords={k: v for k, v in knobs.items() if k not in stage_knobs},
    )
    texts = [p["text"] for p in records]
    found = run_topics(
        texts,
        ids,
        vectors,
        cluster_labels,
        TopicHistory(history_dir),
        settings,
        # The labels' second phrases are placed by meaning: the model is always needed.
        encoder=load_model(embedding_model, max_seq_length),
        guide_names=names,
        curation=curation,
    )
    placement = settle_placed_topics(labels, found)
    # Each topic's wording per period, from the fitted model (in its own topic numbers).
    paper_table = _paper_table(records, found, map_2d)
    periods, groups = load_groups(groups_table, groups_settings, ids)
    model_topic = {d["topic"]: d["model_topic"] for d in found.details}
    model_topics = np.array([model_topic[t] for t in found.topics.tolist()])
    wording = wording_per_period(found.model, texts, model_topics, periods)
    # With venues and years both compared, each topic's wording per venue too.
    group_wording = (
        wording_per_period(found.model, texts, model_topics, groups)
        if groups is not None and groups.by != periods.by
        else None
    )
    for record in found.details:
        record["wording"] = wording.get(record["model_topic"], [])
        if group_wording is not None:
            record["group_wording"] = group_wording.get(record["model_topic"], [])
    storage.write_csv(topics, topic_table(found.details))
    storage.write_csv(topic_papers, paper_table)
    recorded = {
        "embedding_model": embedding_model,
        **knobs,
        "topics": found.n_topics,
        "coarse_topics_setting": settings.coarse_topics,
        "guide": names,
        "guide_min_similarity": settings.guide_min_similarity if names else None,
        **found.summary,
        "consensus": storage.read_json(cluster_settings).get("consensus"),
        "wording_by": periods.by,
        "placement": placement,
    }
    storage.write_json(details, {"settings": recorded, "topics": found.details, "groups": found.groups})
    storage.write_json(figures, model_figures(found.model, found.n_topics))
    _save_model(found.model, model, resolve_model_location(embedding_model), save_ctfidf)
    storage.write_json(lineage, found.lineage)
    # Last, once every output is written: a failed job leaves history as the last good run left it.
    found.record()
    _LOG.info(
        "%d topics (run %d of this history): %s",
        found.n_topics,
        found.lineage["run"],
        [d["label"] for d in found.details],
    )


def _clustered_layout(layout: str, labels: str, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The 2-d map and the cluster labels, checked to be in the corpus's paper order."""
    coordinates = storage.read_arrays(layout)
    clusters = storage.read_arrays(labels)
    if coordinates["ids"].tolist() != ids or clusters["ids"].tolist() != ids:
        raise RuntimeError(
            "the 2-d map or cluster labels are out of step with the corpus; rerun map and reduce."
        )
    return coordinates["map_2d"], clusters["labels"]


def _paper_table(records: list[dict], found, map_2d: np.ndarray):
    """``papers.csv``: each paper with its topic and map position, and the input's own fields."""
    import pandas as pd

    from papertopics.parse import input_columns

    pipeline_columns = {
        "id": [p["id"] for p in records],
        "dump": [p["dump"] for p in records],
        "dumps": [";".join(p["dumps"]) for p in records],
        "display_name": [p["display_name"] for p in records],
        "abstract": [p["abstract"] for p in records],
        "topic": found.topics,
        "topic_label": found.paper_labels,
        "outlier": found.was_outlier,
        "x": np.round(map_2d[:, 0], 5),
        "y": np.round(map_2d[:, 1], 5),
    }
    # Input fields (title, authors, url, year, label, ...) are carried along, never used to fit.
    return pd.DataFrame({**pipeline_columns, **input_columns(records, reserved=set(pipeline_columns))})


def topic_table(details: list[dict]):
    """``topics.csv``: one row per topic record (id, label, whether the label is curated, keywords,
    size, share).
    """
    import pandas as pd

    return pd.DataFrame(
        {
            "id": [d["topic"] for d in details],
            "label": [d["label"] for d in details],
            "curated": [bool(d.get("curated")) for d in details],
            "keywords": ["; ".join(word for word, _ in d["keywords"]) for d in details],
            "size": [d["size"] for d in details],
            "share": [round(d["share"], 6) for d in details],
        }
    )


def _save_model(model, model_out: str, embedding_model_location: str, save_ctfidf: bool) -> None:
    """The fitted BERTopic model, for users to load (``BERTopic.load``); no stage reads it back (the
    next run matches its topics against ``history_dir``). Without ``save_ctfidf`` it is its topics,
    keywords and topic embeddings: the c-TF-IDF matrix and the vectorizer's vocabulary (as JSON) are
    nearly all of its size (50 of 51 MB for 10,000 papers) and of its writing time, and only
    BERTopic's own topic updates and merges after loading need them.
    """
    with storage.atomic_folder(model_out) as temporary:
        model.save(
            temporary,
            serialization="safetensors",
            save_ctfidf=save_ctfidf,
            save_embedding_model=embedding_model_location,
        )


def report(page: str, title: str, hover_chars: int, **inputs) -> None:
    """The HTML report (``page``) from the stages' outputs (``inputs``, see ``load_report_inputs``;
    the groups stage's periods are those the map colours and filters papers by).
    """
    from papertopics.report import build_report, load_report_inputs

    html = build_report(load_report_inputs(**inputs), title=title, hover_chars=hover_chars)
    storage.write_text(page, html)
    _LOG.info("report written to %s (%.1f MB)", page, len(html.encode()) / 1e6)


def evaluate(papers: str, topic_papers: str, details: str, metrics: str, top_n_words: int) -> None:
    """Topic quality: coherence, diversity, outliers, and agreement with a ``label`` column if any."""
    import pandas as pd

    from papertopics.quality import evaluate_topics
    from papertopics.topics import outlier_flags

    texts = {p["id"]: p["text"] for p in storage.read_jsonl(papers)}
    # Only the columns scored here: the abstracts and coordinates are the bulk of the file.
    assigned = pd.read_csv(
        topic_papers,
        keep_default_na=False,
        dtype={"id": str},
        usecols=lambda name: name in {"id", "topic", "outlier", "label"},
    )
    missing = [i for i in assigned["id"] if i not in texts]
    if missing:
        raise RuntimeError(f"{topic_papers} lists {len(missing)} papers not in the corpus; rerun topics.")
    topic_details = storage.read_json(details)
    labels = assigned["label"].astype(str).str.strip().tolist() if "label" in assigned.columns else None
    scores = evaluate_topics(
        [texts[i] for i in assigned["id"]],
        assigned["topic"].to_numpy(),
        outlier_flags(assigned["outlier"]),
        {t["topic"]: [word for word, _ in t["keywords"]] for t in topic_details["topics"]},
        top_n_words=top_n_words,
        labels=labels,
        group_of={t["topic"]: t["group"] for t in topic_details["topics"] if t.get("group") is not None},
    )
    scores["consensus"] = topic_details["settings"].get("consensus")
    storage.write_json(metrics, scores)
    _LOG.info(
        "%d topics: NPMI %.3f, diversity %.3f, outliers %.1f%%%s",
        scores["topics"],
        scores["npmi"],
        scores["diversity"],
        100 * scores["outlier_share"],
        f", NMI {scores['labels']['nmi']:.3f}" if scores["labels"] else "",
    )


def changes(
    papers: str,
    topic_papers: str,
    details: str,
    lineage: str,
    groups_table: str,
    groups_settings: str,
    embeddings: list[str],
    shares: str,
    changes: str,
    trends: str,
    stop_words: str | None,
    history_dir: str,
    compare: dict,
    bursts: str | None = None,
    themes: str | None = None,
) -> None:
    """Topic shares per dump (or year) with intervals, trends across them, terms that burst, what
    changed between two of them, and themes that changed within a topic (``papertopics.themes``),
    over the groups stage's periods; ``compare``: the ``compare`` knobs
    (``papertopics.changes.CompareSettings``).
    """
    import pandas as pd

    from papertopics.changes import (
        CompareSettings,
        burst_table,
        describe_changes,
        recomputed_shares,
        trend_table,
    )
    from papertopics.embed import gather_embeddings
    from papertopics.groups import load_groups
    from papertopics.themes import theme_table, topic_themes
    from papertopics.topics import outlier_flags

    assigned = pd.read_csv(
        topic_papers,
        keep_default_na=False,
        dtype={"id": str, "dumps": str, "year": str},
        usecols=lambda name: name in {"id", "topic", "outlier", "dumps", "display_name", "year"},
    )
    assigned["outlier"] = outlier_flags(assigned["outlier"])
    texts = {p["id"]: p["text"] for p in storage.read_jsonl(papers)}
    events = storage.read_json(lineage)
    topic_details, settings = storage.read_json(details)["topics"], CompareSettings(**compare)
    periods = load_groups(groups_table, groups_settings, assigned["id"].tolist())[0]
    share_table, record = describe_changes(
        assigned, [texts[i] for i in assigned["id"]], topic_details, events, periods, settings, stop_words
    )
    vectors = gather_embeddings(assigned["id"].tolist(), [storage.read_arrays(path) for path in embeddings])
    tested = [p for p in record["periods"] if p not in record["small_periods"]]
    record["themes"] = topic_themes(assigned, vectors, periods, tested, topic_details, settings)
    earlier = Path(history_dir) / f"shares-run-{events.get('previous_run') or 0:04d}.csv"
    record["recomputed"] = recomputed_shares(
        share_table, pd.read_csv(earlier, keep_default_na=False) if earlier.exists() else None, events
    )
    storage.write_csv(shares, share_table)
    storage.write_csv(trends, trend_table(record))
    if bursts:
        storage.write_csv(bursts, burst_table(record))
    if themes:
        storage.write_csv(themes, theme_table(record["themes"]))
    storage.write_json(changes, record)
    # Kept for the next run, which shows where this run's published shares moved.
    storage.write_csv(Path(history_dir) / f"shares-run-{events['run']:04d}.csv", share_table)
    trend_rows = record["trends"].get("topics", [])
    _LOG.info(
        "%s %s: %d rising, %d falling topics (significant or suggestive); %d bursting terms",
        record["by"],
        ", ".join(record["periods"]),
        sum(row["direction"] == "rising" for row in trend_rows),
        sum(row["direction"] == "falling" for row in trend_rows),
        len(record["bursts"].get("bursts", [])),
    )
    themes = record["themes"].get("topics", [])
    _LOG.info("themes: %d of %d topics tested changed theme", sum(t["changed"] for t in themes), len(themes))
    shapes = Counter(row["shape"] for row in trend_rows)
    if shapes:
        _LOG.info("trajectories: %s", ", ".join(f"{shapes[s]} {s}" for s in sorted(shapes)))
    if record["comparable"]:
        _LOG.info(
            "%s vs %s: %d of %d topic shares changed significantly; %d new, %d faded topics",
            record["baseline"],
            record["target"],
            sum(row["significant"] for row in record["comparison"]),
            len(record["comparison"]),
            len(record["new_topics"]),
            len(record["faded_topics"]),
        )
    else:
        _LOG.info("no comparison: %s", record["reason"])


def venues(
    groups_table: str,
    groups_settings: str,
    topic_papers: str,
    details: str,
    table: str,
    record: str,
    trends: str,
    compare: dict,
) -> None:
    """Venues compared (``papertopics.venues``): per topic and group (``compare.by`` a paper field)
    the share and a test of whether the group holds more or fewer of the topic's papers than the
    others, and with ordered periods too (``[venue, year]``) each venue's own trends
    (``papertopics.venue_trends``, written to ``trends``); only the headers and the reason where
    no field is compared. ``compare``: the ``compare`` knobs (``changes.CompareSettings``).
    """
    import pandas as pd

    from papertopics.changes import CompareSettings
    from papertopics.groups import load_groups
    from papertopics.topics import outlier_flags
    from papertopics.venue_trends import describe_venue_trends
    from papertopics.venues import COLUMNS, compare_groups, describe_venues

    assigned = pd.read_csv(
        topic_papers,
        keep_default_na=False,
        dtype={"id": str},
        usecols=lambda name: name in {"id", "topic", "outlier"},
    )
    periods, groups = load_groups(groups_table, groups_settings, assigned["id"].tolist())
    topic_details = storage.read_json(details)["topics"]
    labels = {t["topic"]: t["label"] for t in topic_details}
    settings = CompareSettings(**compare)
    graded = {
        "confidence": settings.confidence,
        "false_discovery_rate": settings.false_discovery_rate,
        "suggestive_q": settings.suggestive_q,
    }
    clustered = ~outlier_flags(assigned["outlier"])
    trend_table, trend_record = describe_venue_trends(
        assigned["topic"].to_numpy(), clustered, periods, groups, labels, settings
    )
    storage.write_csv(trends, trend_table)
    if groups is None:
        storage.write_csv(table, pd.DataFrame(columns=COLUMNS))
        storage.write_json(record, describe_venues(pd.DataFrame(columns=COLUMNS), None, {}, graded))
        _LOG.info("no venues compared: compare.by names no paper field")
        return
    cells = compare_groups(assigned["topic"].to_numpy(), clustered, groups, labels, **graded)
    # Each topic's wording per group: the topics stage's per period where the periods are the groups.
    key = "wording" if groups.by == periods.by else "group_wording"
    wording = {t["topic"]: t.get(key, []) for t in topic_details if t["topic"] in labels}
    storage.write_csv(table, cells)
    storage.write_json(record, {**describe_venues(cells, groups, wording, graded), "trends": trend_record})
    found = cells[cells["direction"] != ""]
    _LOG.info(
        "%d %s groups, %d topics: %d cells over-, %d under-represented (significant or suggestive)",
        len(groups.names),
        groups.by,
        len(labels),
        int((found["direction"] == "over").sum()),
        int((found["direction"] == "under").sum()),
    )
    if trend_record["available"]:
        _LOG.info(
            "trends within %d %ss: %d findings in %d tests; slopes differ between venues for %d topics",
            len(trend_record["venues"]),
            groups.by,
            int(trend_table["finding"].sum()),
            len(trend_table),
            len({row["topic"] for row in trend_record["topics"] if row["slopes_differ"]}),
        )
    else:
        _LOG.info("no trends within venues: %s", trend_record["reason"])


def similar_papers(
    papers: str, embeddings: list[str], similar: str, n_similar: int, exact_up_to: int
) -> None:
    """Each paper's ``n_similar`` most similar papers by embedding, for the report (``papertopics.similar``)."""
    import time

    from papertopics.reduce import neighbour_search
    from papertopics.similar import similar_papers as nearest

    records, vectors = _corpus_embeddings(papers, embeddings)
    start = time.perf_counter()
    indices, similarity = nearest(vectors, n_similar, exact_up_to)
    storage.write_arrays(
        similar, ids=np.array([p["id"] for p in records]), indices=indices, similarity=similarity
    )
    _LOG.info(
        "%d similar papers of each of %d papers (%s) in %.1f s",
        indices.shape[1],
        len(records),
        neighbour_search(len(records), exact_up_to),
        time.perf_counter() - start,
    )
