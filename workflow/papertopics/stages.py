"""File-to-file stages: read a stage's inputs, call its logic, write its outputs atomically.

Each function here is what one Snakemake rule runs; heavy libraries are imported inside
the stage modules only when the stage that needs them runs.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import replace
from pathlib import Path

import numpy as np

from papertopics import storage

_LOG = logging.getLogger(__name__)


def parse(
    dump_path: str, papers_path: str, summary_path: str, min_abstract_chars: int, abstract_column: str | None
) -> None:
    from papertopics.parse import parse_dump

    parsed = parse_dump(dump_path, min_abstract_chars=min_abstract_chars, abstract_column=abstract_column)
    summary = {
        **parsed.summary(),
        "source": str(dump_path),
        "sha256": hashlib.sha256(Path(dump_path).read_bytes()).hexdigest(),
    }
    for warning in parsed.warnings:
        _LOG.warning("%s", warning)
    for rejection in parsed.rejected:
        _LOG.info(
            "%s %s: rejected (%s): %s",
            dump_path,
            rejection["location"],
            rejection["reason"],
            rejection["detail"],
        )
    storage.write_jsonl(papers_path, parsed.papers)
    storage.write_json(summary_path, summary)
    _LOG.info(
        "%s (%s, %s): %d records read = %d kept + %d duplicates + %d rejected %s",
        dump_path,
        summary["format"],
        summary["encoding"],
        summary["records_read"],
        summary["kept"],
        summary["duplicates"],
        summary["rejected"],
        summary["rejected_by_reason"] or "",
    )


def corpus(papers_paths: list[str], summary_paths: list[str], papers_out: str, summary_out: str) -> None:
    from papertopics.corpus import merge_dumps

    dumps = [(storage.read_json(s), storage.read_jsonl(p)) for p, s in zip(papers_paths, summary_paths)]
    papers, summary = merge_dumps(dumps)
    storage.write_jsonl(papers_out, papers)
    storage.write_json(summary_out, summary)
    _LOG.info("corpus: %d papers from %d dumps", summary["papers"], len(dumps))


def embed(
    papers_path: str,
    embeddings_out: str,
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
    """Embed the papers of one dump (or of its shard ``shard`` of ``shards``), reusing cached vectors."""
    from papertopics.embed import embedding_text, encoder_identity, load_encoder, resolve_backend
    from papertopics.embedding_cache import EmbeddingCache, embed_with_cache
    from papertopics.sharding import shard_bounds

    backend = resolve_backend(backend, device)
    papers = storage.read_jsonl(papers_path)
    start, end = shard_bounds(len(papers), shard, shards)
    papers = papers[start:end]
    cache = EmbeddingCache(cache_dir, encoder_identity(model, backend, max_seq_length, device))
    vectors, computed = embed_with_cache(
        [embedding_text(p) for p in papers],
        cache,
        lambda: load_encoder(model, backend, max_seq_length, model_cache_dir, threads, device),
        batch_size=batch_size,
    )
    storage.write_arrays(embeddings_out, ids=np.array([p["id"] for p in papers], dtype=str), vectors=vectors)
    _LOG.info(
        "papers %d-%d: %d embedded now (%s on %s), %d from the cache (%d corrupt entries rebuilt)",
        start,
        end,
        computed,
        backend,
        device,
        len(papers) - computed,
        cache.rebuilt,
    )


def gather_embedding_shards(shard_paths: list[str], embeddings_out: str) -> None:
    """Concatenate a dump's shard embeddings, in shard order, into the dump's embedding file."""
    shards = [storage.read_arrays(path) for path in shard_paths]
    filled = [shard for shard in shards if len(shard["ids"])]
    ids = np.concatenate([shard["ids"] for shard in filled]) if filled else np.array([], dtype=str)
    vectors = (
        np.vstack([shard["vectors"] for shard in filled]).astype(np.float32)
        if filled
        else np.zeros((0, 0), np.float32)
    )
    storage.write_arrays(embeddings_out, ids=ids, vectors=vectors)
    _LOG.info("gathered %d embeddings from %d shards", len(ids), len(shards))


def _corpus_embeddings(papers_path: str, embedding_paths: list[str]) -> tuple[list[dict], np.ndarray]:
    from papertopics.embed import gather_embeddings

    papers = storage.read_jsonl(papers_path)
    stored = [storage.read_arrays(path) for path in embedding_paths]
    return papers, gather_embeddings([p["id"] for p in papers], stored)


def _reduce_corpus(
    papers_path: str, embedding_paths: list[str], neighbours_path: str, **umap
) -> tuple[np.ndarray, np.ndarray, dict]:
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


def neighbours(papers_path: str, embedding_paths: list[str], neighbours_out: str, **umap) -> None:
    """The papers' neighbour graph, searched once for every UMAP projection of them (cluster
    space, map, consensus runs); ``searched`` is false where the projections use none (a
    fit on a sample, a corpus too small for UMAP).
    """
    import time

    from papertopics.embed import embedding_text
    from papertopics.reduce import neighbour_graph

    papers, embeddings = _corpus_embeddings(papers_path, embedding_paths)
    start = time.perf_counter()
    graph = neighbour_graph(embeddings, [embedding_text(p) for p in papers], **umap)
    empty = np.zeros((0, 0))
    storage.write_arrays(
        neighbours_out,
        ids=np.array([p["id"] for p in papers]),
        searched=np.array(graph is not None),
        indices=empty.astype(np.int64) if graph is None else graph[0],
        distances=empty.astype(np.float32) if graph is None else graph[1],
    )
    if graph is None:
        _LOG.info(
            "no neighbour graph: the projections of %d papers fit on a sample or are linear", len(papers)
        )
    else:
        _LOG.info(
            "searched %d nearest neighbours of %d papers in %.1f s",
            graph[0].shape[1],
            len(papers),
            time.perf_counter() - start,
        )


def reduce(
    papers_path: str,
    embedding_paths: list[str],
    neighbours_path: str,
    coordinates_out: str,
    settings_out: str,
    **umap,
) -> None:
    """A cluster space: the papers' UMAP coordinates in ``umap.n_components`` dimensions (the
    reduce stage's with ``umap.random_state``, a consensus run's with a seed drawn from it).
    """
    ids, cluster_space, settings = _reduce_corpus(papers_path, embedding_paths, neighbours_path, **umap)
    storage.write_arrays(coordinates_out, ids=ids, cluster_space=cluster_space)
    storage.write_json(settings_out, settings)
    _LOG.info("reduced %d papers with %s", len(ids), settings)


def map_layout(
    papers_path: str, embedding_paths: list[str], neighbours_path: str, map_out: str, min_dist: float, **umap
) -> None:
    """The 2-d paper map: UMAP with the cluster space's settings, spread by at least ``MAP_MIN_DIST``."""
    from papertopics.reduce import MAP_MIN_DIST

    ids, map_2d, settings = _reduce_corpus(
        papers_path,
        embedding_paths,
        neighbours_path,
        n_components=2,
        min_dist=max(min_dist, MAP_MIN_DIST),
        **umap,
    )
    storage.write_arrays(map_out, ids=ids, map_2d=map_2d)
    _LOG.info("mapped %d papers in 2-d with %s", len(ids), settings)


def cluster(
    coordinates_paths: list[str],
    papers_path: str,
    embedding_paths: list[str],
    labels_out: str,
    settings_out: str,
    **hdbscan,
) -> None:
    """Topics of the reduce stage's cluster space, or of it and the consensus runs' spaces
    (further seeded UMAP projections, each its own job), joined (see ``papertopics.consensus``).
    """
    from papertopics.consensus import cluster_runs
    from papertopics.topics import OUTLIER

    runs = [storage.read_arrays(path) for path in coordinates_paths]
    ids = runs[0]["ids"]
    if any(run["ids"].tolist() != ids.tolist() for run in runs[1:]):
        raise RuntimeError("the consensus runs' cluster spaces are out of step; rerun reduce.")
    embeddings = None
    if len(runs) > 1:
        papers, embeddings = _corpus_embeddings(papers_path, embedding_paths)
        if [p["id"] for p in papers] != ids.tolist():
            raise RuntimeError("the cluster space is out of step with the corpus; rerun reduce.")
    labels, settings = cluster_runs([run["cluster_space"] for run in runs], embeddings, **hdbscan)
    settings["clusters"] = int(len(set(labels.tolist()) - {OUTLIER}))
    settings["outliers"] = int((labels == OUTLIER).sum())
    storage.write_arrays(labels_out, ids=ids, labels=labels)
    storage.write_json(settings_out, settings)
    _LOG.info("clustered: %s", settings)


def topics(
    papers_path: str,
    embedding_paths: list[str],
    map_path: str,
    labels_path: str,
    topics_out: str,
    papers_out: str,
    details_out: str,
    model_out: str,
    figures_out: str,
    lineage_out: str,
    history_dir: str,
    embedding_model: str,
    max_seq_length: int,
    n_representative_docs: int,
    coarse_topics: int | str,
    min_overlap: float,
    min_similarity: float,
    cluster_settings_path: str | None = None,
    guide: list[str] | str | None = None,
    guide_min_similarity: float = 0.5,
    **representation,
) -> None:
    """Fit the topic model on the clusters; number topics stably across runs (``history_dir``).
    ``cluster_settings_path``: the cluster stage's settings, whose consensus figures are kept.
    ``guide``: known category names (or a file of them) that become topics (``papertopics.guided``).
    """
    import pandas as pd

    from papertopics.embed import load_model
    from papertopics.figures import model_figures
    from papertopics.lineage import (
        TopicHistory,
        carry_labels,
        follow_topics,
        lineage_events,
        record_run,
        topic_snapshots,
    )
    from papertopics.models import resolve_model_location
    from papertopics.parse import input_columns
    from papertopics.sizing import resolve_coarse_topics
    from papertopics.topics import (
        OUTLIER,
        describe_topics,
        fit_topic_model,
        needs_embedding_model,
        topic_groups,
        topic_keywords,
    )

    papers, embeddings = _corpus_embeddings(papers_path, embedding_paths)
    ids = [p["id"] for p in papers]
    layout = storage.read_arrays(map_path)
    clusters = storage.read_arrays(labels_path)
    if layout["ids"].tolist() != ids or clusters["ids"].tolist() != ids:
        raise RuntimeError(
            "the 2-d map or cluster labels are out of step with the corpus; rerun map and reduce."
        )

    from papertopics.guided import guided_topics, load_guide

    names = load_guide(guide)
    encoder = (
        load_model(embedding_model, max_seq_length)
        if names or needs_embedding_model(representation["representation"])
        else None
    )
    cluster_labels, named = clusters["labels"], {}
    if names:
        name_vectors = np.asarray(encoder.encode(names), dtype=np.float32)
        cluster_labels, named = guided_topics(
            embeddings, name_vectors, clusters["labels"], guide_min_similarity
        )
    model, model_topics, was_outlier = fit_topic_model(
        [p["text"] for p in papers], embeddings, cluster_labels, embedding_model=encoder, **representation
    )
    # BERTopic numbers topics by size; a named topic is the one its named papers ended in.
    name_of_model_topic = {
        int(model_topics[np.flatnonzero(cluster_labels == topic)[0]]): names[name]
        for topic, name in named.items()
    }
    history = TopicHistory(history_dir)
    snapshots = topic_snapshots(ids, embeddings, model_topics)
    stable_id, matching, baseline, run = follow_topics(history, snapshots, min_overlap, min_similarity)
    stable_id[OUTLIER] = OUTLIER
    assigned = np.array([stable_id[t] for t in model_topics.tolist()], dtype=np.int64)
    keywords = {stable_id[t]: words for t, words in topic_keywords(model, model_topics).items()}
    details = describe_topics(
        keywords, ids, embeddings, assigned, n_representative_docs, [p["text"] for p in papers]
    )
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
    model.set_topic_labels({own: label_of[stable] for own, stable in stable_id.items() if stable in label_of})
    n_topics = sum(1 for d in details if d["topic"] != OUTLIER)
    n_groups = resolve_coarse_topics(coarse_topics, n_topics)
    group_of, groups = topic_groups(embeddings, assigned, label_of, n_groups)
    for record in details:
        record["group"] = group_of.get(record["topic"])

    storage.write_csv(topics_out, topic_table(details))
    x, y = layout["map_2d"][:, 0], layout["map_2d"][:, 1]
    pipeline_columns = {
        "id": ids,
        "dump": [p["dump"] for p in papers],
        "dumps": [";".join(p["dumps"]) for p in papers],
        "display_name": [p["display_name"] for p in papers],
        "abstract": [p["abstract"] for p in papers],
        "topic": assigned,
        "topic_label": [label_of[t] for t in assigned.tolist()],
        "outlier": was_outlier,
        "x": np.round(x, 5),
        "y": np.round(y, 5),
    }
    # Input fields (title, authors, url, year, label, ...) are carried along, never used to fit.
    paper_table = pd.DataFrame({**pipeline_columns, **input_columns(papers, reserved=set(pipeline_columns))})
    storage.write_csv(papers_out, paper_table)
    settings = {
        "embedding_model": embedding_model,
        "n_representative_docs": n_representative_docs,
        **representation,
        "outliers_before_reduction": int(was_outlier.sum()),
        "topics": n_topics,
        "coarse_topics_setting": coarse_topics,
        "coarse_topics": len(groups),
        "guide": names,
        "guide_min_similarity": guide_min_similarity if names else None,
        "named_topics": len(name_of_model_topic),
        "consensus": storage.read_json(cluster_settings_path).get("consensus")
        if cluster_settings_path
        else None,
    }
    storage.write_json(details_out, {"settings": settings, "topics": details, "groups": groups})
    storage.write_json(figures_out, model_figures(model, n_topics))
    _save_model(model, model_out, resolve_model_location(embedding_model))
    sizes = {d["topic"]: d["size"] for d in details}
    storage.write_json(
        lineage_out,
        lineage_events(matching, stable_id, label_of, sizes, baseline, run, relabelled, set(ids)),
    )
    # Last, once every output is written: a failed job leaves history as the last good run left it.
    record_run(
        history,
        run,
        baseline,
        [
            replace(
                topic,
                id=stable_id[topic.id],
                label=label_of[stable_id[topic.id]],
                keywords=tuple(word for word, _ in keywords[stable_id[topic.id]]),
            )
            for topic in snapshots
        ],
    )
    _LOG.info("%d topics (run %d of this history): %s", n_topics, run, [d["label"] for d in details])


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
    import shutil

    target = Path(model_out)
    temporary = target.with_name(f".{target.name}.part")
    shutil.rmtree(temporary, ignore_errors=True)
    model.save(
        temporary,
        serialization="safetensors",
        save_ctfidf=True,
        save_embedding_model=embedding_model_location,
    )
    shutil.rmtree(target, ignore_errors=True)
    temporary.replace(target)


def report(output: str, title: str, hover_chars: int, **inputs) -> None:
    from papertopics.report import build_report, load_report_inputs

    page = build_report(load_report_inputs(**inputs), title=title, hover_chars=hover_chars)
    storage.write_text(output, page)
    _LOG.info("report written to %s (%.1f MB)", output, len(page.encode()) / 1e6)


def evaluate(
    papers_path: str, topic_papers_path: str, details_path: str, metrics_out: str, top_n_words: int
) -> None:
    """Topic quality: coherence, diversity, outliers, and agreement with a ``label`` column if any."""
    import pandas as pd

    from papertopics.quality import evaluate_topics

    texts = {p["id"]: p["text"] for p in storage.read_jsonl(papers_path)}
    # Only the columns scored here: parsing the abstracts and coordinates too took twice as long.
    assigned = pd.read_csv(
        topic_papers_path,
        keep_default_na=False,
        dtype={"id": str},
        usecols=lambda name: name in {"id", "topic", "outlier", "label"},
    )
    missing = [i for i in assigned["id"] if i not in texts]
    if missing:
        raise RuntimeError(
            f"{topic_papers_path} lists {len(missing)} papers not in the corpus; rerun topics."
        )
    details = storage.read_json(details_path)
    labels = assigned["label"].astype(str).str.strip().tolist() if "label" in assigned.columns else None
    metrics = evaluate_topics(
        [texts[i] for i in assigned["id"]],
        assigned["topic"].to_numpy(),
        assigned["outlier"].astype(str).str.lower().eq("true").to_numpy(),
        {t["topic"]: [word for word, _ in t["keywords"]] for t in details["topics"]},
        top_n_words=top_n_words,
        labels=labels,
        group_of={t["topic"]: t["group"] for t in details["topics"] if t.get("group") is not None},
    )
    metrics["consensus"] = details["settings"].get("consensus")
    storage.write_json(metrics_out, metrics)
    _LOG.info(
        "%d topics: NPMI %.3f, diversity %.3f, outliers %.1f%%%s",
        metrics["topics"],
        metrics["npmi"],
        metrics["diversity"],
        100 * metrics["outlier_share"],
        f", NMI {metrics['labels']['nmi']:.3f}" if metrics["labels"] else "",
    )


def changes(
    papers_path: str, details_path: str, lineage_path: str, shares_out: str, changes_out: str, **comparison
) -> None:
    """Topic shares per dump (or year) with intervals, and what changed between two of them."""
    import pandas as pd

    from papertopics.changes import describe_changes

    papers = pd.read_csv(
        papers_path,
        keep_default_na=False,
        dtype={"id": str, "dumps": str, "year": str},
        usecols=lambda name: name in {"id", "topic", "dumps", "display_name", "year"},
    )
    shares, record = describe_changes(
        papers, storage.read_json(details_path)["topics"], storage.read_json(lineage_path), **comparison
    )
    storage.write_csv(shares_out, shares)
    storage.write_json(changes_out, record)
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
