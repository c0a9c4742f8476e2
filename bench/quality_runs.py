"""The topic-quality benchmark's runs: the corpora and their cached embeddings, the pipeline's
reduce → cluster → topics → evaluate logic, and the baselines it is compared with (bench/quality.py).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
from papertopics import storage
from papertopics.text import clean_for_keywords

# UMAP seeds of the seed-stability figures.
REPO = Path(__file__).resolve().parents[1]

STABILITY_SEEDS = (42, 7, 1, 2, 3)


def load_corpus(path: Path) -> list[dict]:
    """Papers of a labelled JSON Lines corpus, cleaned the way the pipeline cleans abstracts; a
    record without an abstract (AI4X's, beside 3DV's) is left out: there is no text to topic.
    """
    papers = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if not record["abstract"]:
                continue
            papers.append(
                {
                    "id": record["id"],
                    "title": record.get("title") or None,
                    "abstract": record["abstract"],
                    "text": clean_for_keywords(record["abstract"]),
                    "label": record.get("label"),
                    "year": record.get("year"),
                    "venue": record.get("venue"),
                }
            )
    return papers


def cached_embeddings(papers: list[dict], corpus: Path, embedding: dict, cache_dir: Path) -> np.ndarray:
    """Embed once per corpus, model and backend (the pipeline's ``embedding`` settings, ``auto``
    resolved for this machine); later runs read the cached vectors.
    """
    from papertopics.embed.encoders import embedding_text, load_encoder, resolve_backend

    model, backend = embedding["model"], resolve_backend(embedding["backend"])
    key = hashlib.sha256(f"{corpus.name}|{model}|{backend}|{len(papers)}".encode()).hexdigest()[:12]
    cache = cache_dir / f"{corpus.name.split('.')[0]}-{key}.npz"
    if cache.exists():
        stored = storage.read_arrays(cache)
        if stored["ids"].tolist() == [p["id"] for p in papers]:
            return stored["vectors"]
    encoder = load_encoder(
        model, backend, embedding["max_seq_length"], str(cache_dir / "models"), embedding["threads"]
    )
    vectors = encoder.encode([embedding_text(p) for p in papers], batch_size=embedding["batch_size"])
    storage.write_arrays(cache, ids=np.array([p["id"] for p in papers]), vectors=vectors)
    return vectors


def default_config() -> dict:
    import yaml

    return yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))


def with_overrides(config: dict, overrides: dict) -> dict:
    """The config with some knobs changed: ``{"umap": {"word_weight": 0}}``."""
    return {
        section: {**values, **overrides.get(section, {})} if isinstance(values, dict) else values
        for section, values in config.items()
    }


def cached_cluster_space(papers: list[dict], embeddings: np.ndarray, umap: dict, cache_dir: Path):
    """The reduce stage's cluster-space vectors, cached per corpus and UMAP settings: variants
    that differ only after clustering share one UMAP run, and reruns skip it.
    """
    from papertopics.embed.encoders import embedding_text
    from papertopics.mapping.reduce import Projection, reduce_embeddings
    from papertopics.settings import ClusterSpaceSettings, umap_knobs

    ids = [p["id"] for p in papers]
    umap = umap_knobs(ClusterSpaceSettings, umap)
    key = hashlib.sha256(json.dumps([ids, umap], sort_keys=True).encode()).hexdigest()[:16]
    cache = cache_dir / f"reduced-{key}.npz"
    if cache.exists():
        stored = storage.read_arrays(cache)
        return stored["cluster_space"], json.loads(str(stored["settings"]))
    cluster_space, used = reduce_embeddings(
        embeddings, [embedding_text(p) for p in papers], Projection(**umap)
    )
    storage.write_arrays(cache, cluster_space=cluster_space, settings=np.array(json.dumps(used)))
    return cluster_space, used


def ours_clusters(
    papers: list[dict], embeddings: np.ndarray, config: dict, cache_dir: Path, seed: int | None = None
):
    """The reduce and cluster stages (with their consensus runs), UMAP seeded with ``seed``
    (default: the configured one); returns the clusters and the two stages' settings.
    """
    from papertopics.mapping.consensus import cluster_runs, consensus_seeds

    umap = config["umap"] if seed is None else {**config["umap"], "random_state": seed}
    spaces, umap_used = [], None
    for run_seed in consensus_seeds(umap["random_state"], umap["consensus_runs"]):
        space, used = cached_cluster_space(papers, embeddings, {**umap, "random_state": run_seed}, cache_dir)
        spaces.append(space)
        umap_used = umap_used or used
    clusters, hdbscan_used = cluster_runs(spaces, embeddings, **config["hdbscan"])
    return clusters, umap_used, hdbscan_used


def topic_settings(config: dict):
    """The topics stage's knobs from a config, as the topics rule passes them (one representative
    paper a topic: the benchmarks score none, and finding them takes time).
    """
    from papertopics.settings import TopicStageSettings

    return replace(TopicStageSettings.from_config(config), n_representative_docs=1)


def first_topic_run(
    papers: list[dict], embeddings: np.ndarray, clusters: np.ndarray, config: dict, encoder, keywords=None
):
    """The topics stage's steps on given clusters, as a first run (no history), the papers' titles
    read and, given ``keywords`` (each paper's list), their keywords too.
    """
    from papertopics.topics.history import TopicHistory
    from papertopics.topics.run import run_topics

    with tempfile.TemporaryDirectory() as history:
        return run_topics(
            [p["text"] for p in papers],
            [p["id"] for p in papers],
            embeddings,
            clusters,
            TopicHistory(history),
            topic_settings(config),
            encoder,
            titles=[p["title"] or "" for p in papers],
            keywords=keywords,
        )


def run_ours(
    papers: list[dict],
    embeddings: np.ndarray,
    config: dict,
    encoder,
    cache_dir: Path,
    corpus: Path | None = None,
) -> dict:
    """The pipeline's reduce → cluster → topics → evaluate logic, on one corpus (a first run, no
    history); with ``corpus``, also how well the labels name the topics (``label_naming``).
    """
    from papertopics.topics.quality import evaluate_topics

    texts = [p["text"] for p in papers]
    clusters, umap_used, hdbscan_used = ours_clusters(papers, embeddings, config, cache_dir)
    found = first_topic_run(papers, embeddings, clusters, config, encoder)
    details = found.details
    metrics = evaluate_topics(
        texts,
        found.topics,
        found.was_outlier,
        {d["topic"]: [w for w, _ in d["keywords"]] for d in details},
        top_n_words=config["evaluate"]["top_n_words"],
        labels=[p["label"] for p in papers] if all(p["label"] is not None for p in papers) else None,
        group_of={d["topic"]: d["group"] for d in details if d["group"] is not None},
    )
    metrics["settings"] = {
        "n_neighbors": umap_used["n_neighbors"],
        "min_cluster_size": hdbscan_used["min_cluster_size"],
    }
    metrics["example_labels"] = [d["label"] for d in details[:8]]
    metrics["topic_labels"] = [
        {
            "topic": d["topic"],
            "size": d["size"],
            "label": d["label"],
            "top_words": [w for w, _ in d["keywords"][:3]],
        }
        for d in details
        if d["topic"] != -1
    ]
    metrics["group_labels"] = [g["label"] for g in found.groups]
    if corpus is not None:
        from bench.label_keywords import mmr_keywords
        from bench.label_scores import group_naming, label_naming

        real = [d for d in details if d["topic"] != -1]
        mmr = mmr_keywords(
            found.model,
            {d["topic"]: d["model_topic"] for d in real},
            encoder,
            texts,
            config["topics"]["min_keyword_share"],
        )
        for entry in metrics["topic_labels"]:
            entry["mmr"] = mmr[entry["topic"]]
        metrics["label_naming"] = label_naming(papers, corpus, found.topics, details, encoder, mmr)
        metrics["group_naming"] = group_naming(papers, corpus, found.topics, found.groups, encoder)
    return metrics


def run_bertopic_defaults(papers: list[dict], embeddings: np.ndarray, encoder, random_state: int) -> dict:
    """BERTopic as it comes (UMAP 15/5, HDBSCAN 10, CountVectorizer, c-TF-IDF) on the same
    embeddings and cleaned texts; only UMAP's seed is fixed, for a repeatable figure.
    """
    from bertopic import BERTopic
    from papertopics.topics.quality import evaluate_topics

    texts = [p["text"] for p in papers]
    model = BERTopic(embedding_model=encoder, umap_model=bertopic_default_umap(random_state))
    topics = np.asarray(model.fit_transform(texts, embeddings=embeddings)[0])
    keyphrases = {t: [w for w, _ in model.get_topic(t) or [] if w] for t in set(topics.tolist())}
    return evaluate_topics(
        texts, topics, topics == -1, keyphrases, top_n_words=10, labels=[p["label"] for p in papers]
    )


def cached(cache_dir: Path, name: str, key, compute) -> np.ndarray:
    """``compute()``'s array, kept in ``cache_dir`` under ``name`` and a hash of ``key``."""
    path = (
        cache_dir / f"{name}-{hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]}.npz"
    )
    if path.exists():
        return storage.read_arrays(path)["values"]
    values = compute()
    storage.write_arrays(path, values=values)
    return values


def bertopic_default_umap(random_state: int):
    """BERTopic's default UMAP, with only its seed fixed."""
    from umap import UMAP

    return UMAP(
        n_neighbors=15,
        n_components=5,
        min_dist=0.0,
        metric="cosine",
        low_memory=False,
        random_state=random_state,
    )


def bertopic_default_partition(embeddings: np.ndarray, random_state: int) -> np.ndarray:
    """The topics BERTopic's defaults make (its default UMAP and HDBSCAN; outliers stay -1),
    without the representation steps that do not move a paper.
    """
    from hdbscan import HDBSCAN

    reduced = bertopic_default_umap(random_state).fit_transform(embeddings)
    return (
        HDBSCAN(min_cluster_size=10, metric="euclidean", cluster_selection_method="eom", prediction_data=True)
        .fit_predict(reduced)
        .astype(np.int64)
    )


def seed_stability(partitions: list[np.ndarray]) -> dict:
    """Mean pairwise ARI and NMI between the partitions of several seeds, and their topic counts."""
    from itertools import combinations

    from papertopics.mapping.consensus import mean_pairwise_ari
    from sklearn.metrics import normalized_mutual_info_score

    return {
        "ari": mean_pairwise_ari(partitions),
        "nmi": float(np.mean([normalized_mutual_info_score(a, b) for a, b in combinations(partitions, 2)])),
        "topics": [int(len(set(p.tolist()) - {-1})) for p in partitions],
    }


def stability(
    papers: list[dict], embeddings: np.ndarray, config: dict, cache_dir: Path, seeds=STABILITY_SEEDS
) -> dict:
    """Seed stability of our topics (reduce, cluster, outliers joined to topics as the topics stage
    does) and of BERTopic's defaults' over the UMAP ``seeds``; also each seed's NMI to the labels.
    """
    from papertopics.mapping.cluster import assign_outliers
    from sklearn.metrics import normalized_mutual_info_score

    labels = [p["label"] for p in papers]
    ids = [p["id"] for p in papers]
    one_run = with_overrides(config, {"umap": {"consensus_runs": 1}})
    ours, single, theirs = [], [], []
    for seed in seeds:
        for partitions, settings in ((ours, config), (single, one_run)):
            clusters = ours_clusters(papers, embeddings, settings, cache_dir, seed)[0]
            partitions.append(
                assign_outliers(embeddings, clusters) if config["topics"]["reduce_outliers"] else clusters
            )
        theirs.append(
            cached(
                cache_dir,
                "bertopic-defaults",
                [ids, seed],
                lambda seed=seed: bertopic_default_partition(embeddings, seed),
            )
        )
    result = {}
    for name, partitions in (("ours", ours), ("one_run", single), ("bertopic", theirs)):
        result[name] = {
            **seed_stability(partitions),
            "nmi_to_labels": [float(normalized_mutual_info_score(labels, p)) for p in partitions],
        }
    result["seeds"] = list(seeds)
    return result


def clustering_cost(papers: list[dict], embeddings: np.ndarray, config: dict) -> dict:
    """Seconds of the reduce and cluster stages' work (UMAP projections, HDBSCAN), uncached, with
    one run and with the configured ``umap.consensus_runs``, measured side by side.
    """
    import time

    from papertopics.embed.encoders import embedding_text
    from papertopics.mapping.consensus import cluster_runs, consensus_seeds
    from papertopics.mapping.reduce import Projection, reduce_embeddings
    from papertopics.settings import ClusterSpaceSettings, umap_knobs

    texts = [embedding_text(p) for p in papers]
    umap = umap_knobs(ClusterSpaceSettings, config["umap"])
    runs = config["umap"]["consensus_runs"]
    seconds = {}
    for count in (1, runs):
        start = time.perf_counter()
        spaces = [
            reduce_embeddings(embeddings, texts, Projection(**{**umap, "random_state": seed}))[0]
            for seed in consensus_seeds(umap["random_state"], count)
        ]
        cluster_runs(spaces, embeddings, **config["hdbscan"])
        seconds[count] = time.perf_counter() - start
    return {
        "runs": runs,
        "one_run_s": seconds[1],
        "consensus_s": seconds[runs],
        "ratio": seconds[runs] / seconds[1],
    }


def achievable(papers: list[dict], embeddings: np.ndarray, random_state: int = 42) -> dict:
    """What the embeddings allow: a supervised classifier (5-fold cross-validated logistic
    regression; each paper scored by the fold that did not train on it) and k-means with
    k = the number of labels on the raw (unit-length) embeddings.
    """
    from sklearn.cluster import KMeans
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, adjusted_rand_score, normalized_mutual_info_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.preprocessing import normalize

    labels = np.array([p["label"] for p in papers])
    folds = StratifiedKFold(5, shuffle=True, random_state=random_state)
    predicted = cross_val_predict(LogisticRegression(max_iter=2000), embeddings, labels, cv=folds)
    clusters = KMeans(len(set(labels.tolist())), n_init=10, random_state=random_state).fit_predict(
        normalize(embeddings)
    )
    return {
        "supervised": {
            "nmi": float(normalized_mutual_info_score(labels, predicted)),
            "ari": float(adjusted_rand_score(labels, predicted)),
            "accuracy": float(accuracy_score(labels, predicted)),
        },
        "kmeans_raw": {
            "nmi": float(normalized_mutual_info_score(labels, clusters)),
            "ari": float(adjusted_rand_score(labels, clusters)),
        },
    }


def run_tfidf_kmeans(papers: list[dict], random_state: int) -> dict:
    """The classic baseline: TF-IDF → 100-d SVD → k-means with k = the number of labels;
    a cluster's words are the heaviest terms of its TF-IDF centroid.
    """
    from papertopics.topics.quality import evaluate_topics
    from sklearn.cluster import KMeans
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    texts = [p["text"] for p in papers]
    labels = [p["label"] for p in papers]
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2)
    weights = vectorizer.fit_transform(texts)
    reduced = normalize(TruncatedSVD(100, random_state=random_state).fit_transform(weights))
    clusters = KMeans(len(set(labels)), n_init=10, random_state=random_state).fit_predict(reduced)
    vocabulary = vectorizer.get_feature_names_out()
    keyphrases = {}
    for cluster in sorted(set(clusters.tolist())):
        centroid = np.asarray(weights[clusters == cluster].mean(axis=0)).ravel()
        keyphrases[cluster] = [vocabulary[i] for i in np.argsort(-centroid, kind="stable")[:10]]
    return evaluate_topics(
        texts, clusters, np.zeros(len(texts), bool), keyphrases, top_n_words=10, labels=labels
    )
