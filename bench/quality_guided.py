"""The topic-quality benchmark's guided topics: the corpus's label names as the guide, and the
alternatives tried (bench/quality.py --guided).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.quality_runs import ours_clusters

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
    from papertopics.mapping.cluster import topic_centroids
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
    from papertopics.mapping.cluster import assign_outliers
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
