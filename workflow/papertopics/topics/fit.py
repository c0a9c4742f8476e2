"""Topic representations with BERTopic on the precomputed embeddings and cluster labels.

BERTopic's own UMAP and HDBSCAN steps are passed through (BaseDimensionalityReduction,
BaseCluster): the reduce and cluster stages already did that work, cached, upstream.
"""

from __future__ import annotations

import re

import numpy as np

from papertopics.mapping.cluster import OUTLIER, topic_centroids
from papertopics.settings import TopicStageSettings


def flag_column(column) -> np.ndarray:
    """A true/false column of ``papers.csv`` (``outlier``, ``placed``) as booleans, whether read
    as booleans or as text.
    """
    return np.char.lower(np.asarray(column, dtype=str)) == "true"


REPRESENTATIONS = ("ctfidf", "keybert", "mmr")


def shared_keywords_first(scores: np.ndarray, shares: np.ndarray, min_share: float, count: int) -> list[int]:
    """Indices of a topic's ``count`` keyword candidates: words with a positive c-TF-IDF ``score``
    that at least ``min_share`` of the topic's papers use, best first, then (only if too few
    are left) the other positive-scoring words, best first.
    """
    order = np.argsort(-scores, kind="stable")
    order = order[scores[order] > 0]
    common = shares[order] >= min_share
    return np.concatenate([order[common], order[~common]])[:count].tolist()


class SharedKeywords:
    """Keyword candidates that a good share of a topic's papers use.

    Damped c-TF-IDF (``reduce_frequent_words``) favours words distinctive of a topic, but also
    words that one or two of its papers repeat: they make incoherent, unrepresentative labels.
    Used as the first of BERTopic's chained representation models (a list), so MMR or
    KeyBERTInspired, when chosen, re-rank the candidates it keeps.

    BERTopic asks again for the papers of each period (``topics_over_time``): each distinct text
    is read by the vectorizer once, for as long as its vocabulary is the same.
    """

    def __init__(self, min_share: float):
        self.min_share = min_share
        self._vocabulary = None
        self._row_of: dict[str, int] = {}
        self._used_blocks: list = []

    def _words_used(self, vectorizer, documents: list[str]):
        """The vocabulary, and which of its words each document uses (a sparse 0/1 matrix)."""
        # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
        import scipy.sparse as sp

        if self._vocabulary is not vectorizer.vocabulary_:
            self._vocabulary, self._row_of, self._used_blocks = vectorizer.vocabulary_, {}, []
        unread = [text for text in dict.fromkeys(documents) if text not in self._row_of]
        if unread:
            self._row_of.update({text: len(self._row_of) + i for i, text in enumerate(unread)})
            self._used_blocks.append((vectorizer.transform(unread) > 0).astype(np.float64))
        used = sp.vstack(self._used_blocks, format="csr")
        return vectorizer.get_feature_names_out(), used[[self._row_of[text] for text in documents]]

    def extract_topics(self, topic_model, documents, c_tf_idf, topics: dict) -> dict:
        """Each topic's c-TF-IDF keywords, those that ``min_share`` of its papers use ranked first."""
        # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
        import scipy.sparse as sp

        # c_tf_idf's rows are the topics in sorted order (as BERTopic builds and reads it).
        labels = sorted(int(t) for t in documents.Topic.unique())
        row_of = {label: row for row, label in enumerate(labels)}
        words, used = self._words_used(topic_model.vectorizer_model, documents.Document.tolist())
        rows = np.array([row_of[int(t)] for t in documents.Topic])
        membership = sp.csr_matrix(
            (np.ones(len(rows)), (rows, np.arange(len(rows)))), shape=(len(labels), len(rows))
        )
        sizes = np.asarray(membership.sum(axis=1)).ravel()
        # Each row's columns in order, once: a row's words are then ranked as the vocabulary orders them.
        shares = sp.csr_matrix(sp.diags(1 / sizes) @ (membership @ used)).sorted_indices()
        scores = sp.csr_matrix(c_tf_idf).sorted_indices()
        kept = {}
        for label, candidates in topics.items():
            row = row_of[int(label)]
            # Only the words a topic's c-TF-IDF row stores can score above 0: ranking them, not
            # the whole vocabulary (a million words at 100,000 papers), once per topic and period.
            columns, weights = _stored(scores, row)
            chosen = shared_keywords_first(
                weights, _values_at(shares, row, columns), self.min_share, len(candidates)
            )
            kept[label] = [(words[columns[i]], float(weights[i])) for i in chosen] or candidates
        return kept


def _stored(matrix, row: int) -> tuple[np.ndarray, np.ndarray]:
    """A CSR ``matrix`` row's stored columns (in column order, the indices being sorted) and values."""
    cells = slice(matrix.indptr[row], matrix.indptr[row + 1])
    return matrix.indices[cells], matrix.data[cells]


def _values_at(matrix, row: int, columns: np.ndarray) -> np.ndarray:
    """A CSR ``matrix`` row's values at ``columns`` (0 where it stores none); its indices sorted."""
    stored, values = _stored(matrix, row)
    if not len(stored):
        return np.zeros(len(columns))
    at = np.minimum(np.searchsorted(stored, columns), len(stored) - 1)
    return np.where(stored[at] == columns, values[at], 0.0)


def representation_model(
    name: str, top_n_words: int, mmr_diversity: float, min_keyword_share: float = 0.0, random_state: int = 42
):
    """BERTopic's keyword re-ranking on top of c-TF-IDF: none, KeyBERTInspired or MMR, after
    keeping to keywords at least ``min_keyword_share`` of a topic's papers use (0: no such rule).
    """
    # BERTopic loads only in the topics job.
    from bertopic.representation import KeyBERTInspired, MaximalMarginalRelevance

    if name == "keybert":
        rerank = [KeyBERTInspired(top_n_words=top_n_words, random_state=random_state)]
    elif name == "mmr":
        rerank = [MaximalMarginalRelevance(diversity=mmr_diversity, top_n_words=top_n_words)]
    elif name == "ctfidf":
        rerank = []
    else:
        raise ValueError(f"topics.representation must be one of {REPRESENTATIONS}, not {name!r}")
    chain = ([SharedKeywords(min_keyword_share)] if min_keyword_share > 0 else []) + rerank
    return chain or None


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


def singular(word: str) -> str:
    """A word's singular by the common English plural endings (policies → policy, graphs → graph)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_TOKEN = re.compile(r"(?u)\b\w\w+\b")
# Words on either side of these are not one phrase: "networks (GNNs)" does not make "networks gnns".
PHRASE_BREAK = re.compile(r"[^\w\s'-]+")


def keyword_text(texts: list[str]) -> str:
    """Texts as the keyword vectorizer reads them (lower case, words of 2+ characters), one
    stretch between punctuation marks per line, words separated by single spaces.
    """
    stretches = (_TOKEN.findall(stretch) for text in texts for stretch in PHRASE_BREAK.split(text.lower()))
    return "\n".join(" ".join(words) for words in stretches if words)


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


def topic_groups(
    embeddings: np.ndarray, topics: np.ndarray, n_groups: int
) -> tuple[dict[int, int], list[dict]]:
    """A coarser layer: topics merged, by average-linkage clustering of their centroids
    (cosine), into ``n_groups`` groups. Returns topic → group and the groups (number, topics
    largest first, size; labelled later, ``papertopics.topics.label_groups.group_labels``), largest first.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.cluster.hierarchy import fcluster, linkage

    real = sorted(t for t in set(topics.tolist()) if t != OUTLIER)
    if n_groups < 2 or len(real) <= n_groups:
        return {}, []
    tree = linkage(
        topic_centroids(embeddings, topics, real).astype(np.float64), method="average", metric="cosine"
    )
    clusters = fcluster(tree, t=n_groups, criterion="maxclust")
    sizes = {t: int((topics == t).sum()) for t in real}
    members: dict[int, list[int]] = {}
    for topic, cluster in zip(real, clusters.tolist(), strict=True):
        members.setdefault(cluster, []).append(topic)
    ordered = sorted(members.values(), key=lambda ts: (-sum(sizes[t] for t in ts), ts[0]))
    group_of, groups = {}, []
    for number, group_topics in enumerate(ordered):
        group_topics = sorted(group_topics, key=lambda t: (-sizes[t], t))
        groups.append(
            {
                "group": number,
                "topics": group_topics,
                "size": sum(sizes[t] for t in group_topics),
            }
        )
        group_of.update({t: number for t in group_topics})
    return group_of, groups
