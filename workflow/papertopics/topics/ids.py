"""The topics stage's numberings in one table: one row per topic as found, one column per numbering.

A topic is numbered five ways on its way through the stage: the cluster stage's label (with the
guide's categories, ``papertopics.topics.guided``), its number in this run by size (the row: 0 is
the largest), its stable id (``papertopics.topics.lineage``, followed across runs), the id it is
shown under once curation has merged and hidden topics (``papertopics.topics.curation``), and
BERTopic's own number for the topic it is shown in. Each step of ``papertopics.topics.run`` adds
its column; every other step reads the table instead of a mapping of its own. A paper carries
one number, its topic's row (``OUTLIER`` for none), and the table turns it into any other.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from papertopics.mapping.cluster import OUTLIER


@dataclass(frozen=True, eq=False)
class TopicIds:
    """The numberings of this run's topics as found, row ``n`` the ``n``-th largest.

    ``cluster`` and ``size`` are known once the topics are ordered by size; ``stable``,
    ``curated`` with ``hidden``, and ``model_topic`` are added by the steps that settle them
    (None until then).
    """

    cluster: np.ndarray  # the cluster label its papers had (after the guide)
    size: np.ndarray  # its papers (outliers assigned to it included)
    stable: np.ndarray | None = None  # its id across runs
    curated: np.ndarray | None = None  # the stable id it is shown under once merges apply
    hidden: np.ndarray | None = None  # whether curation hides it (its papers shown as outliers)
    model_topic: np.ndarray | None = None  # BERTopic's number for the topic it is shown in

    @classmethod
    def by_size(cls, clusters: np.ndarray) -> tuple[TopicIds, np.ndarray]:
        """The table of the clusters ordered largest first (ties: the lower label first), and each
        paper's row (``OUTLIER`` stays).
        """
        clusters = np.asarray(clusters)
        real, counts = np.unique(clusters[clusters != OUTLIER], return_counts=True)
        order = np.lexsort((real, -counts))
        rows = np.full(len(clusters), OUTLIER, dtype=np.int64)
        for row, cluster in enumerate(real[order].tolist()):
            rows[clusters == cluster] = row
        return cls(cluster=real[order].astype(np.int64), size=counts[order].astype(np.int64)), rows

    def __len__(self) -> int:
        """The topics as found."""
        return len(self.cluster)

    @property
    def shown(self) -> np.ndarray:
        """The id each topic is shown under: its curated id, ``OUTLIER`` where hidden."""
        return np.where(self.hidden, OUTLIER, self.curated).astype(np.int64)

    def with_stable(self, stable_of_row: dict[int, int]) -> TopicIds:
        """The table with each row's stable id (``stable_of_row``: row → id)."""
        return replace(
            self, stable=np.array([stable_of_row[row] for row in range(len(self))], dtype=np.int64)
        )

    def with_curation(self, merged_into: dict[int, int], hidden: set[int]) -> TopicIds:
        """The table with curation applied (``merged_into``: merged-away stable id → the one it is
        shown under; ``hidden``: the stable ids hidden).
        """
        stable = self.stable.tolist()
        return replace(
            self,
            curated=np.array([merged_into.get(t, t) for t in stable], dtype=np.int64),
            hidden=np.array([t in hidden for t in stable], dtype=bool),
        )

    def with_model_topics(self, rows: np.ndarray, model_topics: np.ndarray) -> TopicIds:
        """The table with BERTopic's number of each topic (``model_topics``, each paper's number in
        the fitted model; ``rows``, each paper's row).
        """
        model_of_shown = dict(
            zip(self.of_papers(self.shown, rows).tolist(), np.asarray(model_topics).tolist(), strict=True)
        )
        return replace(
            self, model_topic=np.array([model_of_shown[t] for t in self.shown.tolist()], dtype=np.int64)
        )

    @staticmethod
    def of_papers(column: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """A column's value for each paper (``rows``: each paper's row; ``OUTLIER`` stays)."""
        rows = np.asarray(rows)
        values = np.full(len(rows), OUTLIER, dtype=np.int64)
        real = rows != OUTLIER
        values[real] = np.asarray(column)[rows[real]]
        return values

    def stable_of_cluster(self, cluster: int) -> int:
        """The stable id of the topic a cluster became."""
        return int(self.stable[np.flatnonzero(self.cluster == cluster)[0]])

    def model_topic_of(self, shown: int) -> int:
        """BERTopic's number of a shown topic; BERTopic keeps ``OUTLIER`` (-1) for the outliers."""
        if shown == OUTLIER:
            return OUTLIER
        return int(self.model_topic[np.flatnonzero(self.shown == shown)[0]])

    def shown_of_model(self, model_topic: int) -> int:
        """The shown topic of BERTopic's number ``model_topic``."""
        if model_topic == OUTLIER:
            return OUTLIER
        return int(self.shown[np.flatnonzero(self.model_topic == model_topic)[0]])
