"""Guided topics: known categories (a conference's track names, a lab's areas) become topics.

Each name is first joined by the papers most similar to it (pseudo-relevance feedback, as a
search engine expands a query with its top results): a few words say less than a few abstracts.
Each paper is then matched to the expanded names by embedding similarity, with the categories'
shares estimated from the corpus as it goes (expectation-maximisation of the priors: a catch-all
name such as "Machine Learning" draws many papers, a narrow one few); then each category's
papers, not its name, stand for it, for a few rounds. Papers that end close enough to a
category's papers form its topic, labelled with the name; the rest keep their discovered topic.
BERTopic's zero-shot topic modelling (``zeroshot_topic_list``, ``zeroshot_min_similarity``) is
the model; it matches papers to the names once, without the priors or the rounds.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from papertopics.errors import PipelineInputError
from papertopics.ingest.formats import decode
from papertopics.mapping.cluster import OUTLIER, topic_centroids

_LOG = logging.getLogger(__name__)

# The matching's settings, each chosen by accuracy on labelled corpora (bench/one-off-measurements.md,
# "Guided topics: the matching's settings"). The softmax temperature of the cosine similarities:
TEMPERATURE = 0.03
# Rounds in which each category's papers replace its name:
ROUNDS = 5
_PRIOR_ITERATIONS = 50
# Papers that join each name before the matching, weighing as much as the name:
FEEDBACK_PAPERS = 10


def load_guide(guide: list[str] | str | None, base_dir: str | Path = ".") -> list[str]:
    """The category names of ``topics.guide``: a list, or a text file (one name per line; blank
    lines and lines starting with # skipped; relative to ``base_dir``). No guide: [].
    """
    if not guide:
        return []
    if isinstance(guide, str):
        path = Path(base_dir) / guide
        if not path.is_file():
            raise PipelineInputError(
                f"topics.guide: {path} is not a file (give a list of names or a text file, one name a line)"
            )
        # Decoded as dumps are: a byte-order mark honoured, a binary file refused, cp1252 read with a warning.
        raw = path.read_bytes()
        text, _, warnings = decode(raw, path) if raw.strip() else ("", "", [])
        for warning in warnings:
            _LOG.warning("%s", warning)
        names = [line.strip() for line in text.splitlines()]
        names = [name for name in names if name and not name.startswith("#")]
        source = str(path)
    else:
        names = [str(name).strip() for name in guide]
        source = "topics.guide"
    if not names or any(not name for name in names):
        raise PipelineInputError(f"{source}: category names must not be empty")
    twins = sorted({name for name in names if names.count(name) > 1})
    if twins:
        raise PipelineInputError(f"{source}: names given twice: {', '.join(twins)}")
    return names


def category_posteriors(similarity: np.ndarray) -> np.ndarray:
    """Each paper's probabilities over the categories: a softmax of its similarities, weighted
    by category shares estimated by expectation-maximisation over the corpus.
    """
    scaled = (similarity - similarity.max(axis=1, keepdims=True)) / TEMPERATURE
    likelihood = np.exp(scaled)
    likelihood /= likelihood.sum(axis=1, keepdims=True)
    priors = np.full(similarity.shape[1], 1 / similarity.shape[1])
    for _ in range(_PRIOR_ITERATIONS):
        posterior = likelihood * priors
        posterior /= posterior.sum(axis=1, keepdims=True)
        priors = posterior.mean(axis=0)
    return posterior


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def expanded_names(units: np.ndarray, names: np.ndarray, count: int) -> np.ndarray:
    """Each unit-length name vector joined by the mean of the ``count`` papers (unit vectors)
    most similar to it, the two weighing alike; unit length. 0: the names as they are.
    """
    if count <= 0:
        return names
    nearest = np.argsort(-(units @ names.T), axis=0, kind="stable")[: min(count, len(units))]
    return _unit_rows(names + _unit_rows(units[nearest].mean(axis=0)))


def match_categories(
    units: np.ndarray, centres: np.ndarray, min_similarity: float
) -> tuple[np.ndarray, np.ndarray]:
    """Each paper's category, starting from the ``centres`` (one per category, unit length), and
    whether it fits it (cosine similarity to its category's papers at least ``min_similarity``).
    """
    category = category_posteriors(units @ centres.T).argmax(axis=1)
    fit = np.ones(len(units), dtype=bool)
    for _ in range(ROUNDS + 1):
        # Only the papers that fit a category stand for it: a subject no name describes, drawn
        # to the nearest name at first, is not averaged into that category's centroid.
        present = np.unique(category[fit])
        rounds_centres = centres.copy()
        rounds_centres[present] = topic_centroids(units, np.where(fit, category, OUTLIER), present)
        similarity = units @ rounds_centres.T
        category = category_posteriors(similarity).argmax(axis=1)
        fit = similarity[np.arange(len(units)), category] >= min_similarity
    return category, fit


def guided_topics(
    embeddings: np.ndarray,
    name_vectors: np.ndarray,
    clusters: np.ndarray,
    min_similarity: float,
    feedback_papers: int = FEEDBACK_PAPERS,
) -> tuple[np.ndarray, dict[int, int]]:
    """Topics with the named categories first: returns per paper a topic (named categories
    0..k-1 in the order of the names that kept papers; discovered topics after them, from
    ``clusters``; -1 for outliers) and named topic → index of its name.

    A paper joins the category it matches best if its cosine similarity to that category's
    papers' centroid is at least ``min_similarity`` (0: every paper joins one). Each name is
    first joined by its ``feedback_papers`` most similar papers (``expanded_names``; 0: not).
    What the names leave of a discovered topic stays a topic only if it is as large as the
    smallest discovered topic; smaller remnants (a paper or two) become outliers.
    """
    units = _unit_rows(embeddings)
    names = expanded_names(units, _unit_rows(name_vectors), feedback_papers)
    category, fit = match_categories(units, names, min_similarity)
    named = [int(c) for c in np.unique(category[fit])]
    topics = np.full(len(units), OUTLIER, dtype=np.int64)
    for number, name in enumerate(named):
        topics[fit & (category == name)] = number
    clusters = np.asarray(clusters)
    rest = ~fit
    sizes = np.unique(clusters[clusters != OUTLIER], return_counts=True)[1]
    smallest = int(sizes.min()) if len(sizes) else 0
    left, counts = np.unique(clusters[rest], return_counts=True)
    discovered = [int(c) for c, count in zip(left, counts, strict=True) if c != OUTLIER and count >= smallest]
    for number, cluster in enumerate(discovered, start=len(named)):
        topics[rest & (clusters == cluster)] = number
    return topics, dict(enumerate(named))


def unmatched_names(names: list[str], named: dict[int, int]) -> list[str]:
    """The guide's names that no paper fits (``named`` as ``guided_topics`` returns it), in the
    guide's order: they make no topic, and the user should hear of them.
    """
    kept = set(named.values())
    return [name for index, name in enumerate(names) if index not in kept]
