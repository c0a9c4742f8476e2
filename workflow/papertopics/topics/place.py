"""``update: place`` in the topics stage: the topics of the papers the cluster stage placed on
the last fit (``papertopics.mapping.cluster_placement``) settled, and the new topics reported.
"""

from __future__ import annotations

import logging
from collections import Counter

import numpy as np

from papertopics.mapping.cluster import OUTLIER

_LOG = logging.getLogger(__name__)


def placed_fitted_labels(labels: str) -> np.ndarray | None:
    """Under ``update: place``, each paper's label in the fit ("" for a placed paper) from the
    cluster stage's file ``labels``; None for a refit.
    """
    from papertopics import storage

    placed = storage.read_arrays(labels)
    return placed["fitted_label"] if str(placed["mode"]) == "place" else None


def kept_labels(topics: np.ndarray, fitted_labels: np.ndarray | None) -> dict[int, str]:
    """The label each topic of a placed update's fitted papers keeps (``topics``: each paper's
    topic; ``fitted_labels``: ``placed_fitted_labels``), so that what a reader saw stays as it
    was and the topics stage need not choose it afresh; none for a refit.
    """
    if fitted_labels is None:
        return {}
    rows = np.flatnonzero((np.asarray(fitted_labels) != "") & (np.asarray(topics) != OUTLIER))
    return dict(zip(np.asarray(topics)[rows].tolist(), np.asarray(fitted_labels)[rows].tolist(), strict=True))


def settle_placed_topics(labels: str, topic_run) -> dict | None:
    """After the topics stage's run on placed clusters (``labels``, the cluster stage's file):
    each paper's outlier flag as placed (a fitted paper's as the fit left it), and the new topics,
    with their final ids and labels, per dump they are new in; None for a refit.
    """
    from papertopics import storage

    placed = storage.read_arrays(labels)
    if str(placed["mode"]) != "place":
        return None
    topic_run.was_outlier = placed["outlier"]
    # A fitted topic keeps the label it was fitted with, so that what a reader saw stays as it was.
    fitted = placed["fitted_label"] != ""
    kept = dict(zip(topic_run.topics[fitted].tolist(), placed["fitted_label"][fitted].tolist(), strict=True))
    for record in topic_run.details:
        record["label"] = kept.get(record["topic"], record["label"])
    topic_run.paper_labels = [
        kept.get(t, label) for t, label in zip(topic_run.topics.tolist(), topic_run.paper_labels, strict=True)
    ]
    label_of = {d["topic"]: d["label"] for d in topic_run.details}
    new_topics = []
    for dump in dict.fromkeys(placed["new_in"][placed["new_in"] != ""].tolist()):
        topics = Counter(topic_run.topics[placed["new_in"] == dump].tolist())
        new_topics += [
            {"dump": dump, "topic": int(t), "label": label_of.get(t, ""), "papers": n}
            for t, n in sorted(topics.items())
        ]
    for topic in new_topics:
        _LOG.warning(
            "new in %s: topic %d, %s (%d papers)",
            topic["dump"],
            topic["topic"],
            topic["label"],
            topic["papers"],
        )
    return {"new_topics": new_topics}
