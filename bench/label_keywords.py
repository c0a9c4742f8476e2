"""Labels scored against the keywords the papers' own authors typed (free text, not a taxonomy),
and BERTopic's MaximalMarginalRelevance keywords of the same topics (see bench/quality-labels.md).

A label phrase *is a keyword of* its topic when at least ``MIN_KEYWORD_PAPERS`` of the topic's
papers carry a keyword that is a close variant of it: the same set of words once both are read as
``word_set`` reads them (lower case; hyphens, slashes and other punctuation as spaces; stop words
dropped; each word in its singular form), so "Parameter-Efficient Fine-Tuning (PEFT)" is
"parameter efficient fine tuning" and, by its parenthesised acronym, "peft"; "vision-language
models" is "vision language model" and "language models for vision" is not.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

# The corpora whose records carry their authors' free keywords (key ``keywords``).
FREE_KEYWORD_CORPORA = frozenset(
    {"openreview_free_keywords.jsonl.gz", "keyword_lists_3dv_ai4x_2025.jsonl.gz"}
)
MIN_KEYWORD_PAPERS = 2
# BERTopic's MMR re-ranks this many c-TF-IDF candidates (its own default when a representation
# model is set), at this diversity; the comparison label is its first ``MMR_WORDS`` keywords.
MMR_CANDIDATES = 30
MMR_DIVERSITY = 0.3
MMR_WORDS = 2
# A topic kept across a rerun keeps at least this share of its papers to count in the labels-kept figure.
KEPT_PAPERS = 0.6
_PARENTHESISED = re.compile(r"\(([^()]*)\)")
_WORD = re.compile(r"[a-z0-9]+")


def word_set(text: str) -> frozenset[str]:
    """A phrase as compared: its words (stop words dropped), each singular, in any order."""
    from papertopics.text import singular
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(singular(word) for word in _WORD.findall(text.lower()) if word not in ENGLISH_STOP_WORDS)


def keyword_forms(keyword: str) -> set[frozenset[str]]:
    """The word sets a keyword stands for: itself without what it puts in parentheses, and that
    (an acronym, mostly) on its own.
    """
    forms = {word_set(_PARENTHESISED.sub(" ", keyword))}
    forms |= {word_set(inner) for inner in _PARENTHESISED.findall(keyword)}
    return forms - {frozenset()}


def load_free_keywords(corpus) -> dict[str, list[str]] | None:
    """Each paper's free author keywords, where the corpus carries them."""
    import gzip
    import json

    if corpus.name not in FREE_KEYWORD_CORPORA:
        return None
    with gzip.open(corpus, "rt", encoding="utf-8") as lines:
        return {record["id"]: record.get("keywords") or [] for record in map(json.loads, lines)}


def topic_keyword_counts(
    paper_ids: list[str], topics: np.ndarray, keywords: dict[str, list[str]]
) -> dict[int, Counter]:
    """Each topic's keyword word sets, with the number of its papers carrying each."""
    counts: dict[int, Counter] = {}
    for paper, topic in zip(paper_ids, np.asarray(topics).tolist(), strict=True):
        if topic == -1:
            continue
        forms = set().union(*(keyword_forms(k) for k in keywords.get(paper, [])))
        counts.setdefault(int(topic), Counter()).update(forms)
    return counts


def phrase_is_keyword(phrase: str, counts: Counter, least_papers: int = MIN_KEYWORD_PAPERS) -> bool:
    """Whether at least ``least_papers`` of the topic's papers carry the phrase as a keyword."""
    words = word_set(phrase)
    return bool(words) and counts[words] >= least_papers


def keyword_naming(
    labels: dict[int, list[str]],
    counts: dict[int, Counter],
    sizes: dict[int, int],
    least_papers: int = MIN_KEYWORD_PAPERS,
) -> dict:
    """``hit_rate``: share of the papers whose topic's label has a phrase that is a keyword of the
    topic (carried by at least ``least_papers`` of its papers); ``phrase_share``: share of the
    label phrases that are (each weighed by its topic's size).
    """
    hit = phrases = used = total = 0
    for topic, label in labels.items():
        found = [phrase_is_keyword(p, counts.get(topic, Counter()), least_papers) for p in label]
        hit += sizes[topic] * any(found)
        total += sizes[topic]
        phrases += sizes[topic] * len(found)
        used += sizes[topic] * sum(found)
    return {"hit_rate": hit / total if total else 0.0, "phrase_share": used / phrases if phrases else 0.0}


class _KeywordModel:
    """What BERTopic's representation models ask of a topic model: its vectorizer and word
    embeddings.
    """

    def __init__(self, model, encoder):
        self.vectorizer_model = model.vectorizer_model
        self.embedding_model = encoder

    def _extract_embeddings(self, words, method="word", verbose=False):
        return np.asarray(self.embedding_model.encode(words if isinstance(words, list) else [words]))


def mmr_keywords(
    model, model_topics: dict[int, int], encoder, texts: list[str], min_keyword_share: float
) -> dict[int, list[str]]:
    """Each topic's first ``MMR_WORDS`` keywords by the pipeline's ``topics.representation: mmr``:
    the ``MMR_CANDIDATES`` best c-TF-IDF words (those ``min_keyword_share`` of the topic's papers
    use first, ``topics.representation.SharedKeywords``), re-ranked by BERTopic's
    ``MaximalMarginalRelevance(diversity=MMR_DIVERSITY)``, in the order BERTopic lists them
    (``model_topics``: topic → the fitted model's number; ``texts``: the papers the model was fitted on).
    """
    import pandas as pd
    from bertopic.representation import MaximalMarginalRelevance
    from papertopics.topics.representation import SharedKeywords

    words = model.vectorizer_model.get_feature_names_out()
    numbers = sorted(int(t) for t in set(model.topics_))
    candidates = {}
    for number in numbers:
        scores = model.c_tf_idf_[numbers.index(number)].toarray().ravel()
        order = np.argsort(-scores, kind="stable")[:MMR_CANDIDATES]
        candidates[number] = [(str(words[i]), float(scores[i])) for i in order if scores[i] > 0]
    keyword_model = _KeywordModel(model, encoder)
    if min_keyword_share > 0:
        documents = pd.DataFrame({"Document": texts, "Topic": model.topics_})
        candidates = SharedKeywords(min_keyword_share).extract_topics(
            keyword_model, documents, model.c_tf_idf_, candidates
        )
    chosen = MaximalMarginalRelevance(diversity=MMR_DIVERSITY).extract_topics(
        keyword_model, None, None, {n: candidates[n] for n in model_topics.values()}
    )
    return {topic: [word for word, _ in chosen[number][:MMR_WORDS]] for topic, number in model_topics.items()}


def most_papers_kept(before: dict[str, int], after: dict[str, int], topics: list[int]) -> list[int]:
    """Of ``topics`` (ids kept across a rerun), those that keep at least ``KEPT_PAPERS`` of their
    earlier papers (``before``, ``after``: paper → topic in each run), as the issue's figure counts
    them: a topic that lost most of its papers to others may rightly be named again.
    """
    kept = []
    for topic in topics:
        papers = [paper for paper, t in before.items() if t == topic]
        if papers and sum(after.get(paper) == topic for paper in papers) >= KEPT_PAPERS * len(papers):
            kept.append(topic)
    return kept


def kept_most_share(most: list[int], same: list[int]) -> dict:
    """The labels-kept figure of the topics that kept their id and most of their papers (``most``)
    of which ``same`` kept their label.
    """
    kept = [t for t in most if t in same]
    return {
        "kept_most": len(most),
        "kept_most_label": len(kept),
        "most_share": len(kept) / len(most) if most else None,
    }
