"""How well labels name their topics: each topic's reference names (the authors' keywords its
papers carry most, or IJCAI's sub-areas), and the size-weighted share of topics and groups whose
label hits one (the label benchmark's scores, shared by ``quality_runs``, ``quality_labels`` and
``labels_cached``).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np

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
    """Each paper's title phrases (1-4 words, no stop word or number at either end): a stand-in for
    free author keywords, no longer held out since the labeller reads titles too (issue 31).
    """
    from papertopics.topics.phrases import paper_phrases
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
    from papertopics.text import singular

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
    authors' keywords (IJCAI's sub-areas) and, for every corpus, its title phrases; and
    against free author keywords where the corpus has them (``label_keywords.keyword_naming``:
    hit rate and the share of label phrases that are keywords of the topic).
    """
    from papertopics.topics.phrases import label_phrases

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
    references = [("title phrases (not held out: labels read titles too)", title_phrases(papers))]
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


def group_naming(papers: list[dict], corpus: Path, topics: np.ndarray, groups: list[dict], encoder) -> dict:
    """The group labels (``groups``: each its ``topics`` and ``label``) scored as ``label_naming``
    scores topic labels, each group's papers taken as one topic (size-weighted): ``hit_rate`` and
    ``phrase_share`` against free author keywords (>= 2 of the group's papers), and the hit rate
    against the group's reference names (``reference_names``: its 5 most used keywords at least twice
    as often there as in the corpus) of its sub-area keywords (``sub_areas``) or free keywords
    (``free_names``), where the corpus has them.
    """
    from papertopics.topics.phrases import label_phrases

    from bench.label_keywords import keyword_naming, load_free_keywords, topic_keyword_counts

    if not groups:  # a small corpus (3DV's 142 papers) has too few topics to group
        return {}
    ids = [p["id"] for p in papers]
    group_of = {topic: number for number, group in enumerate(groups) for topic in group["topics"]}
    grouped = np.array([group_of.get(topic, -1) for topic in np.asarray(topics).tolist()])
    sizes = {number: int((grouped == number).sum()) for number in range(len(groups))}
    labels = {number: label_phrases(group["label"]) for number, group in enumerate(groups)}
    figures: dict = {}
    free = load_free_keywords(corpus)
    if free:
        figures |= keyword_naming(labels, topic_keyword_counts(ids, grouped, free), sizes)
    for name, keywords_of in (("sub_areas", load_paper_keywords(corpus)), ("free_names", free)):
        if keywords_of:
            names = reference_names(ids, grouped, keywords_of)
            figures[name] = hit_rate(label_hits(labels, names, encoder), sizes)
    return figures
