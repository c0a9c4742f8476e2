"""``update: place`` in the topics stage: the topics of the papers the cluster stage placed on
the last fit (``papertopics.mapping.cluster_placement``) settled, and the new topics reported.
"""

from __future__ import annotations

import logging
from collections import Counter

import numpy as np

from papertopics.mapping.cluster import OUTLIER
from papertopics.mapping.sizing import resolve_coarse_topics
from papertopics.topics.label_display import KEPT_FROM_FIT
from papertopics.topics.labeller import TopicLabels
from papertopics.topics.topic_groups import topic_groups

_LOG = logging.getLogger(__name__)


def placed_fitted_labels(placed: dict) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Under ``update: place``, each paper's label in the fit and its topic's group label there
    ("" for a placed paper, and for every paper where the fit kept no group labels), from the
    cluster stage's arrays (``labels.npz``, ``placed``); None and None for a refit.
    """
    if str(placed["mode"]) != "place":
        return None, None
    fitted = placed["fitted_label"]
    return fitted, placed.get("fitted_group_label", np.full(len(fitted), ""))


def kept_labels(topics: np.ndarray, fitted_labels: np.ndarray | None) -> dict[int, str]:
    """The label each topic of a placed update's fitted papers keeps (``topics``: each paper's
    topic; ``fitted_labels``: ``placed_fitted_labels``), so that what a reader saw stays as it
    was and the topics stage need not choose it afresh; none for a refit.
    """
    if fitted_labels is None:
        return {}
    rows = np.flatnonzero((np.asarray(fitted_labels) != "") & (np.asarray(topics) != OUTLIER))
    return dict(zip(np.asarray(topics)[rows].tolist(), np.asarray(fitted_labels)[rows].tolist(), strict=True))


def labels_as_fitted(
    vectors: np.ndarray,
    curated,
    kept: dict[int, str],
    fitted_group_labels: np.ndarray | None,
    coarse_topics: int | str,
) -> TopicLabels | None:
    """A placed update's labels and groups when it has nothing to label: every topic (``curated``'s,
    ``papertopics.topics.curation.Curated``) keeps its fitted label (``kept``), and the groups,
    made again from the topics' papers as after a refit (``topic_groups``), are the fit's
    (the same topics each), so each keeps the label it had in the fit (``fitted_group_labels``:
    ``placed_fitted_labels``' second). Then nothing is chosen, and the phrase table the labeller
    reads is not made (a fifth of the topics stage at 10,000 papers). None where something must
    be labelled: a refit, a new topic, a hidden one (labelled for the record), groups other than
    the fit's.
    """
    real = set(curated.merged.tolist()) - {OUTLIER}
    if fitted_group_labels is None or not real <= kept.keys():
        return None
    members: dict[str, set[int]] = {}
    for topic, label in zip(curated.topics.tolist(), np.asarray(fitted_group_labels).tolist(), strict=True):
        if label and topic != OUTLIER:
            members.setdefault(label, set()).add(topic)
    fitted_groups = {frozenset(topics): label for label, topics in members.items()}
    group_of, groups = topic_groups(vectors, curated.topics, resolve_coarse_topics(coarse_topics, len(real)))
    if {frozenset(group["topics"]) for group in groups} != fitted_groups.keys():
        return None
    for group in groups:
        group["label"] = fitted_groups[frozenset(group["topics"])]
    labels = {topic: kept[topic] for topic in sorted(real)}
    return TopicLabels(labels, dict.fromkeys(labels, KEPT_FROM_FIT), dict(labels), [], groups, group_of)


def settle_placed_topics(placed: dict, topic_run) -> dict | None:
    """After the topics stage's run on placed clusters (``placed``, the cluster stage's arrays):
    each paper's outlier flag as placed (a fitted paper's as the fit left it), and the new topics,
    with their final ids and labels, per dump they are new in; None for a refit.
    """
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
