"""Topic representations with BERTopic on the precomputed embeddings and cluster labels.

BERTopic's own UMAP and HDBSCAN steps are passed through (BaseDimensionalityReduction,
BaseCluster): the reduce and cluster stages already did that work, cached, upstream.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

import numpy as np

from papertopics.mapping.cluster import OUTLIER, topic_centroids
from papertopics.settings import TopicStageSettings
from papertopics.topics.representation import representation_model


def fit_topic_model(
    texts: list[str],
    embeddings: np.ndarray,
    topics: np.ndarray,
    embedding_model,
    keywords: TopicStageSettings,
):
    """Fit BERTopic on given topics, without refitting UMAP or HDBSCAN.

    BERTopic numbers the topics by size, largest first; ``topics`` keeps its own numbering.

    Args:
        texts: the papers' texts (abstracts), the documents c-TF-IDF reads.
        embeddings: the papers' embeddings, one row per text.
        topics: each paper's topic (``OUTLIER`` for a paper without one).
        embedding_model: the sentence-transformers model, or None; BERTopic gets it only for the
            ``keybert`` and ``mmr`` representations.
        keywords: how the keywords are made.

    Returns:
        The fitted model and each paper's topic in the model's numbering.
    """
    with _without_unused_backends():
        # BERTopic loads only in the topics job.
        from bertopic import BERTopic
    from bertopic.cluster import BaseCluster
    from bertopic.dimensionality import BaseDimensionalityReduction
    from bertopic.vectorizers import ClassTfidfTransformer
    from sklearn.feature_extraction.text import CountVectorizer

    model = _bertopic_with_centroid_representatives(BERTopic, embeddings)(
        # Only the representations that embed keywords get the model: given one, BERTopic stops
        # deleting punctuation before c-TF-IDF ("multi-label" stays two words), so passing it
        # otherwise would change the keywords and labels.
        embedding_model=embedding_model if needs_embedding_model(keywords.representation) else None,
        umap_model=BaseDimensionalityReduction(),
        hdbscan_model=BaseCluster(),
        vectorizer_model=_naming_words_once(CountVectorizer)(
            ngram_range=tuple(keywords.ngram_range), stop_words=keywords.stop_words
        ),
        ctfidf_model=ClassTfidfTransformer(reduce_frequent_words=keywords.reduce_frequent_words),
        representation_model=representation_model(
            keywords.representation, keywords.top_n_words, keywords.mmr_diversity, keywords.min_keyword_share
        ),
        top_n_words=keywords.top_n_words,
    )
    model_topics, _ = model.fit_transform(texts, embeddings=embeddings, y=np.asarray(topics))
    return model, np.asarray(model_topics)


# What BERTopic's package imports and this stage never calls: transformers for its text-generation
# and zero-shot representations, torch for saving in the legacy .bin format (the topics stage saves
# safetensors through numpy). Both cost the topics job 4.5 of its 7.5 CPU seconds on the shipped
# dumps, whatever the corpus's size.
_UNUSED_BACKENDS = ("transformers", "torch")


@contextlib.contextmanager
def _without_unused_backends() -> Iterator[None]:
    """Import BERTopic as where transformers and torch are not installed (BERTopic's `--no-deps`
    install, which it supports: those representations are then named "not installed"): a None in
    ``sys.modules`` makes their import fail for the length of BERTopic's. A backend already loaded
    (the keybert and mmr representations load the embedding model first) is left as it is, and
    after the import both load as usual for whatever needs them.
    """
    # scikit-learn and SciPy first: their array-API helpers look torch up in sys.modules when they
    # load (SciPy's statistics draw examples for their docstrings), and must not find the None.
    import sklearn.utils.validation  # noqa: F401

    blocked = [name for name in _UNUSED_BACKENDS if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None
    try:
        yield
    finally:
        for name in blocked:
            del sys.modules[name]


def _naming_words_once(count_vectorizer_class):
    """scikit-learn's CountVectorizer that lists its vocabulary's words once per fit.

    BERTopic asks for them at every c-TF-IDF it computes: the fit's, and each period's in
    ``topics_over_time`` (the topics' wording per period). scikit-learn sorts the whole
    vocabulary each time it is asked: 0.7 s a time at 10,000 abstracts, 4 of the topics stage's
    24 s with five periods. The words are the same for as long as the vocabulary is.
    """

    class NamingWordsOnce(count_vectorizer_class):
        def get_feature_names_out(self, input_features=None):
            named = self.__dict__.get("_named")
            if named is None or named[0] is not self.vocabulary_:
                self._named = (self.vocabulary_, super().get_feature_names_out(input_features))
            return self._named[1]

    return NamingWordsOnce


def _bertopic_with_centroid_representatives(bertopic_class, embeddings: np.ndarray):
    """BERTopic whose representative documents are the 3 papers nearest each topic's centroid.

    The report picks its ``n_representative_docs`` the same way (``representative_ids``).
    BERTopic's own ranks a 500-paper sample per topic by c-TF-IDF, tokenising about the whole
    corpus once more.

    This overrides a private method because BERTopic 0.17.4 has no public hook for it:
    ``fit_transform`` always calls ``_save_representative_docs`` after ``_extract_topics``, with
    the sample (500) and count (3) fixed inside it; no constructor argument, representation
    model or fit argument replaces or skips it, and the public ``representative_docs_`` can only
    be set after the fit, once that work is done. The override is checked against the installed
    BERTopic by ``tests/test_embed_and_topics.py``.
    """

    class CentroidRepresentatives(bertopic_class):
        def _save_representative_docs(self, documents) -> None:
            texts = documents["Document"].tolist()
            rows = list(range(len(texts)))
            vectors, topics = embeddings[documents["ID"].to_numpy()], documents["Topic"].to_numpy()
            self.representative_docs_ = {
                int(topic): [texts[row] for row in representative_ids(rows, vectors, topics, topic, 3)]
                for topic in sorted(set(topics.tolist()))
            }

    return CentroidRepresentatives


def needs_embedding_model(representation: str) -> bool:
    """Whether a representation embeds keywords (KeyBERTInspired, MMR), so needs the model loaded."""
    return representation in ("keybert", "mmr")


def representative_ids(
    ids: list[str], embeddings: np.ndarray, topics: np.ndarray, topic: int, count: int
) -> list[str]:
    """The ``count`` papers of a topic closest (cosine) to the topic's centroid."""
    members = np.flatnonzero(topics == topic)
    centroid = topic_centroids(embeddings, topics, [topic])[0]
    order = np.argsort(-(embeddings[members] @ centroid), kind="stable")
    return [ids[i] for i in members[order[:count]]]


def topic_keywords(model, topics) -> dict[int, list[tuple[str, float]]]:
    """Each topic's weighted keywords from a fitted BERTopic model, by the model's topic number."""
    return {
        int(topic): [(word, float(weight)) for word, weight in (model.get_topic(topic) or []) if word]
        for topic in sorted(set(np.asarray(topics).tolist()))
    }


def describe_topics(
    keywords: dict[int, list[tuple[str, float]]],
    labels: dict[int, str],
    ids: list[str],
    embeddings: np.ndarray,
    topics: np.ndarray,
    n_representative_docs: int,
) -> list[dict]:
    """One record per topic, outliers (-1) last: label, weighted keywords, size, examples."""
    present = sorted(set(topics.tolist()), key=lambda t: (t == OUTLIER, t))
    records = []
    for topic in present:
        size = int((topics == topic).sum())
        records.append(
            {
                "topic": int(topic),
                "label": labels.get(OUTLIER, "Outliers") if topic == OUTLIER else labels[topic],
                "keywords": keywords[topic],
                "size": size,
                "share": size / len(topics),
                "representative_ids": representative_ids(
                    ids, embeddings, topics, topic, n_representative_docs
                ),
            }
        )
    return records
