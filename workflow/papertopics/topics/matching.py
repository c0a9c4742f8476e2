"""Two runs' topics matched: which topic of this run continues which of the previous run.

Every run of the topics stage keeps a record of its topics (``TopicSnapshot``: id, label,
keywords, size, centroid in the embedding space, papers) under ``results/history/``
(``papertopics.topics.lineage``). The next run matches its topics to that record: by the papers
two topics share, where papers are in both runs, and by the cosine similarity of their centroids
only where a topic's papers are mostly new (or mostly gone); merges and splits are told apart. A
matched topic keeps its id (and its label while it still fits, ``papertopics.topics.labeller``);
every other topic gets an id never used before. Only the numbering follows history: the partition
itself is the same whatever came before.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from papertopics.mapping.cluster import OUTLIER, topic_centroids

# A topic is followed by its papers when at least this share of them is in both runs.
_TRACKED_BY_PAPERS = 0.5
# Merge and split pieces: most of one side's shared papers (0.5) on the other, and a real part
# of the other side (0.2), so that a handful of papers drifting across is not called a split.
_MOST = 0.5
_PART = 0.2


@dataclass(frozen=True)
class TopicSnapshot:
    """One topic of one run, as history keeps it."""

    id: int
    label: str
    keywords: tuple[str, ...]
    size: int
    centroid: np.ndarray
    papers: frozenset[str]

    def to_record(self) -> dict:
        """The snapshot as JSON, its papers' ids included."""
        return {
            "id": self.id,
            "label": self.label,
            "keywords": list(self.keywords),
            "size": self.size,
            "centroid": [round(float(value), 6) for value in self.centroid],
            "papers": sorted(self.papers),
        }

    @classmethod
    def from_record(cls, record: dict) -> TopicSnapshot:
        """A snapshot from its JSON record and its papers."""
        return cls(
            id=int(record["id"]),
            label=record["label"],
            keywords=tuple(record["keywords"]),
            size=int(record["size"]),
            centroid=np.asarray(record["centroid"], dtype=np.float64),
            papers=frozenset(record["papers"]),
        )


@dataclass
class Matching:
    """How the current topics (by their key in this run) relate to the previous run's (by id)."""

    continued: dict[int, int] = field(default_factory=dict)  # current key → previous id
    matched_by: dict[int, str] = field(default_factory=dict)  # current key → "papers" or "centroid"
    merges: list[tuple[int, list[int]]] = field(default_factory=list)  # (current key, previous ids)
    splits: list[tuple[int, list[int]]] = field(default_factory=list)  # (previous id, current keys)
    new: list[int] = field(default_factory=list)  # current keys
    gone: list[int] = field(default_factory=list)  # previous ids


def topic_snapshots(ids: list[str], embeddings: np.ndarray, topics: np.ndarray) -> list[TopicSnapshot]:
    """A run's real topics, in order of their number, keyed by it (labels and keywords come later)."""
    real = sorted(t for t in set(np.asarray(topics).tolist()) if t != OUTLIER)
    if not real:
        return []
    paper_ids = np.asarray(ids)
    return [
        TopicSnapshot(
            id=topic,
            label="",
            keywords=(),
            size=int((topics == topic).sum()),
            centroid=centroid,
            papers=frozenset(paper_ids[topics == topic].tolist()),
        )
        for topic, centroid in zip(real, topic_centroids(embeddings, topics, real), strict=True)
    ]


def partition_digest(topics: list[TopicSnapshot]) -> str:
    """A fingerprint of which papers go together, whatever the topics are numbered or labelled."""
    groups = sorted(sorted(topic.papers) for topic in topics)
    return hashlib.sha256(json.dumps(groups).encode("utf-8")).hexdigest()


def shared_papers(previous: list[TopicSnapshot], current: list[TopicSnapshot]) -> np.ndarray:
    """Papers each previous topic (rows) shares with each current topic (columns)."""
    row_of = {paper: row for row, topic in enumerate(previous) for paper in topic.papers}
    shared = np.zeros((len(previous), len(current)), dtype=np.int64)
    for column, topic in enumerate(current):
        rows = [row_of[paper] for paper in topic.papers if paper in row_of]
        np.add.at(shared[:, column], rows, 1)
    return shared


def _similarities(previous: list[TopicSnapshot], current: list[TopicSnapshot]) -> np.ndarray:
    if not previous or not current:
        return np.zeros((len(previous), len(current)))
    before = np.vstack([topic.centroid for topic in previous])
    after = np.vstack([topic.centroid for topic in current])
    if before.shape[1] != after.shape[1]:  # another embedding model: centroids do not compare
        return np.zeros((len(previous), len(current)))
    return before @ after.T


def _best_pairs(scores: np.ndarray, allowed: np.ndarray) -> list[tuple[int, int]]:
    """One-to-one pairs maximising the total score (Hungarian), among the allowed pairs."""
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.optimize import linear_sum_assignment

    if not allowed.any():
        return []
    rows, columns = linear_sum_assignment(np.where(allowed, scores, 0.0), maximize=True)
    return [(int(r), int(c)) for r, c in zip(rows, columns, strict=True) if allowed[r, c]]


def _merges_and_splits(
    shared: np.ndarray,
    in_both_before: np.ndarray,
    in_both_after: np.ndarray,
    partner_of_row: dict[int, int],
    partner_of_column: dict[int, int],
    previous: list[TopicSnapshot],
    current: list[TopicSnapshot],
    matching: Matching,
) -> tuple[set[int], set[int]]:
    """Record in ``matching`` the merges (most papers of two or more earlier topics in one topic now)
    and splits (one earlier topic's papers spread over two or more now); return the rows and columns
    they took part in.
    """
    # Shares of each side's papers-in-both-runs that went to the other side.
    went = np.divide(
        shared, in_both_before[:, None], out=np.zeros(shared.shape), where=in_both_before[:, None] > 0
    )
    came = np.divide(
        shared, in_both_after[None, :], out=np.zeros(shared.shape), where=in_both_after[None, :] > 0
    )
    in_events_before: set[int] = set()
    in_events_after: set[int] = set()
    for column in range(len(current)):
        sources = [
            row
            for row in range(len(previous))
            if went[row, column] >= _MOST and partner_of_row.get(row, column) == column
        ]
        continuing = partner_of_column.get(column)
        if len(sources) == 1 and continuing is not None and continuing != sources[0]:
            # A topic absorbed into one that continues another (which may have split meanwhile).
            sources = [continuing, *sources]
        if len(sources) >= 2:
            matching.merges.append((current[column].id, [previous[row].id for row in sources]))
            in_events_before.update(sources)
            in_events_after.add(column)
    for row in range(len(previous)):
        pieces = [
            column
            for column in range(len(current))
            if came[row, column] >= _MOST
            and went[row, column] >= _PART
            and partner_of_column.get(column, row) == row
        ]
        if len(pieces) >= 2:
            matching.splits.append((previous[row].id, [current[column].id for column in pieces]))
            in_events_before.add(row)
            in_events_after.update(pieces)
    return in_events_before, in_events_after


def match_topics(
    previous: list[TopicSnapshot],
    current: list[TopicSnapshot],
    min_overlap: float,
    min_similarity: float,
) -> Matching:
    """Match the current topics to the previous run's, and name merges, splits, new and gone topics.

    Args:
        previous: the previous run's topics (their ``id`` is their stable id).
        current: this run's topics (their ``id`` is a key of this run, e.g. BERTopic's number).
        min_overlap: the least Jaccard overlap, over the papers in both runs, for two topics to be
            one topic followed across runs.
        min_similarity: the least cosine similarity of centroids for two topics to be matched when
            neither is followed by its papers (most of their papers are in one run only).

    Returns:
        The matching; every previous topic is continued, merged, split or gone, and every current
        topic continues one, results from a merge or split, or is new.
    """
    shared = shared_papers(previous, current)
    in_both_before = shared.sum(axis=1)
    in_both_after = shared.sum(axis=0)
    union = in_both_before[:, None] + in_both_after[None, :] - shared
    jaccard = np.divide(shared, union, out=np.zeros(shared.shape), where=union > 0)

    matching = Matching()
    pairs = _best_pairs(jaccard, jaccard >= min_overlap)
    for row, column in pairs:
        matching.continued[current[column].id] = previous[row].id
        matching.matched_by[current[column].id] = "papers"
    partner_of_row = {row: column for row, column in pairs}
    partner_of_column = {column: row for row, column in pairs}

    in_events_before, in_events_after = _merges_and_splits(
        shared, in_both_before, in_both_after, partner_of_row, partner_of_column, previous, current, matching
    )
    # Where papers cannot tell (a topic whose papers are mostly new, or mostly removed), centroids do.
    open_rows = _left_open(previous, in_both_before, partner_of_row, in_events_before)
    open_columns = _left_open(current, in_both_after, partner_of_column, in_events_after)
    similarity = _similarities(previous, current)
    allowed = open_rows[:, None] & open_columns[None, :] & (similarity >= min_similarity)
    for row, column in _best_pairs(similarity, allowed):
        matching.continued[current[column].id] = previous[row].id
        matching.matched_by[current[column].id] = "centroid"
        partner_of_row[row] = column
        partner_of_column[column] = row

    matching.new = [
        topic.id
        for column, topic in enumerate(current)
        if column not in partner_of_column and column not in in_events_after
    ]
    matching.gone = [
        topic.id
        for row, topic in enumerate(previous)
        if row not in partner_of_row and row not in in_events_before
    ]
    return matching


def _left_open(topics: list[TopicSnapshot], in_both: np.ndarray, partner: dict, in_events: set) -> np.ndarray:
    """Which of one run's topics its papers could not match: no partner, in no merge or split, and
    less than ``_TRACKED_BY_PAPERS`` of its papers in both runs.
    """
    return np.array(
        [
            index not in partner
            and index not in in_events
            and in_both[index] < _TRACKED_BY_PAPERS * topic.size
            for index, topic in enumerate(topics)
        ],
        dtype=bool,
    )


def stable_ids(
    current_keys: list[int], continued: dict[int, int], next_id: int
) -> tuple[dict[int, int], int]:
    """Each current key's stable id: the previous id where continued, else a fresh one (in the
    order of ``current_keys``, i.e. by size). Returns the ids and the next id never used.
    """
    ids = {}
    for key in current_keys:
        if key in continued:
            ids[key] = continued[key]
        else:
            ids[key] = next_id
            next_id += 1
    return ids, next_id
