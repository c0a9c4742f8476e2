"""BERTopic's keyword representation for the topics: c-TF-IDF's candidates, those a good share of
a topic's papers use first (``SharedKeywords``, a representation model in BERTopic's plug-in
protocol: ``extract_topics``), then re-ranked by KeyBERTInspired or MMR when chosen.
"""

from __future__ import annotations

import numpy as np


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

    rerank = []  # "ctfidf"; the config's schema admits only the three names
    if name == "keybert":
        rerank = [KeyBERTInspired(top_n_words=top_n_words, random_state=random_state)]
    elif name == "mmr":
        rerank = [MaximalMarginalRelevance(diversity=mmr_diversity, top_n_words=top_n_words)]
    chain = ([SharedKeywords(min_keyword_share)] if min_keyword_share > 0 else []) + rerank
    return chain or None
