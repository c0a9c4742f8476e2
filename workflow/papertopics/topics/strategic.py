"""The strategic diagram (Callon's centrality and density, as bibliometrix's thematic map computes
them): how strongly each topic's keywords tie to the other topics' (centrality) and to each other
(density), from the keywords' co-occurrence in the papers.

For keywords i and j, c_ij is the number of papers carrying both, c_i the number carrying i, and
their tie the equivalence index e_ij = c_ij² / (c_i c_j). Each keyword belongs to one topic (the
one whose papers carry it most); for a topic with keyword set K:

- centrality = 10 × Σ e_ij over i in K, j not in K;
- density = 100 × Σ e_ij over i < j in K, divided by |K|.

Quadrants split at the medians over the topics: motor (centrality and density at or above their
medians), niche (density at or above, centrality below), emerging or declining (both below), basic
(centrality at or above, density below).

A paper's keywords are its authors' where at least half the papers carry some (each topic's then
its ``AUTHOR_KEYWORDS`` most frequent among its papers); else the topics' own keywords (BERTopic's)
found in its title and abstract, counted as BERTopic's vectoriser counts words.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

MOTOR, NICHE, EMERGING, BASIC = "motor", "niche", "emerging or declining", "basic"
COLUMNS = ["topic", "label", "papers", "keywords", "centrality", "density", "quadrant"]
PERIOD_COLUMNS = [
    "first_period",
    "first_papers",
    "first_centrality",
    "first_density",
    "last_period",
    "last_papers",
    "last_centrality",
    "last_density",
]
AUTHOR_KEYWORDS = 10
AUTHORS, TOPIC_WORDS = "authors' keywords", "topic keywords in the text"


def _normal(keyword: str) -> str:
    return " ".join(keyword.lower().split())


def keyword_source(author_keywords: list[list[str]]) -> str:
    """Which keywords a run's diagram counts: the authors' where at least half the papers carry some."""
    carried = sum(bool(keywords) for keywords in author_keywords)
    return AUTHORS if author_keywords and 2 * carried >= len(author_keywords) else TOPIC_WORDS


def incidence(
    texts: list[str], author_keywords: list[list[str]], topics: np.ndarray, topic_words: dict[int, list[str]]
):
    """Which keyword each paper carries (a sparse papers × keywords 0/1 matrix), the keywords, each
    topic's keyword list (before each keyword is given to one topic) and which source they came
    from (``keyword_source``).
    """
    # SciPy and scikit-learn load only where a stage computes with them, not in light jobs.
    from scipy.sparse import csr_matrix
    from sklearn.feature_extraction.text import CountVectorizer

    source = keyword_source(author_keywords)
    if source == AUTHORS:
        carried = [{_normal(k) for k in keywords if k.strip()} for keywords in author_keywords]
        listed = {}
        for topic in topic_words:
            counts = Counter(
                k for held, paper in zip(carried, topics, strict=True) if paper == topic for k in held
            )
            ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
            listed[topic] = [keyword for keyword, _ in ranked[:AUTHOR_KEYWORDS]]
        vocabulary = sorted({k for words in listed.values() for k in words})
        column = {k: i for i, k in enumerate(vocabulary)}
        rows, columns = [], []
        for row, held in enumerate(carried):
            found = [column[k] for k in held if k in column]
            rows += [row] * len(found)
            columns += found
        shape = (len(texts), len(vocabulary))
        return csr_matrix((np.ones(len(rows)), (rows, columns)), shape=shape), vocabulary, listed, source
    listed = {topic: [_normal(w) for w in words if w.strip()] for topic, words in topic_words.items()}
    vocabulary = sorted({w for words in listed.values() for w in words})
    if not vocabulary:
        return csr_matrix((len(texts), 0)), [], listed, source
    longest = max(len(w.split()) for w in vocabulary)
    counter = CountVectorizer(vocabulary=vocabulary, ngram_range=(1, longest), binary=True, lowercase=True)
    return counter.transform(texts).astype(np.float64).tocsr(), vocabulary, listed, source


def _column_sums(matrix) -> np.ndarray:
    return np.asarray(matrix.sum(axis=0)).ravel()


def owned_keywords(matrix, vocabulary: list[str], listed: dict[int, list[str]], topics: np.ndarray):
    """Each topic's keywords, each keyword given to the one topic whose papers carry it most (of
    the topics that list it; ties to the lower topic), those no paper carries left out: column
    indices per topic.
    """
    column = {k: i for i, k in enumerate(vocabulary)}
    carried = {topic: _column_sums(matrix[topics == topic]) for topic in listed}
    anywhere = _column_sums(matrix)
    owner: dict[int, int] = {}
    for topic in sorted(listed):
        for index in (column[word] for word in listed[topic]):
            if anywhere[index] and (
                index not in owner or carried[topic][index] > carried[owner[index]][index]
            ):
                owner[index] = topic
    return {topic: sorted(i for i, t in owner.items() if t == topic) for topic in sorted(listed)}


def equivalence(matrix) -> np.ndarray:
    """The equivalence index of every keyword pair: c_ij² / (c_i c_j), 0 on the diagonal and
    where a keyword is carried by no paper.
    """
    counts = np.asarray((matrix.T @ matrix).todense(), dtype=np.float64)
    carried = np.outer(np.diag(counts), np.diag(counts))
    index = np.divide(counts**2, carried, out=np.zeros_like(counts), where=carried > 0)
    np.fill_diagonal(index, 0.0)
    return index


def centrality_density(index: np.ndarray, owned: dict[int, list[int]]) -> dict[int, tuple[float, float]]:
    """Callon's centrality and density of each topic's keywords (column indices into ``index``)."""
    found = {}
    for topic, columns in owned.items():
        inside = np.zeros(len(index), dtype=bool)
        inside[columns] = True
        centrality = 10 * index[np.ix_(inside, ~inside)].sum()
        # The inner block is symmetric with a zero diagonal: half its sum is the pairs i < j.
        density = 100 * index[np.ix_(inside, inside)].sum() / 2 / len(columns) if columns else 0.0
        found[topic] = (float(centrality), float(density))
    return found


def quadrants(centrality: np.ndarray, density: np.ndarray) -> list[str]:
    """Each topic's quadrant, split at the medians of centrality and density."""
    central = centrality >= np.median(centrality)
    dense = density >= np.median(density)
    return [
        (MOTOR if d else BASIC) if c else (NICHE if d else EMERGING)
        for c, d in zip(central, dense, strict=True)
    ]


def strategic_table(
    texts: list[str],
    author_keywords: list[list[str]],
    topics: np.ndarray,
    topic_words: dict[int, list[str]],
    labels: dict[int, str],
    periods: tuple[np.ndarray, list[str]] | None = None,
) -> tuple[pd.DataFrame, str]:
    """The strategic diagram's table (:data:`COLUMNS`, one row per topic of ``topic_words``) and
    the keywords' source; with ``periods`` (each paper's period index, −1 for none, and the
    periods' names, oldest first; two or more) also each topic's centrality and density among
    the first period's papers and the last's (:data:`PERIOD_COLUMNS`), keywords kept.
    """
    topics = np.asarray(topics)
    matrix, vocabulary, listed, source = incidence(texts, author_keywords, topics, topic_words)
    owned = owned_keywords(matrix, vocabulary, listed, topics)
    measured = centrality_density(equivalence(matrix), owned)
    real = [t for t in sorted(topic_words) if owned[t]]
    table = pd.DataFrame(
        {
            "topic": real,
            "label": [labels[t] for t in real],
            "papers": [int((topics == t).sum()) for t in real],
            "keywords": ["; ".join(vocabulary[i] for i in owned[t]) for t in real],
            "centrality": [measured[t][0] for t in real],
            "density": [measured[t][1] for t in real],
        },
        columns=COLUMNS[:-1],
    )
    table["quadrant"] = quadrants(table["centrality"].to_numpy(), table["density"].to_numpy()) if real else []
    if periods is not None and len(periods[1]) >= 2 and real:
        period, names = periods
        for side, index in (("first", 0), ("last", len(names) - 1)):
            within = centrality_density(equivalence(matrix[period == index]), owned)
            table[f"{side}_period"] = names[index]
            table[f"{side}_papers"] = [int(((topics == t) & (period == index)).sum()) for t in real]
            table[f"{side}_centrality"] = [within[t][0] for t in real]
            table[f"{side}_density"] = [within[t][1] for t in real]
    return table.round(4), source
