"""File-to-file stages: read a stage's inputs, call its logic, write its outputs atomically.

Each function here is what one Snakemake rule runs. Its parameters are named as the rule's
inputs, outputs and params (paths first), because the rule's script passes them by name;
heavy libraries are imported inside the stage modules only when the stage that needs them runs.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, replace
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
    for rejection in parsed.rejected:
        _LOG.info(
            "%s %s: rejected (%s): %s",
            dump,
            rejection["location"],
            rejection["reason"],
            rejection["detail"],
        )
    storage.write_jsonl(papers, parsed.papers)
    storage.write_json(summary, record)
    _LOG.info(
        "%s (%s, %s): %d records read = %d kept + %d duplicates + %d rejected %s",
        dump,
        record["format"],
        record["encoding"],
        record["records_read"],
        record["kept"],
        record["duplicates"],
        record["rejected"],
        record["rejected_by_reason"] or "",
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


def embed(
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
    from papertopics.embed import embedding_text, encoder_identity, load_encoder, over_window, resolve_backend
    from papertopics.embedding_cache import EmbeddingCache, embed_with_cache
    from papertopics.sharding import shard_bounds

    backend = resolve_backend(backend, device)
    records = storage.read_jsonl(papers)
    start, end = shard_bounds(len(records), shard, shards)
    records = records[start:end]
    texts = [embedding_text(p) for p in records]
    cache = EmbeddingCache(cache_dir, encoder_identity(model, backend, max_seq_length, device))
    vectors, computed = embed_with_cache(
        texts,
        cache,
        lambda: load_encoder(model, backend, max_seq_length, model_cache_dir, threads, device),
        batch_size=batch_size,
    )
    truncated, window = over_window(texts, model, max_seq_length)
    counted = {} if truncated is None else {"truncated": truncated}
    storage.write_arrays(
        embeddings, ids=np.array([p["id"] for p in records], dtype=str), vectors=vectors, **counted
    )
    if truncated is not None and truncated.any():
        _LOG.warning(
            "%d of %d abstracts are longer than the model's window and are embedded from their first %d tokens",
            truncated.sum(),
            len(records),
            window,
        )
    _LOG.info(
        "papers %d-%d: %d embedded now (%s on %s), %d from the cache (%d corrupt entries rebuilt)",
        start,
        end,
        computed,
        backend,
        device,
        len(records) - computed,
        cache.rebuilt,
    )


def embed_dump(
    papers: str, shards: list[str], embeddings: str, summary: str, threads: int = 1, **embedding
) -> None:
    """A dump's embedding file: its ``shards`` gathered when it was embedded in shards, else embedded
    here whole (``embedding``: the settings of ``embed``); and its ``summary``: the papers longer
    than the model's window (ids; null where they could not be counted), read by the report.
    """
    from papertopics.models import effective_max_seq_length, resolve_model_location

    if shards:
        gather_embedding_shards(shards, embeddings)
    else:
        embed(papers, embeddings, threads=threads, **embedding)
    stored = storage.read_arrays(embeddings)
    location = resolve_model_location(embedding["model"])
    storage.write_json(
        summary,
        {
            "papers": len(stored["ids"]),
            "window_tokens": effective_max_seq_length(location, embedding["max_seq_length"]),
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
    papers_path: str, embedding_paths: list[str], neighbours_path: str, **umap
) -> tuple[np.ndarray, np.ndarray, dict]:
    """The papers' ids and UMAP coordinates (from the neighbour graph where one was searched)."""
    from papertopics.embed import embedding_text
    from papertopics.reduce import reduce_embeddings

    papers, embeddings = _corpus_embeddings(papers_path, embedding_paths)
    graph = storage.read_arrays(neighbours_path)
    if graph["ids"].tolist() != [p["id"] for p in papers]:
        raise RuntimeError("the neighbour graph is out of step with the corpus; rerun the neighbours job.")
    neighbours = (graph["indices"], graph["distances"]) if graph["searched"] else None
    coordinates, settings = reduce_embeddings(
        embeddings, [embedding_text(p) for p in papers], neighbours=neighbours, **umap
    )
    return np.array([p["id"] for p in papers]), coordinates, settings


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
    papers: str, embeddings: list[str], neighbours: str, coordinates: str, settings: str, **umap
) -> None:
    """A cluster space: the papers' UMAP coordinates in ``umap.n_components`` dimensions (the
    reduce stage's with ``umap.random_state``, a consensus run's with a seed drawn from it).
    """
    ids, cluster_space, used = _reduce_corpus(papers, embeddings, neighbours, **umap)
    storage.write_arrays(coordinates, ids=ids, cluster_space=cluster_space)
    storage.write_json(settings, used)
    _LOG.info("reduced %d papers with %s", len(ids), used)


def map_layout(
    papers: str, embeddings: list[str], neighbours: str, layout: str, min_dist: float, **umap
) -> None:
    """The 2-d paper map: UMAP with the cluster space's settings, spread by at least ``MAP_MIN_DIST``."""
    from papertopics.reduce import MAP_MIN_DIST

    ids, map_2d, settings = _reduce_corpus(
        papers, embeddings, neighbours, n_components=2, min_dist=max(min_dist, MAP_MIN_DIST), **umap
    )
    storage.write_arrays(layout, ids=ids, map_2d=map_2d)
    _LOG.info("mapped %d papers in 2-d with %s", len(ids), settings)


def cluster(
    coordinates: list[str],
    papers: str,
    embeddings: list[str],
    labels: str,
    settings: str,
    **hdbscan,
) -> None:
    """Topics of the reduce stage's cluster space, or of it and the consensus runs' spaces
    (further seeded UMAP projections, each its own job), joined (see ``papertopics.consensus``).
    """
    from papertopics.consensus import cluster_runs
    from papertopics.topics import OUTLIER

    runs = [storage.read_arrays(path) for path in coordinates]
    ids = runs[0]["ids"]
    if any(run["ids"].tolist() != ids.tolist() for run in runs[1:]):
        raise RuntimeError("the consensus runs' cluster spaces are out of step; rerun reduce.")
    vectors = None
    if len(runs) > 1:
        records, vectors = _corpus_embeddings(papers, embeddings)
        if [p["id"] for p in records] != ids.tolist():
            raise RuntimeError("the cluster space is out of step with the corpus; rerun reduce.")
    assigned, used = cluster_runs([run["cluster_space"] for run in runs], vectors, **hdbscan)
    used["clusters"] = int(len(set(assigned.tolist()) - {OUTLIER}))
    used["outliers"] = int((assigned == OUTLIER).sum())
    storage.write_arrays(labels, ids=ids, labels=assigned)
    storage.write_json(settings, used)
    _LOG.info("clustered: %s", used)


def _apply_guide(
    names: list[str], encoder, vectors: np.ndarray, cluster_labels: np.ndarray, min_similarity: float
) -> tuple[np.ndarray, dict[int, int], list[str]]:
    """The clusters with the guide's categories first (``guided_topics``), named topic → index of
    its name, and the names no paper fits (logged: they make no topic). No names: as they were.
    """
    from papertopics.guided import guided_topics, unmatched_names

    if not names:
        return cluster_labels, {}, []
    name_vectors = np.asarray(encoder.encode(names), dtype=np.float32)
    cluster_labels, named = guided_topics(vectors, name_vectors, cluster_labels, min_similarity)
    unmatched = unmatched_names(names, named)
    for name in unmatched:
        _LOG.warning("topics.guide: no paper fits %r, so it makes no topic", name)
    return cluster_labels, named, unmatched


def topics(
    papers: str,
    embeddings: list[str],
    layout: str,
    labels: str,
    cluster_settings: str,
    guide_file: list[str],
    topics: str,
    topic_papers: str,
    details: str,
    model: str,
    figures: str,
    lineage: str,
    history_dir: str,
    embedding_model: str,
    max_seq_length: int,
    n_representative_docs: int,
    coarse_topics: int | str,
    min_overlap: float,
    min_similarity: float,
    guide_names: list[str],
    guide_min_similarity: float,
    **representation,
) -> None:
    """Fit the topic model on the clusters, number its topics stably across runs, and write them.

    Args:
        papers: the corpus (JSON Lines).
        embeddings: the dumps' embedding files.
        layout: the 2-d map's coordinates.
        labels: the cluster stage's labels.
        cluster_settings: the cluster stage's settings, whose consensus figures are kept.
        guide_file: ``topics.guide`` when it is a file (zero or one path); an input, so that
            editing the file reruns the stage.
        topics: output, ``topics.csv`` (see ``topic_table``).
        topic_papers: output, ``papers.csv``: every paper with its topic and map position.
        details: output, ``topic_details.json``: settings, topics and topic groups.
        model: output folder of the saved BERTopic model.
        figures: output, the model's figures (``papertopics.figures``).
        lineage: output, how this run's topics continue the previous run's.
        history_dir: where each run's topics are kept for the next run to match against.
        embedding_model: the embedding model's name or path (for guide names and representations).
        max_seq_length: the embedding model's token limit.
        n_representative_docs: example papers kept per topic.
        coarse_topics: how many topic groups (a number or ``auto``).
        min_overlap: the shared-paper overlap that continues a topic (``papertopics.lineage``).
        min_similarity: the centroid similarity that continues a topic with few shared papers.
        guide_names: ``topics.guide`` when it is a list of category names.
        guide_min_similarity: how similar a paper must be to a name to join its topic.
        **representation: the keyword settings of ``papertopics.topics.fit_topic_model``.
    """
    from papertopics.embed import load_model
    from papertopics.figures import model_figures
    from papertopics.guided import load_guide
    from papertopics.lineage import TopicHistory, follow_topics, lineage_events, record_run, topic_snapshots
    from papertopics.models import resolve_model_location
    from papertopics.topics import OUTLIER, fit_topic_model, needs_embedding_model

    records, vectors = _corpus_embeddings(papers, embeddings)
    ids = [p["id"] for p in records]
    map_2d, cluster_labels = _clustered_layout(layout, labels, ids)

    names = load_guide(guide_file[0] if guide_file else guide_names)
    encoder = (
        load_model(embedding_model, max_seq_length)
        if names or needs_embedding_model(representation["representation"])
        else None
    )
    cluster_labels, named, unmatched = _apply_guide(
        names, encoder, vectors, cluster_labels, guide_min_similarity
    )
    texts = [p["text"] for p in records]
    fitted, model_topics, was_outlier = fit_topic_model(
        texts, vectors, cluster_labels, embedding_model=encoder, **representation
    )
    # BERTopic numbers topics by size; a named topic is the one its named papers ended in.
    name_of_model_topic = {
        int(model_topics[np.flatnonzero(cluster_labels == topic)[0]]): names[name]
        for topic, name in named.items()
    }
    history = TopicHistory(history_dir)
    snapshots = topic_snapshots(ids, vectors, model_topics)
    stable_id, matching, baseline, run = follow_topics(history, snapshots, min_overlap, min_similarity)
    stable_id[OUTLIER] = OUTLIER
    assigned = np.array([stable_id[t] for t in model_topics.tolist()], dtype=np.int64)
    described = _describe_stable_topics(
        fitted,
        model_topics,
        stable_id,
        baseline,
        name_of_model_topic,
        ids,
        vectors,
        assigned,
        texts,
        n_representative_docs,
        coarse_topics,
    )

    storage.write_csv(topics, topic_table(described.details))
    storage.write_csv(topic_papers, _paper_table(records, assigned, described.label_of, was_outlier, map_2d))
    n_topics = sum(1 for d in described.details if d["topic"] != OUTLIER)
    settings = {
        "embedding_model": embedding_model,
        "n_representative_docs": n_representative_docs,
        **representation,
        "outliers_before_reduction": int(was_outlier.sum()),
        "topics": n_topics,
        "coarse_topics_setting": coarse_topics,
        "coarse_topics": len(described.groups),
        "guide": names,
        "guide_min_similarity": guide_min_similarity if names else None,
        "named_topics": len(name_of_model_topic),
        "guide_unmatched": unmatched,
        "consensus": storage.read_json(cluster_settings).get("consensus"),
    }
    storage.write_json(
        details, {"settings": settings, "topics": described.details, "groups": described.groups}
    )
    storage.write_json(figures, model_figures(fitted, n_topics))
    _save_model(fitted, model, resolve_model_location(embedding_model))
    sizes = {d["topic"]: d["size"] for d in described.details}
    storage.write_json(
        lineage,
        lineage_events(
            matching, stable_id, described.label_of, sizes, baseline, run, described.relabelled, set(ids)
        ),
    )
    # Last, once every output is written: a failed job leaves history as the last good run left it.
    record_run(history, run, baseline, _stable_snapshots(snapshots, stable_id, described))
    _LOG.info(
        "%d topics (run %d of this history): %s", n_topics, run, [d["label"] for d in described.details]
    )


def _stable_snapshots(snapshots: list, stable_id: dict[int, int], described: _StableTopics) -> list:
    """This run's topic snapshots under their stable ids, with their labels and keywords."""
    return [
        replace(
            topic,
            id=stable_id[topic.id],
            label=described.label_of[stable_id[topic.id]],
            keywords=tuple(word for word, _ in described.keywords[stable_id[topic.id]]),
        )
        for topic in snapshots
    ]


def _clustered_layout(layout: str, labels: str, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The 2-d map and the cluster labels, checked to be in the corpus's paper order."""
    coordinates = storage.read_arrays(layout)
    clusters = storage.read_arrays(labels)
    if coordinates["ids"].tolist() != ids or clusters["ids"].tolist() != ids:
        raise RuntimeError(
            "the 2-d map or cluster labels are out of step with the corpus; rerun map and reduce."
        )
    return coordinates["map_2d"], clusters["labels"]


@dataclass(frozen=True)
class _StableTopics:
    details: list[dict]
    groups: list[dict]
    keywords: dict[int, list[tuple[str, float]]]
    label_of: dict[int, str]
    relabelled: list[dict]


def _describe_stable_topics(
    fitted,
    model_topics: np.ndarray,
    stable_id: dict[int, int],
    baseline: dict | None,
    name_of_model_topic: dict[int, str],
    ids: list[str],
    vectors: np.ndarray,
    assigned: np.ndarray,
    texts: list[str],
    n_representative_docs: int,
    coarse_topics: int | str,
) -> _StableTopics:
    """Each topic's record under its stable id: keywords, examples, its label (carried over from the
    previous run while it still fits, or a guide name), and its group; sets the model's labels too.
    """
    from papertopics.lineage import carry_labels
    from papertopics.sizing import resolve_coarse_topics
    from papertopics.topics import OUTLIER, describe_topics, topic_groups, topic_keywords

    keywords = {stable_id[t]: words for t, words in topic_keywords(fitted, model_topics).items()}
    details = describe_topics(keywords, ids, vectors, assigned, n_representative_docs, texts)
    earlier_labels = {t["id"]: t["label"] for t in baseline["topics"]} if baseline else {}
    label_of, relabelled = carry_labels(
        {d["topic"]: d["label"] for d in details},
        {t: [w for w, _ in k] for t, k in keywords.items()},
        earlier_labels,
    )
    label_of.update({stable_id[own]: name for own, name in name_of_model_topic.items()})
    model_topic = {stable: own for own, stable in stable_id.items()}
    named_topics = {stable_id[own] for own in name_of_model_topic}
    for record in details:
        record["label"] = label_of[record["topic"]]
        record["model_topic"] = model_topic[record["topic"]]
        record["named"] = record["topic"] in named_topics
    fitted.set_topic_labels(
        {own: label_of[stable] for own, stable in stable_id.items() if stable in label_of}
    )
    n_topics = sum(1 for d in details if d["topic"] != OUTLIER)
    group_of, groups = topic_groups(
        vectors, assigned, label_of, resolve_coarse_topics(coarse_topics, n_topics)
    )
    for record in details:
        record["group"] = group_of.get(record["topic"])
    return _StableTopics(details, groups, keywords, label_of, relabelled)


def _paper_table(
    records: list[dict],
    assigned: np.ndarray,
    label_of: dict[int, str],
    was_outlier: np.ndarray,
    map_2d: np.ndarray,
):
    """``papers.csv``: each paper with its topic and map position, and the input's own fields."""
    import pandas as pd

    from papertopics.parse import input_columns

    pipeline_columns = {
        "id": [p["id"] for p in records],
        "dump": [p["dump"] for p in records],
        "dumps": [";".join(p["dumps"]) for p in records],
        "display_name": [p["display_name"] for p in records],
        "abstract": [p["abstract"] for p in records],
        "topic": assigned,
        "topic_label": [label_of[t] for t in assigned.tolist()],
        "outlier": was_outlier,
        "x": np.round(map_2d[:, 0], 5),
        "y": np.round(map_2d[:, 1], 5),
    }
    # Input fields (title, authors, url, year, label, ...) are carried along, never used to fit.
    return pd.DataFrame({**pipeline_columns, **input_columns(records, reserved=set(pipeline_columns))})


def topic_table(details: list[dict]):
    """``topics.csv``: one row per topic record (id, label, keywords, size, share)."""
    import pandas as pd

    return pd.DataFrame(
        {
            "id": [d["topic"] for d in details],
            "label": [d["label"] for d in details],
            "keywords": ["; ".join(word for word, _ in d["keywords"]) for d in details],
            "size": [d["size"] for d in details],
            "share": [round(d["share"], 6) for d in details],
        }
    )


def _save_model(model, model_out: str, embedding_model_location: str) -> None:
    with storage.atomic_folder(model_out) as temporary:
        model.save(
            temporary,
            serialization="safetensors",
            save_ctfidf=True,
            save_embedding_model=embedding_model_location,
        )


def report(page: str, title: str, hover_chars: int, **inputs) -> None:
    """The HTML report (``page``) from the stages' outputs (``inputs``, see ``load_report_inputs``)."""
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


def changes(topic_papers: str, details: str, lineage: str, shares: str, changes: str, **comparison) -> None:
    """Topic shares per dump (or year) with intervals, and what changed between two of them."""
    import pandas as pd

    from papertopics.changes import describe_changes

    assigned = pd.read_csv(
        topic_papers,
        keep_default_na=False,
        dtype={"id": str, "dumps": str, "year": str},
        usecols=lambda name: name in {"id", "topic", "dumps", "display_name", "year"},
    )
    share_table, record = describe_changes(
        assigned, storage.read_json(details)["topics"], storage.read_json(lineage), **comparison
    )
    storage.write_csv(shares, share_table)
    storage.write_json(changes, record)
    if record["comparable"]:
        significant = sum(row["significant"] for row in record["comparison"])
        _LOG.info(
            "%s %s vs %s: %d of %d topic shares changed significantly; %d new, %d faded topics",
            record["by"],
            record["baseline"],
            record["target"],
            significant,
            len(record["comparison"]),
            len(record["new_topics"]),
            len(record["faded_topics"]),
        )
    else:
        _LOG.info("no comparison: %s", record["reason"])
