"""Topic representations with BERTopic on the precomputed embeddings and cluster labels.

BERTopic's own UMAP and HDBSCAN steps are passed through (BaseDimensionalityReduction,
BaseCluster): the reduce and cluster stages already did that work, cached, upstream.
"""

from __future__ import annotations

import re

import numpy as np

OUTLIER = -1


def outlier_flags(column) -> np.ndarray:
    """The ``outlier`` column of ``papers.csv`` as booleans, whether read as booleans or as text."""
    return np.char.lower(np.asarray(column, dtype=str)) == "true"


_NUMBER = re.compile(r"^[\d.,%]+$")


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
    """

    def __init__(self, min_share: float):
        self.min_share = min_share

    def extract_topics(self, topic_model, documents, c_tf_idf, topics: dict) -> dict:
        """Each topic's c-TF-IDF keywords, those that ``min_share`` of its papers use ranked first."""
        import scipy.sparse as sp

        # c_tf_idf's rows are the topics in sorted order (as BERTopic builds and reads it).
        labels = sorted(int(t) for t in documents.Topic.unique())
        row_of = {label: row for row, label in enumerate(labels)}
        words = topic_model.vectorizer_model.get_feature_names_out()
        used = (topic_model.vectorizer_model.transform(documents.Document.tolist()) > 0).astype(np.float64)
        rows = np.array([row_of[int(t)] for t in documents.Topic])
        membership = sp.csr_matrix(
            (np.ones(len(rows)), (rows, np.arange(len(rows)))), shape=(len(labels), len(rows))
        )
        sizes = np.asarray(membership.sum(axis=1)).ravel()
        shares = sp.diags(1 / sizes) @ (membership @ used)
        kept = {}
        for label, candidates in topics.items():
            row = row_of[int(label)]
            scores = c_tf_idf[row].toarray().ravel()
            chosen = shared_keywords_first(
                scores, shares[row].toarray().ravel(), self.min_share, len(candidates)
            )
            kept[label] = [(words[i], float(scores[i])) for i in chosen] or candidates
        return kept


def representation_model(
    name: str, top_n_words: int, mmr_diversity: float, min_keyword_share: float = 0.0, random_state: int = 42
):
    """BERTopic's keyword re-ranking on top of c-TF-IDF: none, KeyBERTInspired or MMR, after
    keeping to keywords at least ``min_keyword_share`` of a topic's papers use (0: no such rule).
    """
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


def topic_centroids(embeddings: np.ndarray, topics: np.ndarray, topic_ids) -> np.ndarray:
    """Unit-length mean embedding of each topic in ``topic_ids``, one row each, in that order."""
    centroids = np.vstack([embeddings[topics == topic].mean(axis=0) for topic in topic_ids])
    norms = np.linalg.norm(centroids, axis=1, keepdims=True)
    return centroids / np.where(norms > 0, norms, 1.0)


def assign_outliers(embeddings: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each outlier (-1) moved to the topic whose centroid is most cosine-similar to it.

    This is BERTopic's ``reduce_outliers(strategy="embeddings")`` (centroid topic embeddings,
    threshold 0: a paper similar to no topic stays an outlier), done before the fit instead of
    after it, so that c-TF-IDF and the keywords are computed once rather than twice.
    """
    labels = np.asarray(labels)
    outliers = np.flatnonzero(labels == OUTLIER)
    topics = np.unique(labels[labels != OUTLIER])
    if not len(outliers) or not len(topics):
        return labels.copy()
    # Products with unit centroids: each row is its cosine similarities times the paper's norm,
    # so the best topic and the sign (similar to none) are the cosine's.
    similarity = embeddings[outliers] @ topic_centroids(embeddings, labels, topics).T
    assigned = labels.copy()
    assigned[outliers] = np.where(similarity.max(axis=1) > 0, topics[similarity.argmax(axis=1)], OUTLIER)
    return assigned


def fit_topic_model(
    texts: list[str],
    embeddings: np.ndarray,
    cluster_labels: np.ndarray,
    embedding_model,
    ngram_range: tuple[int, int],
    stop_words: str | None,
    top_n_words: int,
    reduce_outliers: bool,
    reduce_frequent_words: bool,
    representation: str,
    mmr_diversity: float,
    min_keyword_share: float,
):
    """Fit BERTopic on given clusters, without refitting UMAP or HDBSCAN.

    Topics are numbered by size, largest first (BERTopic's order), after outliers are assigned.

    Args:
        texts: the papers' texts (title and abstract), the documents c-TF-IDF reads.
        embeddings: the papers' embeddings, one row per text.
        cluster_labels: the cluster stage's label per paper (``OUTLIER`` for HDBSCAN's outliers).
        embedding_model: the sentence-transformers model, or None; BERTopic gets it only for the
            ``keybert`` and ``mmr`` representations.
        ngram_range: the shortest and longest keyphrases, in words.
        stop_words: the vectorizer's stop-word list (``english``) or None.
        top_n_words: keywords kept per topic.
        reduce_outliers: move each outlier to its nearest topic (by centroid) before the fit.
        reduce_frequent_words: damp words frequent across topics (BERTopic's option).
        representation: ``ctfidf``, ``mmr`` or ``keybert`` (see ``representation_model``).
        mmr_diversity: the diversity of the ``mmr`` representation.
        min_keyword_share: keywords used by at least this share of a topic's papers rank first.

    Returns:
        The fitted model, each paper's topic, and whether each paper was an outlier before the fit.
    """
    from bertopic import BERTopic
    from bertopic.cluster import BaseCluster
    from bertopic.dimensionality import BaseDimensionalityReduction
    from bertopic.vectorizers import ClassTfidfTransformer
    from sklearn.feature_extraction.text import CountVectorizer

    was_outlier = np.asarray(cluster_labels) == OUTLIER
    labels = assign_outliers(embeddings, cluster_labels) if reduce_outliers else np.asarray(cluster_labels)
    model = _bertopic_with_centroid_representatives(BERTopic, embeddings)(
        # Only the representations that embed keywords get the model: given one, BERTopic stops
        # deleting punctuation before c-TF-IDF ("multi-label" stays two words), so passing it
        # otherwise would change the keywords and labels.
        embedding_model=embedding_model if needs_embedding_model(representation) else None,
        umap_model=BaseDimensionalityReduction(),
        hdbscan_model=BaseCluster(),
        vectorizer_model=CountVectorizer(ngram_range=tuple(ngram_range), stop_words=stop_words),
        ctfidf_model=ClassTfidfTransformer(reduce_frequent_words=reduce_frequent_words),
        representation_model=representation_model(
            representation, top_n_words, mmr_diversity, min_keyword_share
        ),
        top_n_words=top_n_words,
    )
    topics, _ = model.fit_transform(texts, embeddings=embeddings, y=labels)
    return model, np.asarray(topics), was_outlier


def _bertopic_with_centroid_representatives(bertopic_class, embeddings: np.ndarray):
    """BERTopic whose representative documents are the 3 papers nearest each topic's centroid.

    They are the report's choice too. BERTopic's own ranks a 500-paper sample per topic by
    c-TF-IDF, tokenising about the whole corpus once more.
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


def word_stems(phrase: str) -> frozenset[str]:
    """Singular forms of a phrase's words, so that 'model' and 'models' match."""
    return frozenset(singular(word) for word in phrase.lower().split())


def _is_clean_keyphrase(phrase: str, stop_words: frozenset[str]) -> bool:
    """Not empty, not a bare number, and neither starting nor ending with a stop word."""
    words = phrase.lower().split()
    return (
        bool(words)
        and not _NUMBER.match(phrase)
        and words[0] not in stop_words
        and words[-1] not in stop_words
    )


_TOKEN = re.compile(r"(?u)\b\w\w+\b")
# Words on either side of these are not one phrase: "networks (GNNs)" does not make "networks gnns".
_PHRASE_BREAK = re.compile(r"[^\w\s'-]+")
# A label phrase is completed by the word that follows (or precedes) at least this share of its
# occurrences in the topic's papers: "graph neural" is followed by "network(s)" in nearly all of
# them, "series forecasting" preceded by "time"; "graph" is followed by "neural" in fewer than half
# even in a graph-neural-network topic.
COMPLETION_SHARE = 0.5
# ... and at least this many of them: a word beside a phrase's only occurrence is chance.
MIN_COMPLETIONS = 3
MAX_PHRASE_WORDS = 4
# How far on from a phrase its neighbouring word is read (longer words are not completions).
_WORD_REACH = 64


def keyword_text(texts: list[str]) -> str:
    """Texts as the keyword vectorizer reads them (lower case, words of 2+ characters), one
    stretch between punctuation marks per line, words separated by single spaces.
    """
    stretches = (_TOKEN.findall(stretch) for text in texts for stretch in _PHRASE_BREAK.split(text.lower()))
    return "\n".join(" ".join(words) for words in stretches if words)


def _neighbours(phrase: str, text: str, after: bool) -> tuple[int, list[str]]:
    """Occurrences of ``phrase`` as whole words in a ``keyword_text``, and the words right after
    them (``after``) or right before them, within their stretch.
    """
    count, neighbours = 0, []
    start = text.find(phrase)
    while start != -1:
        end = start + len(phrase)
        if (start == 0 or text[start - 1] in " \n") and (end == len(text) or text[end] in " \n"):
            count += 1
            if after and end < len(text) and text[end] == " ":
                neighbours.append(text[end + 1 : end + 1 + _WORD_REACH].split(" ", 1)[0].split("\n", 1)[0])
            elif not after and start > 0 and text[start - 1] == " ":
                before = text[max(0, start - 1 - _WORD_REACH) : start - 1]
                neighbours.append(before.rsplit(" ", 1)[-1].rsplit("\n", 1)[-1])
        start = text.find(phrase, start + 1)
    return count, neighbours


def _completion(occurrences: int, neighbours: list[str], stop_words: frozenset[str]) -> str | None:
    """The word beside at least ``COMPLETION_SHARE`` (and ``MIN_COMPLETIONS``) of a phrase's
    occurrences, plural forms counted together and the most used one returned; None if there is
    none, or it is a stop word or a number.
    """
    forms: dict[str, list[str]] = {}
    for word in neighbours:
        forms.setdefault(singular(word), []).append(word)
    if not forms:
        return None
    stem, used = max(forms.items(), key=lambda item: (len(item[1]), item[0]))
    if (
        len(used) < max(MIN_COMPLETIONS, COMPLETION_SHARE * occurrences)
        or stem in stop_words
        or _NUMBER.match(stem)
    ):
        return None
    return max(sorted(set(used)), key=used.count)


def complete_phrase(phrase: str, text: str, stop_words: frozenset[str] = frozenset()) -> str | None:
    """``phrase`` grown by the words that nearly always follow it in the topic's ``keyword_text``
    ('graph neural' → 'graph neural networks'), then by those that nearly always precede it
    ('series forecasting' → 'time series forecasting'), up to ``MAX_PHRASE_WORDS`` words, never by
    a stop word or a number (``_completion``). None when the phrase does not occur within a
    stretch between punctuation marks.
    """
    words = phrase.split()
    if not _neighbours(phrase, text, after=True)[0]:
        return None
    for after in (True, False):
        while len(words) < MAX_PHRASE_WORDS:
            word = _completion(*_neighbours(" ".join(words), text, after), stop_words)
            if word is None:
                break
            words = [*words, word] if after else [word, *words]
    return " ".join(words)


def label_phrases(
    keywords: list[str], stop_words: frozenset[str] = frozenset(), text: str | None = None
) -> list[str]:
    """A topic's keyphrases, clean and without twins: a phrase another one covers is dropped,
    and a longer phrase replaces the shorter ones it covers ('graph' → 'graph neural network').
    With the topic's ``keyword_text``, the phrases left are then completed (``complete_phrase``),
    a phrase found only across punctuation ('learning rl', from 'reinforcement learning (RL)')
    dropped, and twins removed again.
    """
    chosen = _without_twins(k for k in keywords if _is_clean_keyphrase(k, stop_words))
    if text is None:
        return chosen
    return _without_twins(p for p in (complete_phrase(phrase, text, stop_words) for phrase in chosen) if p)


def _without_twins(phrases) -> list[str]:
    chosen: list[str] = []
    for phrase in phrases:
        stems = word_stems(phrase)
        if any(stems <= word_stems(kept) for kept in chosen):
            continue
        covered = [i for i, kept in enumerate(chosen) if word_stems(kept) < stems]
        if covered:
            chosen[covered[0]] = phrase
            chosen = [kept for i, kept in enumerate(chosen) if i not in covered[1:]]
            continue
        chosen.append(phrase)
    return chosen


def distinct_labels(
    keywords_of: dict[int, list[str]],
    stop_words: frozenset[str] = frozenset(),
    min_phrases: int = 2,
    max_phrases: int = 4,
    texts_of: dict[int, str] | None = None,
) -> dict[int, str]:
    """Labels of ``min_phrases``..``max_phrases`` keyphrases, no two alike.

    Topics that would share a label get one more of their own keyphrases until the labels
    differ; if their keyphrases run out, the topic number tells them apart. ``texts_of``: each
    topic's ``keyword_text``, to complete its keyphrases (``complete_phrase``).
    """
    phrases = {
        topic: label_phrases(words, stop_words, (texts_of or {}).get(topic))
        for topic, words in keywords_of.items()
    }
    length = {topic: min(min_phrases, len(p)) for topic, p in phrases.items()}

    def label(topic: int) -> str:
        return ", ".join(phrases[topic][: length[topic]]) or "(no keywords)"

    def twin_key(topic: int) -> frozenset:
        """Labels alike up to plurals and phrase order ('graphs' and 'graph') count as the same."""
        return frozenset(word_stems(phrase) for phrase in phrases[topic][: length[topic]])

    while True:
        by_label: dict[frozenset, list[int]] = {}
        for topic in sorted(phrases):
            by_label.setdefault(twin_key(topic), []).append(topic)
        clashes = [topics for topics in by_label.values() if len(topics) > 1]
        growable = [t for topics in clashes for t in topics if length[t] < min(max_phrases, len(phrases[t]))]
        if not growable:
            break
        for topic in growable:
            length[topic] += 1
    labels = {topic: label(topic) for topic in phrases}
    for topics in clashes:
        for topic in topics[1:]:
            labels[topic] = f"{labels[topic]} (topic {topic})"
    return labels


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
    ids: list[str],
    embeddings: np.ndarray,
    topics: np.ndarray,
    n_representative_docs: int,
    texts: list[str] | None = None,
) -> list[dict]:
    """One record per topic, outliers (-1) last: label, weighted keywords, size, examples.
    With the papers' ``texts``, labels are made of completed keyphrases (``complete_phrase``).
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    present = sorted(set(topics.tolist()), key=lambda t: (t == OUTLIER, t))
    real = [t for t in present if t != OUTLIER]
    texts_of = None
    if texts is not None:
        texts_of = {t: keyword_text([texts[i] for i in np.flatnonzero(topics == t)]) for t in real}
    labels = distinct_labels(
        {t: [word for word, _ in keywords[t]] for t in real}, frozenset(ENGLISH_STOP_WORDS), texts_of=texts_of
    )
    records = []
    for topic in present:
        size = int((topics == topic).sum())
        records.append(
            {
                "topic": int(topic),
                "label": "Outliers" if topic == OUTLIER else labels[topic],
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
    embeddings: np.ndarray, topics: np.ndarray, labels: dict[int, str], n_groups: int
) -> tuple[dict[int, int], list[dict]]:
    """A coarser layer: topics merged, by average-linkage clustering of their centroids
    (cosine), into ``n_groups`` groups. Returns topic → group and the groups, largest first.
    """
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
        heads = list(dict.fromkeys(labels[t].split(", ")[0] for t in group_topics))[:3]
        groups.append(
            {
                "group": number,
                "label": ", ".join(heads),
                "topics": group_topics,
                "size": sum(sizes[t] for t in group_topics),
            }
        )
        group_of.update({t: number for t in group_topics})
    return group_of, groups
