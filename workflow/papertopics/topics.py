"""Topic representations with BERTopic on the precomputed embeddings and cluster labels.

BERTopic's own UMAP and HDBSCAN steps are passed through (BaseDimensionalityReduction,
BaseCluster): the reduce and cluster stages already did that work, cached, upstream.
"""

from __future__ import annotations

import re

import numpy as np

OUTLIER = -1
_NUMBER = re.compile(r"^[\d.,%]+$")


def fit_topic_model(
    texts: list[str],
    embeddings: np.ndarray,
    cluster_labels: np.ndarray,
    embedding_model,
    ngram_range: tuple[int, int],
    stop_words: str | None,
    top_n_words: int,
    reduce_outliers: bool,
):
    """Fit BERTopic without refitting UMAP/HDBSCAN; return (model, topics, was_outlier)."""
    from bertopic import BERTopic
    from bertopic.cluster import BaseCluster
    from bertopic.dimensionality import BaseDimensionalityReduction
    from sklearn.feature_extraction.text import CountVectorizer

    def vectorizer():
        return CountVectorizer(ngram_range=tuple(ngram_range), stop_words=stop_words)

    model = BERTopic(
        embedding_model=embedding_model,
        umap_model=BaseDimensionalityReduction(),
        hdbscan_model=BaseCluster(),
        vectorizer_model=vectorizer(),
        top_n_words=top_n_words,
    )
    topics, _ = model.fit_transform(texts, embeddings=embeddings, y=np.asarray(cluster_labels))
    topics = np.asarray(topics)
    was_outlier = topics == OUTLIER
    if reduce_outliers and was_outlier.any() and (~was_outlier).any():
        topics = np.asarray(
            model.reduce_outliers(texts, topics.tolist(), strategy="embeddings", embeddings=embeddings)
        )
        model.update_topics(texts, topics=topics.tolist(), vectorizer_model=vectorizer(), top_n_words=top_n_words)
    return model, topics, was_outlier


def _word_stems(phrase: str) -> frozenset[str]:
    """Words of a phrase with a plural 's' dropped, so that 'model' and 'models' match."""
    return frozenset(re.sub(r"(?<=[a-z]{3})s$", "", word) for word in phrase.split())


def readable_label(keywords: list[str], max_phrases: int = 3) -> str:
    """A label of a few keyphrases, skipping numbers and phrases another one already covers."""
    chosen: list[str] = []
    for keyword in keywords:
        if not keyword or _NUMBER.match(keyword):
            continue
        stems = _word_stems(keyword)
        covering = [i for i, phrase in enumerate(chosen) if stems <= _word_stems(phrase)]
        if covering:
            continue
        covered = [i for i, phrase in enumerate(chosen) if _word_stems(phrase) < stems]
        if covered:
            chosen[covered[0]] = keyword
            chosen = [p for i, p in enumerate(chosen) if i not in covered[1:]]
            continue
        chosen.append(keyword)
        if len(chosen) == max_phrases:
            break
    return ", ".join(chosen) if chosen else "(no keywords)"


def representative_ids(
    ids: list[str], embeddings: np.ndarray, topics: np.ndarray, topic: int, count: int
) -> list[str]:
    """The ``count`` papers of a topic closest (cosine) to the topic's centroid."""
    members = np.flatnonzero(topics == topic)
    centroid = embeddings[members].mean(axis=0)
    centroid /= np.linalg.norm(centroid) or 1.0
    order = np.argsort(-(embeddings[members] @ centroid), kind="stable")
    return [ids[i] for i in members[order[:count]]]


def describe_topics(
    model, ids: list[str], embeddings: np.ndarray, topics: np.ndarray, n_representative_docs: int
) -> list[dict]:
    """One record per topic, outliers (-1) last: label, weighted keywords, size, examples."""
    records = []
    present = sorted(set(topics.tolist()), key=lambda t: (t == OUTLIER, t))
    for topic in present:
        keywords = [(word, float(weight)) for word, weight in (model.get_topic(topic) or []) if word]
        size = int((topics == topic).sum())
        label = "Outliers" if topic == OUTLIER else readable_label([w for w, _ in keywords])
        records.append(
            {
                "topic": int(topic),
                "label": label,
                "keywords": keywords,
                "size": size,
                "share": size / len(topics),
                "representative_ids": representative_ids(ids, embeddings, topics, topic, n_representative_docs),
            }
        )
    return records
