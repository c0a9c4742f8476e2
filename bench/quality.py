"""Topic-quality benchmark on a labelled corpus (see docs/benchmarks.md and docs/quality.md)."""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

import numpy as np
from papertopics import storage
from papertopics.text import clean_for_keywords

REPO = Path(__file__).resolve().parents[1]

_LOG = logging.getLogger("quality")
# UMAP seeds of the seed-stability figures.
STABILITY_SEEDS = (42, 7, 1, 2, 3)


def load_corpus(path: Path) -> list[dict]:
    """Papers of a labelled JSON Lines corpus, cleaned the way the pipeline cleans abstracts."""
    papers = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            papers.append(
                {
                    "id": record["id"],
                    "title": record.get("title") or None,
                    "abstract": record["abstract"],
                    "text": clean_for_keywords(record["abstract"]),
                    "label": record.get("label"),
                    "year": record.get("year"),
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
    from papertopics.mapping.reduce import Projection, projection_settings, reduce_embeddings

    ids = [p["id"] for p in papers]
    umap = projection_settings(umap, cluster_space=True)
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

    return TopicStageSettings.from_config(config).run_settings(n_representative_docs=1)


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
    from papertopics.topics.lineage import TopicHistory
    from papertopics.topics.quality import evaluate_topics
    from papertopics.topics.run import run_topics

    texts = [p["text"] for p in papers]
    clusters, umap_used, hdbscan_used = ours_clusters(papers, embeddings, config, cache_dir)
    with tempfile.TemporaryDirectory() as history:
        found = run_topics(
            texts,
            [p["id"] for p in papers],
            embeddings,
            clusters,
            TopicHistory(history),
            topic_settings(config),
            encoder,
        )
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
    return metrics


KEYWORDS_OF = {"ijcai_2020_2024_areas.jsonl.gz": "ijcai_2020_2024_keywords.jsonl.gz"}
# A label names its topic when one of its phrases is one of the topic's reference names, or this
# close to one (cosine of the packaged model's embeddings).
NAME_SIMILARITY = 0.8
REFERENCE_NAMES = 5
REFERENCE_MIN_PAPERS = 3
REFERENCE_MIN_LIFT = 2.0


def load_paper_keywords(corpus: Path) -> dict[str, list[str]] | None:
    """Each paper's author keywords (IJCAI's sub-areas), where the corpus has a keyword file."""
    path = corpus.with_name(KEYWORDS_OF[corpus.name]) if corpus.name in KEYWORDS_OF else None
    if path is None or not path.exists():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return {record["id"]: record["keywords"] for record in map(json.loads, lines)}


def title_phrases(papers: list[dict]) -> dict[str, list[str]]:
    """Each paper's title phrases (1-4 words, no stop word or number at either end): the held-out
    stand-in for free author keywords. The labeller reads abstracts only, never titles.
    """
    from papertopics.topics.labels import paper_phrases
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    stop = frozenset(ENGLISH_STOP_WORDS)
    # Hyphens read as spaces, as the keyword vectorizer reads them: the reference stays what it was
    # before the labeller kept compounds such as "few-shot" whole (names compare hyphens as spaces).
    return {
        p["id"]: sorted(paper_phrases((p["title"] or "").replace("-", " "), stop).forms.values())
        for p in papers
    }


def normalised_name(phrase: str) -> str:
    """A name compared as the issue says: case, hyphens and plural endings set aside."""
    from papertopics.topics.fit import singular

    return " ".join(singular(word) for word in phrase.lower().replace("-", " ").split())


def reference_names(paper_ids: list[str], topics: np.ndarray, keywords: dict[str, list[str]]) -> dict:
    """Each topic's reference names: the keywords at least ``REFERENCE_MIN_PAPERS`` of its papers
    use, at least ``REFERENCE_MIN_LIFT`` times as often there as in the corpus, the
    ``REFERENCE_NAMES`` most used.
    """
    from collections import Counter

    in_corpus = Counter(k for i in paper_ids for k in set(keywords.get(i, [])))
    total = len(paper_ids)
    names = {}
    for topic in sorted(set(topics.tolist()) - {-1}):
        members = [paper_ids[i] for i in np.flatnonzero(topics == topic)]
        used = Counter(k for i in members for k in set(keywords.get(i, [])))
        kept = [
            k
            for k, n in used.items()
            if n >= REFERENCE_MIN_PAPERS and n / len(members) >= REFERENCE_MIN_LIFT * in_corpus[k] / total
        ]
        names[topic] = sorted(kept, key=lambda k: (-used[k], k))[:REFERENCE_NAMES]
    return names


def label_hits(labels: dict[int, list[str]], names: dict[int, list[str]], encoder) -> dict[int, bool]:
    """Whether each topic's label (its phrases) names it: a phrase equal to a reference name after
    ``normalised_name``, or at least ``NAME_SIMILARITY`` cosine-similar to one.
    """
    phrases = sorted({p for ps in labels.values() for p in ps} | {n for ns in names.values() for n in ns})
    vectors = np.asarray(encoder.encode(phrases, normalize_embeddings=True), dtype=np.float64)
    index = {p: i for i, p in enumerate(phrases)}
    hits = {}
    for topic, label in labels.items():
        references = names.get(topic, [])
        equal = {normalised_name(n) for n in references} & {normalised_name(p) for p in label}
        similar = (
            references
            and label
            and (vectors[[index[p] for p in label]] @ vectors[[index[n] for n in references]].T).max()
            >= NAME_SIMILARITY
        )
        hits[topic] = bool(equal or similar)
    return hits


def hit_rate(hits: dict[int, bool], sizes: dict[int, int]) -> float:
    """Share of the papers whose topic's label names it (topics weighted by size)."""
    return sum(sizes[t] for t, hit in hits.items() if hit) / sum(sizes[t] for t in hits)


def label_naming(
    papers: list[dict], corpus: Path, topics: np.ndarray, details: list[dict], encoder, mmr=None
) -> list[dict]:
    """The size-weighted share of topics whose label names them (``label_hits``), ours, the top 3
    c-TF-IDF keywords (BERTopic's default label) and, given ``mmr`` (topic → keywords,
    ``label_keywords.mmr_keywords``), BERTopic's MMR keywords, against each reference the corpus has: its
    authors' keywords (IJCAI's sub-areas) and, held out for every corpus, its title phrases; and
    against free author keywords where the corpus has them (``label_keywords.keyword_naming``:
    hit rate and the share of label phrases that are keywords of the topic).
    """
    from papertopics.topics.labels import label_phrases

    from bench.label_keywords import keyword_naming, load_free_keywords, topic_keyword_counts

    ids = [p["id"] for p in papers]
    real = [d for d in details if d["topic"] != -1]
    sizes = {d["topic"]: d["size"] for d in real}
    compared = {
        "ours": {d["topic"]: label_phrases(d["label"]) for d in real},
        "top3_words": {d["topic"]: [w for w, _ in d["keywords"][:3]] for d in real},
    }
    if mmr is not None:
        compared["mmr"] = {topic: mmr[topic] for topic in sizes}
    rows = []
    free = load_free_keywords(corpus)
    if free:
        counts = topic_keyword_counts(ids, topics, free)
        figures = {name: keyword_naming(labels, counts, sizes) for name, labels in compared.items()}
        for figure, reference in (
            ("hit_rate", "authors' free keywords (>= 2 of the topic's papers)"),
            ("phrase_share", "label phrases that are free keywords of >= 2 of the topic's papers"),
        ):
            rows.append({"reference": reference, **{name: f[figure] for name, f in figures.items()}})
    references = [("title phrases (held out: labels read abstracts only)", title_phrases(papers))]
    keywords = load_paper_keywords(corpus)
    if keywords:
        references.insert(0, ("authors' sub-area keywords", keywords))
    for name, keywords_of in references:
        names = reference_names(ids, topics, keywords_of)
        rows.append(
            {"reference": name}
            | {label: hit_rate(label_hits(of, names, encoder), sizes) for label, of in compared.items()}
        )
    return rows


def label_kept_share(
    papers: list[dict], embeddings: np.ndarray, config: dict, encoder, cache_dir: Path
) -> dict | None:
    """Labels kept across a rerun on real data: the topics of the corpus's first two years, then
    of its first three (a third dump added), matched by history; the share of the topics that keep
    their id that keep their label too (no curation).
    """
    from papertopics.topics.lineage import TopicHistory
    from papertopics.topics.run import run_topics

    years = sorted({p["year"] for p in papers if p.get("year") is not None})
    if len(years) < 3:
        return None
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        history = TopicHistory(folder)
        for last in years[1:3]:
            rows = [i for i, p in enumerate(papers) if p["year"] <= last]
            chosen = [papers[i] for i in rows]
            clusters = ours_clusters(chosen, embeddings[rows], config, cache_dir)[0]
            found = run_topics(
                [p["text"] for p in chosen],
                [p["id"] for p in chosen],
                embeddings[rows],
                clusters,
                history,
                topic_settings(config),
                encoder,
            )
            found.record()
            runs.append(found)
    before = {d["topic"]: d["label"] for d in runs[0].details}
    after = {d["topic"]: d["label"] for d in runs[1].details}
    kept = [t["id"] for t in runs[1].lineage["kept"]]
    same = [t for t in kept if before[t] == after[t]]
    return {
        "years": [years[:2], years[:3]],
        "topics_before": runs[0].n_topics,
        "kept_id": len(kept),
        "kept_label": len(same),
        "share": len(same) / len(kept) if kept else None,
        "relabelled": runs[1].lineage["relabelled"],
    }


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
    from papertopics.topics.fit import assign_outliers
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
    from papertopics.mapping.reduce import Projection, projection_settings, reduce_embeddings

    texts = [embedding_text(p) for p in papers]
    umap = projection_settings(config["umap"], cluster_space=True)
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


GUIDE_THRESHOLDS = (0.0, 0.4, 0.5)
# The guide for arXiv, whose labels are category codes: the arXiv names of the categories with at
# least 100 papers in the shared corpus (the rest, 3% of it, are scored as misses).
ARXIV_CATEGORY_NAMES = {
    "cs.AI": "Artificial Intelligence",
    "cs.CL": "Computation and Language",
    "cs.CV": "Computer Vision and Pattern Recognition",
    "cs.GR": "Graphics",
    "cs.IT": "Information Theory",
    "cs.LG": "Machine Learning",
    "eess.IV": "Image and Video Processing",
}


def guide_of(labels: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The category names a user of the corpus would give as the guide, and each paper's label
    as one of them ("" where the guide has no name for it).
    """
    if set(labels.tolist()) & set(ARXIV_CATEGORY_NAMES):
        named = np.array([ARXIV_CATEGORY_NAMES.get(label, "") for label in labels.tolist()])
        return sorted(ARXIV_CATEGORY_NAMES.values()), named
    return sorted(set(labels.tolist())), labels


def _knn_smoothed_start(units, names):
    """Name posteriors averaged with those of each paper's 15 nearest papers (10 propagation steps)."""
    from papertopics.topics.guided import category_posteriors
    from sklearn.neighbors import NearestNeighbors

    neighbours = NearestNeighbors(n_neighbors=16).fit(units).kneighbors(units, return_distance=False)[:, 1:]
    start = propagated = category_posteriors(units @ names.T)
    for _ in range(10):
        propagated = 0.2 * start + 0.8 * propagated[neighbours].mean(axis=1)
    return propagated.argmax(axis=1)


def _z_scored_start(units, names):
    """Each name's similarity column z-scored, so that a generic name draws no more than a narrow one."""
    similarity = units @ names.T
    return ((similarity - similarity.mean(axis=0)) / similarity.std(axis=0)).argmax(axis=1)


def _keyword_names(names_text, texts, encoder, matched):
    """Each name embedded again with its matched papers' 10 best damped c-TF-IDF keywords."""
    import scipy.sparse as sp
    from bertopic.vectorizers import ClassTfidfTransformer
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(ngram_range=(1, 2), stop_words="english", min_df=2)
    counts = vectorizer.fit_transform(texts)
    members = sp.csr_matrix(
        (np.ones(len(matched)), (matched, np.arange(len(matched)))), shape=(len(names_text), len(matched))
    )
    weights = ClassTfidfTransformer(reduce_frequent_words=True).fit_transform(members @ counts).toarray()
    words = vectorizer.get_feature_names_out()
    described = [
        f"{name}: {', '.join(words[i] for i in np.argsort(-weights[row], kind='stable')[:10])}"
        for row, name in enumerate(names_text)
    ]
    vectors = np.asarray(encoder.encode(described), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _spread_from_nearest(units, names):
    """Label spreading over the 10-nearest-paper graph from each name's 100 most similar papers."""
    from sklearn.semi_supervised import LabelSpreading

    seeds = np.full(len(units), -1)
    for category, nearest in enumerate(np.argsort(-(units @ names.T), axis=0, kind="stable")[:100].T):
        seeds[nearest] = category
    return LabelSpreading(kernel="knn", n_neighbors=10, alpha=0.2).fit(units, seeds).transduction_


def _self_trained(units, category, posteriors):
    """Logistic regression trained on the more confident half of each category's papers, 3 times."""
    from sklearn.linear_model import LogisticRegression

    for _ in range(3):
        confidence = posteriors[np.arange(len(units)), category]
        keep = np.zeros(len(units), dtype=bool)
        for c in np.unique(category):
            members = np.flatnonzero(category == c)
            keep[members[np.argsort(-confidence[members], kind="stable")[: max(3, len(members) // 2)]]] = True
        model = LogisticRegression(max_iter=1000).fit(units[keep], category[keep])
        posteriors = np.zeros_like(posteriors)
        posteriors[:, model.classes_] = model.predict_proba(units)
        category = posteriors.argmax(axis=1)
    return category


def guided_alternatives(units, names, name_texts, texts, encoder, truth_index) -> dict[str, np.ndarray]:
    """Each paper's category (all named) by the ways of matching that were tried and not kept,
    and, for scale, by the labels' own centroids (labels used: not a method, a ceiling).
    """
    from papertopics.topics.fit import topic_centroids
    from papertopics.topics.guided import (
        FEEDBACK_PAPERS,
        category_posteriors,
        expanded_names,
        match_categories,
    )

    expanded = expanded_names(units, names, FEEDBACK_PAPERS)
    kept, _ = match_categories(units, expanded, 0.0)

    def rounds_from(category):
        present = np.unique(category)
        centres = names.copy()
        centres[present] = topic_centroids(units, category, present)
        return match_categories(units, centres, 0.0)[0]

    alternatives = {
        "z-scored name similarities, then the rounds": rounds_from(_z_scored_start(units, names)),
        "name posteriors smoothed over the 15-nearest-paper graph, then the rounds": rounds_from(
            _knn_smoothed_start(units, names)
        ),
        "label spreading over the paper graph from each name's 100 nearest papers, then the rounds": (
            rounds_from(_spread_from_nearest(units, names))
        ),
        "names re-embedded with their papers' c-TF-IDF keywords, then the rounds": match_categories(
            units, _keyword_names(name_texts, texts, encoder, kept), 0.0
        )[0],
        "self-training: logistic regression on confident pseudo-labels (3 times), from the kept matching": (
            _self_trained(
                units, kept, category_posteriors(units @ topic_centroids(units, kept, range(len(names))).T)
            )
        ),
    }
    labelled = truth_index >= 0
    centroids = topic_centroids(units[labelled], truth_index[labelled], range(len(names)))
    alternatives["ceiling (labels used): each paper to its label's centroid, with the category shares"] = (
        category_posteriors(units @ centroids.T).argmax(axis=1)
    )
    alternatives["the rounds started from the labels' centroids (labels used)"] = match_categories(
        units, centroids, 0.0
    )[0]
    return alternatives


def guided(papers: list[dict], embeddings: np.ndarray, config: dict, encoder, cache_dir: Path) -> dict:
    """Guided topics with the corpus's own label names as the guide, against unguided topics and
    each paper sent to its nearest name: accuracy (a paper in a discovered topic counts as
    wrong) and NMI of all topics (outliers joined) against the labels; also the ways of matching
    that were tried and dropped (``guided_alternatives``).
    """
    from papertopics.topics.fit import assign_outliers
    from papertopics.topics.guided import FEEDBACK_PAPERS, guided_topics
    from sklearn.metrics import accuracy_score, normalized_mutual_info_score

    names, labels = guide_of(np.array([p["label"] for p in papers]))
    name_vectors = np.asarray(encoder.encode(names), dtype=np.float32)
    clusters = ours_clusters(papers, embeddings, config, cache_dir)[0]
    units = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)
    name_units = name_vectors / np.linalg.norm(name_vectors, axis=1, keepdims=True)

    def all_named(variant: str, category: np.ndarray) -> dict:
        predicted = np.array(names)[category]
        return {
            "variant": variant,
            "accuracy": float(accuracy_score(labels, predicted)),
            "named_share": 1.0,
            "nmi": float(normalized_mutual_info_score(labels, predicted)),
        }

    rows = [
        {
            "variant": "unguided (defaults)",
            "accuracy": None,
            "named_share": 0.0,
            "nmi": float(normalized_mutual_info_score(labels, assign_outliers(embeddings, clusters))),
        },
        all_named("each paper to its nearest name", (units @ name_units.T).argmax(axis=1)),
    ]
    default = config["topics"]["guide_min_similarity"]
    variants = [(f"guided, topics.guide_min_similarity {t}", t, FEEDBACK_PAPERS) for t in GUIDE_THRESHOLDS]
    variants += [
        (f"guided, names without their nearest papers, topics.guide_min_similarity {t}", t, 0)
        for t in (0.0, default)
    ]
    variants += [
        (
            f"guided, each name joined by its {count} nearest papers, topics.guide_min_similarity 0.0",
            0.0,
            count,
        )
        for count in (5, 20, 50)
    ]
    for variant, threshold, feedback in variants:
        topics, named = guided_topics(embeddings, name_vectors, clusters, threshold, feedback)
        predicted = np.array([names[named[t]] if t in named else "" for t in topics.tolist()])
        marked = variant + (" (default)" if threshold == default and feedback == FEEDBACK_PAPERS else "")
        rows.append(
            {
                "variant": marked,
                "accuracy": float(accuracy_score(labels, predicted)),
                "named_share": float(np.isin(topics, list(named)).mean()),
                "nmi": float(normalized_mutual_info_score(labels, assign_outliers(embeddings, topics))),
            }
        )
    index = {name: i for i, name in enumerate(names)}
    truth_index = np.array([index.get(label, -1) for label in labels.tolist()])
    found = guided_alternatives(units, name_units, names, [p["text"] for p in papers], encoder, truth_index)
    rows += [
        all_named(variant if "(labels used)" in variant else f"tried: {variant}", category)
        for variant, category in found.items()
    ]
    return {"names": names, "rows": rows}


def guided_table(result: dict) -> list[str]:
    if not result.get("guided"):
        return []
    lines = [
        f"Guided topics (`topics.guide`: {len(result['guided']['names'])} category names: "
        f"{'; '.join(result['guided']['names'])}), against the labels; accuracy counts a paper in a "
        "discovered topic (or with a label the guide does not name) as wrong; NMI against the labels "
        "the guide names (the others as one). Rows marked tried: ways of matching that were measured "
        "and not kept, every paper named:",
        "",
        "| variant | accuracy | papers in named topics | NMI |",
        "|---|---:|---:|---:|",
    ]
    for r in result["guided"]["rows"]:
        accuracy = "" if r["accuracy"] is None else f"{r['accuracy']:.3f}"
        lines.append(f"| {r['variant']} | {accuracy} | {r['named_share']:.0%} | {r['nmi']:.3f} |")
    return lines + [""]


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


# What each change adds: our defaults with one change taken back (or, for the word vectors,
# which measured no gain, put in) at a time.
ABLATIONS = {
    "(a) without the largest-topic limit (hdbscan.max_cluster_share 0)": {
        "hdbscan": {"max_cluster_share": 0}
    },
    "(a) with hdbscan.min_samples 1 (the default before)": {"hdbscan": {"min_samples": 1}},
    "(a) keywords: without the shared-keyword rule (topics.min_keyword_share 0)": {
        "topics": {"min_keyword_share": 0}
    },
    "(a) with word vectors joined to the embeddings (umap.word_weight 0.3)": {"umap": {"word_weight": 0.3}},
    "(a) without outlier reduction (topics.reduce_outliers false)": {"topics": {"reduce_outliers": False}},
    "(a) keywords: plain c-TF-IDF (reduce_frequent_words false)": {
        "topics": {"reduce_frequent_words": False}
    },
    "(a) keywords: MMR (diversity 0.3) on damped c-TF-IDF": {"topics": {"representation": "mmr"}},
    "(a) keywords: KeyBERTInspired on plain c-TF-IDF": {
        "topics": {"representation": "keybert", "reduce_frequent_words": False}
    },
}


def row(name: str, metrics: dict) -> dict:
    agreement = metrics["labels"]
    return {
        "variant": name,
        "nmi": agreement["nmi"],
        "ari": agreement["ari"],
        "homogeneity": agreement["homogeneity"],
        "topics": metrics["topics"],
        "outliers": metrics["outlier_share"],
        "unassigned": metrics["unassigned_share"],
        "npmi": metrics["npmi"],
        "diversity": metrics["diversity"],
    }


def benchmark(
    corpus: Path,
    cache_dir: Path,
    ablations: bool,
    limit: int | None = None,
    random_state: int = 42,
    stable: bool = True,
    guide: bool = False,
) -> dict:
    from papertopics.embed.encoders import load_model, resolve_backend

    config = default_config()
    papers = load_corpus(corpus)
    embeddings = cached_embeddings(papers, corpus, config["embedding"], cache_dir)
    if limit:  # a quick look at the first papers only
        papers, embeddings = papers[:limit], embeddings[:limit]
    encoder = load_model(config["embedding"]["model"], config["embedding"]["max_seq_length"])
    rows = []
    ours = run_ours(papers, embeddings, config, encoder, cache_dir, corpus)
    rows.append(row("(a) papertopics defaults", ours))
    if ours["coarse"]:
        coarse = {**ours, "labels": ours["coarse"]["labels"], "topics": ours["coarse"]["groups"]}
        rows.append(row("(a) its coarse layer (topic groups; keyword scores of the topics)", coarse))
    _LOG.info("%s: ours done", corpus.name)
    if ablations:
        for name, overrides in ABLATIONS.items():
            rows.append(
                row(name, run_ours(papers, embeddings, with_overrides(config, overrides), encoder, cache_dir))
            )
            _LOG.info("%s: %s done", corpus.name, name)
    bertopic = run_bertopic_defaults(papers, embeddings, encoder, random_state)
    rows.append(row("(b) BERTopic defaults, same embeddings", bertopic))
    rows.append(row("(c) TF-IDF + k-means, k = number of labels", run_tfidf_kmeans(papers, random_state)))
    reference = achievable(papers, embeddings, random_state)
    _LOG.info("%s: supervised and k-means done", corpus.name)
    seeds = None
    if stable:
        seeds = stability(papers, embeddings, config, cache_dir)
        seeds["cost"] = clustering_cost(papers, embeddings, config)
    _LOG.info("%s: seed stability done", corpus.name)
    return {
        "corpus": corpus.name,
        "papers": len(papers),
        "labels": len({p["label"] for p in papers}),
        "resolved": ours["settings"],
        "embedding": f"{config['embedding']['model']}, backend {resolve_backend(config['embedding']['backend'])}",
        "example_labels": ours["example_labels"],
        "label_naming": ours["label_naming"],
        "rows": rows,
        "achievable": {
            **reference,
            "ours": {"nmi": ours["labels"]["nmi"], "ari": ours["labels"]["ari"]},
            "bertopic": {"nmi": bertopic["labels"]["nmi"], "ari": bertopic["labels"]["ari"]},
        },
        "stability": seeds,
        "guided": guided(papers, embeddings, config, encoder, cache_dir) if guide else None,
    }


def labels_benchmark(corpus: Path, cache_dir: Path) -> dict:
    """How well the labels name their topics (``label_naming``), the largest topics' labels beside
    their top 3 keywords, the group labels, and the labels kept across a rerun with a third year.
    """
    from papertopics.embed.encoders import load_model, resolve_backend

    config = default_config()
    papers = load_corpus(corpus)
    embeddings = cached_embeddings(papers, corpus, config["embedding"], cache_dir)
    encoder = load_model(config["embedding"]["model"], config["embedding"]["max_seq_length"])
    ours = run_ours(papers, embeddings, config, encoder, cache_dir, corpus)
    return {
        "corpus": corpus.name,
        "papers": len(papers),
        "embedding": f"{config['embedding']['model']}, backend {resolve_backend(config['embedding']['backend'])}",
        "nmi": ours["labels"]["nmi"] if ours.get("labels") else None,
        "naming": ours["label_naming"],
        "largest": ours["topic_labels"][:20],
        "all_topics": ours["topic_labels"],
        "groups": ours["group_labels"],
        "kept": label_kept_share(papers, embeddings, config, encoder, cache_dir),
    }


def labels_markdown(results: list[dict]) -> str:
    from bench.label_keywords import MIN_KEYWORD_PAPERS, MMR_CANDIDATES, MMR_DIVERSITY, MMR_WORDS

    lines = [
        "# Topic labels benchmark",
        "",
        "Written by `make quality` (`bench/quality.py --labels`). A label *names* its topic when one of its",
        "phrases equals one of the topic's reference names (case, hyphens and plural endings set aside) or",
        f"is at least {NAME_SIMILARITY} cosine-similar to one (the packaged model). A topic's reference names",
        f"are the names at least {REFERENCE_MIN_PAPERS} of its papers carry, at least {REFERENCE_MIN_LIFT:g} times as",
        f"often there as in the corpus, the {REFERENCE_NAMES} most used. Figures are shares of the papers whose",
        "topic's label names it (topics weighted by size); *top 3 words* is the label BERTopic prints,",
        "the first three c-TF-IDF keywords of the same topics; *MMR* is the first",
        f"{MMR_WORDS} keywords of BERTopic's `MaximalMarginalRelevance(diversity={MMR_DIVERSITY})` over the",
        f"{MMR_CANDIDATES} best c-TF-IDF words (as `topics.representation: mmr` gives them).",
        "",
        "Against **free author keywords** (the COLM/CoRL corpus, keywords the authors typed), a label",
        f"phrase is a keyword of its topic when at least {MIN_KEYWORD_PAPERS} of the topic's papers carry it or a",
        "close variant: the same set of words once both are lower-cased, punctuation read as spaces, stop",
        "words dropped and each word singular (a parenthesised acronym counts on its own:",
        '"Parameter-Efficient Fine-Tuning (PEFT)" is both "parameter efficient fine tuning" and "peft").',
        "The hit rate is the share of papers whose topic's label has such a phrase; the phrase share is",
        "the share of label phrases that are such keywords, each weighed by its topic's size.",
        "",
        "Title phrases are a held-out reference for every corpus: phrases of 1-4 words of the papers'",
        "titles, which the labeller never reads (it reads abstracts). They favour single words, so the",
        "top 3 words do well.",
        "",
    ]
    for result in results:
        lines += [
            f"## {result['corpus']} ({result['papers']} papers)",
            "",
            f"Embeddings: {result['embedding']}."
            + (
                f" NMI to the labels: {result['nmi']:.3f} (the labels move no paper)."
                if result["nmi"] is not None
                else ""
            ),
            "",
            "| reference | ours | top 3 words | MMR |",
            "|---|---:|---:|---:|",
            *(
                f"| {r['reference']} | {r['ours']:.2f} | {r['top3_words']:.2f} | {r.get('mmr', float('nan')):.2f} |"
                for r in result["naming"]
            ),
            "",
            "The largest topics:",
            "",
            "| topic | papers | label | top 3 words | MMR |",
            "|---:|---:|---|---|---|",
            *(
                f"| {t['topic']} | {t['size']} | {t['label']} | {', '.join(t['top_words'])} "
                f"| {', '.join(t.get('mmr', []))} |"
                for t in result["largest"]
            ),
            "",
            f"Group labels: {'; '.join(result['groups'])}.",
            "",
        ]
        kept = result["kept"]
        if kept:
            lines += [
                f"Labels kept across a rerun: the topics of {'-'.join(map(str, kept['years'][0]))} "
                f"({kept['topics_before']} topics), then of {'-'.join(map(str, kept['years'][1]))} with the "
                f"history of the first run: {kept['kept_id']} topics kept their id, {kept['kept_label']} of them "
                f"their label too ({kept['share']:.0%}). Relabelled: "
                + ("; ".join(f"{r['id']}: {r['from']} → {r['to']}" for r in kept["relabelled"]) or "none")
                + ".",
                "",
            ]
    return "\n".join(lines)


def markdown(results: list[dict]) -> str:
    lines = [
        "# Topic quality benchmark",
        "",
        "Written by `make quality` (bench/quality.py); labels are used for scoring only.",
        "",
    ]
    for result in results:
        lines += [
            f"## {result['corpus']} ({result['papers']} papers, {result['labels']} labels)",
            "",
            f"Embeddings: {result['embedding']}. Sizes our `auto` knobs resolved to: {result['resolved']}. "
            f"First topic labels: {'; '.join(result['example_labels'])}.",
            "",
            "| variant | NMI | ARI | homogeneity | topics | outliers | left unassigned | NPMI | diversity |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in result["rows"]:
            lines.append(
                f"| {r['variant']} | {r['nmi']:.3f} | {r['ari']:.3f} | {r['homogeneity']:.3f} | {r['topics']} "
                f"| {r['outliers']:.1%} | {r['unassigned']:.1%} | {r['npmi']:.3f} | {r['diversity']:.3f} |"
            )
        naming = "; ".join(
            f"against {r['reference']}, ours {r['ours']:.2f}, top 3 words {r['top3_words']:.2f}"
            for r in result.get("label_naming", [])
        )
        lines += [
            "",
            f"Labels that name their topics ([quality-labels.md](quality-labels.md)): {naming}.",
            "",
        ]
        lines += [*achievable_table(result), *stability_table(result["stability"]), *guided_table(result)]
    lines.append(
        "Outliers: share of papers HDBSCAN left unclustered; left unassigned: share still without a topic "
        "(our defaults assign outliers to their nearest topic; BERTopic's defaults keep them as one cluster, -1, "
        "and NMI/ARI score that cluster like any other). "
        "NPMI: gensim c_npmi of each topic's top 10 words over the cleaned abstracts, averaged over topics. "
        "Diversity: unique share of all topics' top 10 words."
    )
    return "\n".join(lines) + "\n"


def achievable_table(result: dict) -> list[str]:
    """Our NMI beside what the same embeddings allow: a supervised classifier and k-means."""
    figures = result["achievable"]
    supervised = figures["supervised"]["nmi"]
    lines = [
        f"Against what the embeddings allow (supervised: 5-fold cross-validated logistic regression on the "
        f"embeddings, accuracy {figures['supervised']['accuracy']:.3f}; k-means with k = {result['labels']} "
        f"on the raw embeddings):",
        "",
        "| | NMI | ARI | share of the supervised NMI |",
        "|---|---:|---:|---:|",
    ]
    for name, key in (
        ("supervised", "supervised"),
        ("k-means on the raw embeddings", "kmeans_raw"),
        ("papertopics defaults", "ours"),
        ("BERTopic defaults", "bertopic"),
    ):
        lines.append(
            f"| {name} | {figures[key]['nmi']:.3f} | {figures[key]['ari']:.3f} | {figures[key]['nmi'] / supervised:.0%} |"
        )
    return lines + [""]


def stability_table(stability: dict | None) -> list[str]:
    if not stability:
        return []
    lines = [
        f"Seed stability over UMAP seeds {'/'.join(map(str, stability['seeds']))} (mean over the seed pairs; "
        "each paper in its topic after outliers are joined, for ours; BERTopic's outliers as one cluster):",
        "",
        "| | topics per seed | mean pairwise ARI | mean pairwise NMI | NMI to the labels (min-max) |",
        "|---|---|---:|---:|---|",
    ]
    rows = (
        ("papertopics defaults", "ours"),
        ("the same, one UMAP run (`umap.consensus_runs: 1`)", "one_run"),
        ("BERTopic defaults", "bertopic"),
    )
    for name, key in rows:
        figures = stability[key]
        to_labels = figures["nmi_to_labels"]
        lines.append(
            f"| {name} | {min(figures['topics'])}-{max(figures['topics'])} | {figures['ari']:.3f} | {figures['nmi']:.3f} "
            f"| {min(to_labels):.3f}-{max(to_labels):.3f} |"
        )
    cost = stability["cost"]
    lines += [
        "",
        f"Cost of the {cost['runs']} joined UMAP runs (`umap.consensus_runs`): reduce and cluster work "
        f"{cost['consensus_s']:.1f} s against {cost['one_run_s']:.1f} s for one run, measured side by side: "
        f"{cost['ratio']:.2f}x.",
    ]
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "corpora", nargs="+", type=Path, help="labelled .jsonl.gz corpora (id, title, abstract, label)"
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "papertopics-quality",
        help="where embeddings are cached between runs (outside the repository)",
    )
    parser.add_argument(
        "--output", type=Path, default=REPO / "bench" / "quality", help="writes OUTPUT.md and OUTPUT.json"
    )
    parser.add_argument(
        "--no-ablations",
        action="store_true",
        help="skip the rows that take back one change at a time (made for the first corpus only)",
    )
    parser.add_argument(
        "--no-stability", action="store_true", help="skip the seed-stability runs (five UMAP seeds each)"
    )
    parser.add_argument(
        "--guided",
        action="store_true",
        help="also score guided topics, the corpus's label names as the guide",
    )
    parser.add_argument(
        "--limit", type=int, help="score only the first LIMIT papers of each corpus (a quick check)"
    )
    parser.add_argument(
        "--labels",
        action="store_true",
        help="only score the topic labels (naming, labels kept across a rerun); writes OUTPUT.md/json",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    missing = [str(c) for c in args.corpora if not c.exists()]
    if missing:
        raise SystemExit(
            f"corpus not found: {', '.join(missing)} (the labelled corpora live in ../shared/corpora)"
        )
    if args.labels:
        found = [labels_benchmark(corpus, args.cache_dir) for corpus in args.corpora]
        storage.write_json(args.output.with_suffix(".json"), found)
        storage.write_text(args.output.with_suffix(".md"), labels_markdown(found))
        print(labels_markdown(found))
        return
    results = [
        benchmark(
            corpus,
            args.cache_dir,
            not args.no_ablations and corpus == args.corpora[0],
            args.limit,
            stable=not args.no_stability,
            guide=args.guided,
        )
        for corpus in args.corpora
    ]
    storage.write_json(args.output.with_suffix(".json"), results)
    storage.write_text(args.output.with_suffix(".md"), markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
