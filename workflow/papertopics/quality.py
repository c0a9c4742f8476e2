"""Topic-quality metrics: NPMI coherence, topic diversity, outlier share, agreement with labels.

NPMI and diversity follow the BERTopic paper's evaluation (gensim's ``c_npmi`` over the
tokenised corpus; diversity = unique words / all words among the topics' top words), so our
figures can be set beside the ones it reports.
"""

from __future__ import annotations

import math

import numpy as np

OUTLIER = -1


def corpus_tokenizer():
    """The unigram analyser the keywords come from: lower-case words of 2+ characters, English
    stop words removed always, so that scores stay comparable whatever ``topics.stop_words`` is."""
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(ngram_range=(1, 1), stop_words="english").build_analyzer()


def topic_words(keyphrases: list[str], tokenize, count: int) -> list[str]:
    """A topic's first ``count`` distinct words, taken from its keyphrases in rank order.

    Keyphrases may be bigrams ("neural network"); coherence is measured on words, as in
    the BERTopic paper, so a phrase contributes each of its words once.
    """
    words: list[str] = []
    for phrase in keyphrases:
        for word in tokenize(phrase):
            if word not in words:
                words.append(word)
                if len(words) == count:
                    return words
    return words


def topic_diversity(word_lists: list[list[str]]) -> float:
    """Share of unique words among all topics' words: 1 when no word repeats across topics."""
    words = [word for words in word_lists for word in words]
    return len(set(words)) / len(words) if words else math.nan


def npmi_coherence(word_lists: list[list[str]], tokenized_docs: list[list[str]]) -> list[float]:
    """NPMI coherence of each topic (gensim ``c_npmi``, sliding window of 10 words).

    Words that never occur in the corpus are left out of their topic; a topic with fewer
    than two known words gets NaN.
    """
    from gensim.corpora import Dictionary
    from gensim.models.coherencemodel import CoherenceModel

    dictionary = Dictionary(tokenized_docs)
    known = [[word for word in words if word in dictionary.token2id] for words in word_lists]
    scored = [i for i, words in enumerate(known) if len(words) >= 2]
    result = [math.nan] * len(word_lists)
    if not scored:
        return result
    model = CoherenceModel(
        topics=[known[i] for i in scored],
        texts=tokenized_docs,
        dictionary=dictionary,
        coherence="c_npmi",
        topn=max(len(known[i]) for i in scored),
        processes=1,
    )
    for i, value in zip(scored, model.get_coherence_per_topic()):
        result[i] = float(value)
    return result


def label_agreement(labels: list[str], topics: np.ndarray) -> dict:
    """NMI, ARI and homogeneity of topics against human labels (each topic id, -1 too, is a cluster)."""
    from sklearn.metrics import adjusted_rand_score, homogeneity_score, normalized_mutual_info_score

    return {
        "nmi": float(normalized_mutual_info_score(labels, topics)),
        "ari": float(adjusted_rand_score(labels, topics)),
        "homogeneity": float(homogeneity_score(labels, topics)),
        "labelled_papers": len(labels),
        "labels": len(set(labels)),
    }


def mean_ignoring_nan(values: list[float]) -> float:
    finite = [v for v in values if not math.isnan(v)]
    return float(np.mean(finite)) if finite else math.nan


def evaluate_topics(
    texts: list[str],
    topics: np.ndarray,
    was_outlier: np.ndarray,
    keyphrases: dict[int, list[str]],
    top_n_words: int,
    labels: list[str] | None = None,
    group_of: dict[int, int] | None = None,
) -> dict:
    """Every quality figure for one topic model; ``keyphrases`` maps each real topic to its keywords,
    ``group_of`` each topic to its group in the coarse layer (if there is one)."""
    tokenize = corpus_tokenizer()
    real = sorted(t for t in keyphrases if t != OUTLIER)
    word_lists = [topic_words(keyphrases[t], tokenize, top_n_words) for t in real]
    coherence = npmi_coherence(word_lists, [tokenize(text) for text in texts])
    metrics = {
        "papers": len(texts),
        "topics": len(real),
        "outlier_share": float(np.mean(was_outlier)) if len(texts) else 0.0,
        "unassigned_share": float(np.mean(np.asarray(topics) == OUTLIER)) if len(texts) else 0.0,
        "npmi": mean_ignoring_nan(coherence),
        "diversity": topic_diversity(word_lists),
        "top_n_words": top_n_words,
        "per_topic": [
            {"topic": t, "npmi": None if math.isnan(c) else c, "words": words}
            for t, c, words in zip(real, coherence, word_lists)
        ],
        "labels": None,
        "coarse": None,
    }
    keep = [i for i, label in enumerate(labels) if label] if labels is not None else []
    if keep:
        metrics["labels"] = label_agreement([labels[i] for i in keep], np.asarray(topics)[keep])
    if group_of:
        groups = np.array([group_of.get(t, OUTLIER) for t in np.asarray(topics).tolist()])
        metrics["coarse"] = {
            "groups": len(set(group_of.values())),
            "labels": label_agreement([labels[i] for i in keep], groups[keep]) if keep else None,
        }
    return metrics
