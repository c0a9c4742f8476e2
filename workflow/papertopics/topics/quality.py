"""Topic-quality metrics: NPMI coherence, topic diversity, outlier share, agreement with labels.

NPMI and diversity follow the BERTopic paper's evaluation (gensim's ``c_npmi`` over the
tokenised corpus; diversity = unique words / all words among the topics' top words), so our
figures can be set beside the ones it reports. NPMI is the same measure as gensim's, computed
with numpy and scipy instead of gensim's per-window Python loop; a test checks that the two
agree topic by topic.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from papertopics.mapping.cluster import OUTLIER

NPMI_WINDOW = 10  # gensim's c_npmi window, in tokens
NPMI_EPSILON = 1e-12  # gensim's smoothing of the joint probability


def corpus_tokenizer():
    """The unigram analyser the keywords come from: lower-case words of 2+ characters, English
    stop words removed always, so that scores stay comparable whatever ``topics.stop_words`` is.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
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
    """NPMI coherence of each topic: gensim's ``c_npmi`` (sliding window of 10 words), vectorised.

    Every window of ``NPMI_WINDOW`` consecutive tokens of a document is one virtual document (a
    document shorter than that, even an empty one, is one window); p(w) and p(w, w') are the shares
    of windows holding w, and both w and w'. A topic's score is the mean NPMI over the ordered pairs
    of its words (gensim's one-one segmentation). Words that never occur in the corpus are left out
    of their topic; a topic with fewer than two known words gets NaN.
    """
    column = {word: i for i, word in enumerate(sorted({word for words in word_lists for word in words}))}
    co_windows, windows = window_co_occurrences(tokenized_docs, column)
    word_windows = np.diagonal(co_windows)
    result = []
    for words in word_lists:
        known = [column[word] for word in words if word_windows[column[word]] > 0]
        if len(known) < 2:
            result.append(math.nan)
            continue
        first, second = np.array(
            [(a, b) for i, a in enumerate(known) for j, b in enumerate(known) if i != j]
        ).T
        # gensim's expressions, in its order: PMI with the smoothed joint probability, over -log of it.
        joint = co_windows[first, second] / windows + NPMI_EPSILON
        pmi = np.log(joint / ((word_windows[first] / windows) * (word_windows[second] / windows)))
        result.append(float(np.mean(pmi / -np.log(joint))))
    return result


def window_co_occurrences(tokenized_docs: list[list[str]], column: dict[str, int]) -> tuple[np.ndarray, int]:
    """How many sliding windows hold each pair of ``column``'s words (the diagonal: each word alone),
    and how many windows there are, counted as gensim's ``WordOccurrenceAccumulator`` counts them.

    gensim updates a window's word set incrementally: sliding on by one, it drops the token that
    left and adds the one that entered, so a word whose earlier copy leaves the window is dropped
    even while a later copy is still inside, until another copy enters. That rule is replayed here
    so that the scores stay gensim's: a copy at position j of its document enters at window
    max(0, j - NPMI_WINDOW + 1) and leaves at window j + 1; per document and word, the events are
    taken in window order (at the same window, a leave before an enter), and the word is held from
    each enter until its next event. The held spans become a sparse window x word matrix H, and
    H'H counts the windows holding each pair.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy import sparse

    lengths = np.fromiter(map(len, tokenized_docs), dtype=np.int64, count=len(tokenized_docs))
    doc_windows = np.maximum(lengths - NPMI_WINDOW + 1, 1)
    all_tokens = itertools.chain.from_iterable(tokenized_docs)
    token_word = np.fromiter(
        map(column.get, all_tokens, itertools.repeat(-1)), dtype=np.int64, count=lengths.sum()
    )
    at = np.flatnonzero(token_word >= 0)
    doc_ends = np.cumsum(lengths)
    doc = np.searchsorted(doc_ends, at, side="right")
    position = at - (doc_ends - lengths)[doc]
    leaves = position + 1 < doc_windows[doc]  # a copy in the last window never leaves

    event_doc = np.concatenate([doc, doc[leaves]])
    event_word = np.concatenate([token_word[at], token_word[at][leaves]])
    event_window = np.concatenate([np.maximum(position - NPMI_WINDOW + 1, 0), position[leaves] + 1])
    is_enter = np.concatenate([np.ones(len(at), dtype=bool), np.zeros(int(leaves.sum()), dtype=bool)])
    order = np.lexsort((is_enter, event_window, event_word, event_doc))
    event_doc, event_word, event_window, is_enter = (
        a[order] for a in (event_doc, event_word, event_window, is_enter)
    )

    until = doc_windows[event_doc]  # the word's next event, or the end of its document
    same_word_next = (event_doc[1:] == event_doc[:-1]) & (event_word[1:] == event_word[:-1])
    until[:-1][same_word_next] = event_window[1:][same_word_next]
    held = is_enter & (until > event_window)
    span = until[held] - event_window[held]
    first_row = (np.cumsum(doc_windows) - doc_windows)[event_doc[held]] + event_window[held]
    rows = np.repeat(first_row - (np.cumsum(span) - span), span) + np.arange(span.sum())
    windows = int(doc_windows.sum())
    holds = sparse.csr_matrix(
        (np.ones(len(rows), dtype=np.int64), (rows, np.repeat(event_word[held], span))),
        shape=(windows, len(column)),
    )
    return (holds.T @ holds).toarray(), windows


def label_agreement(labels: list[str], topics: np.ndarray) -> dict:
    """NMI, ARI and homogeneity of topics against human labels (each topic id, -1 too, is a cluster)."""
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from sklearn.metrics import adjusted_rand_score, homogeneity_score, normalized_mutual_info_score

    return {
        "nmi": float(normalized_mutual_info_score(labels, topics)),
        "ari": float(adjusted_rand_score(labels, topics)),
        "homogeneity": float(homogeneity_score(labels, topics)),
        "labelled_papers": len(labels),
        "labels": len(set(labels)),
    }


def mean_ignoring_nan(values: list[float]) -> float:
    """The mean of the values that are not NaN (NaN when none are)."""
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
    ``group_of`` each topic to its group in the coarse layer (if there is one).
    """
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
            for t, c, words in zip(real, coherence, word_lists, strict=True)
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
