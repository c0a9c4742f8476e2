"""The topics stage's work, from the clusters to labelled, stably numbered, curated topics.

One numbering leaves this module: each topic's stable id (``papertopics.topics.lineage``), under which
curation (``papertopics.topics.curation``) merges and hides topics. The others stay inside, each for one
step: the cluster stage's labels (with guided categories, ``papertopics.topics.guided``), this run's
topics by size (what history is matched with), and BERTopic's own topic numbers (mapped to stable
ids by their papers as soon as the model is fitted). ``run_topics`` runs the steps in order; each
step is a function of its own, so that a step is added where it belongs. ``papertopics.topics.stages.topics``
reads the files and writes what ``run_topics`` returns.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

import numpy as np

from papertopics.topics.curation import Curated, Curation, apply_curation, missing_notice
from papertopics.topics.fit import OUTLIER, assign_outliers
from papertopics.topics.lineage import (
    TopicHistory,
    carry_labels,
    follow_topics,
    lineage_events,
    paper_flows,
    record_run,
)

_LOG = logging.getLogger(__name__)
NOT_A_TOPIC = "Not a topic"


@dataclass(frozen=True)
class TopicSettings:
    """The knobs of the topics stage (the rule's params)."""

    n_representative_docs: int = 5
    coarse_topics: int | str = "auto"
    min_overlap: float = 0.3
    min_similarity: float = 0.85
    guide_min_similarity: float = 0.4
    reduce_outliers: bool = True
    # The keyword settings of ``papertopics.topics.fit.fit_topic_model``.
    keywords: dict = field(default_factory=dict)


@dataclass
class TopicRun:
    """What a run of the topics stage found: each paper's topic (stable id, curated; -1 none) and
    its label, the topic records and groups, the fitted model, what changed since the previous
    run, and the record history keeps (written by ``record``, last).
    """

    model: object
    topics: np.ndarray
    paper_labels: list[str]
    was_outlier: np.ndarray
    details: list[dict]
    groups: list[dict]
    lineage: dict
    summary: dict
    _history: tuple = ()

    @property
    def n_topics(self) -> int:
        """Topics other than the papers without one."""
        return sum(1 for d in self.details if d["topic"] != OUTLIER)

    def record(self) -> None:
        """Keep this run's topics (as found, before curation) for the next run to match against."""
        record_run(*self._history)


def by_size(labels: np.ndarray) -> np.ndarray:
    """Topics renumbered 0, 1, ... from the largest (ties: the lower label first); -1 stays."""
    real, counts = np.unique(labels[labels != OUTLIER], return_counts=True)
    order = real[np.lexsort((real, -counts))]
    renumbered = np.full(len(labels), OUTLIER, dtype=np.int64)
    for number, label in enumerate(order.tolist()):
        renumbered[labels == label] = number
    return renumbered


def guided_clusters(
    names: list[str], encoder, vectors: np.ndarray, cluster_labels: np.ndarray, min_similarity: float
) -> tuple[np.ndarray, dict[int, str], list[str]]:
    """The clusters with the guide's categories first (``guided_topics``), named cluster → its
    name, and the names no paper fits (logged: they make no topic). No names: as they were.
    """
    from papertopics.topics.guided import guided_topics, unmatched_names

    if not names:
        return cluster_labels, {}, []
    name_vectors = np.asarray(encoder.encode(names), dtype=np.float32)
    cluster_labels, named = guided_topics(vectors, name_vectors, cluster_labels, min_similarity)
    unmatched = unmatched_names(names, named)
    for name in unmatched:
        _LOG.warning("topics.guide: no paper fits %r, so it makes no topic", name)
    return cluster_labels, {cluster: names[index] for cluster, index in named.items()}, unmatched


def _why_missing(matching, baseline: dict | None) -> dict[int, str]:
    """What became of the previous run's ids that this run does not continue."""
    why = {old: "gone (its papers are in no topic of this run)" for old in matching.gone}
    for into, olds in matching.merges:
        why.update({old: f"merged with other topics into a topic of this run (now {into})" for old in olds})
    for old, into in matching.splits:
        why[old] = f"split into topics {', '.join(map(str, into))}"
    return why


def _model_topic_of(model_topics: np.ndarray, shown: np.ndarray) -> dict[int, int]:
    """Shown topic → the fitted model's number for it (found by their papers)."""
    return {int(s): int(m) for m, s in set(zip(model_topics.tolist(), shown.tolist(), strict=True))}


@dataclass
class _Labels:
    label_of: dict[int, str]  # shown topic → label shown (named, curated, carried or fresh)
    found: dict[int, str]  # shown topic → label made from its papers (carried or fresh)
    relabelled: list[dict]
    groups: list[dict]
    group_of: dict[int, int]


def label_topics(
    texts: list[str],
    vectors: np.ndarray,
    curated: Curated,
    earlier: dict[int, str],
    names: dict[int, str],
    curation: Curation,
    coarse_topics: int | str,
    encoder=None,
    keywords: dict[int, list] | None = None,
    titles: list[str] | None = None,
) -> _Labels:
    """Labels of the topics (hidden ones too, for the record) and groups of the shown ones: a name
    of the guide, else a curated label, else the earlier label while it still fits
    (``carry_labels``), else a fresh one (``papertopics.topics.labels``; ``encoder``, the model that
    embedded ``vectors``, places its second phrase; ``keywords``, each shown topic's c-TF-IDF
    keywords, best first, as words or (word, weight) pairs, are what its first phrase agrees with;
    ``titles``, each paper's title or "", are read with its text).
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from papertopics.mapping.sizing import resolve_coarse_topics
    from papertopics.topics.fit import topic_centroids, topic_groups
    from papertopics.topics.label_choice import PhrasePlacement, group_labels, nearest_topics, topic_labels
    from papertopics.topics.labels import PhraseTable, label_phrases

    shown = curated.topics
    real = sorted(set(curated.merged.tolist()) - {OUTLIER})
    earlier = {t: label for t, label in earlier.items() if t in real and label}
    table = PhraseTable(
        texts,
        curated.merged,
        frozenset(ENGLISH_STOP_WORDS),
        extra_phrases=[p for label in earlier.values() for p in label_phrases(label)],
        titles=titles,
    )
    n_shown = len(set(shown.tolist()) - {OUTLIER})
    group_of, groups = topic_groups(vectors, shown, resolve_coarse_topics(coarse_topics, n_shown))
    neighbours = nearest_topics(vectors, curated.merged)
    for topic in real:
        siblings = [t for t in real if t != topic and group_of.get(t, -1) == group_of.get(topic)]
        neighbours[topic] = sorted(set(neighbours[topic]) | (set(siblings) if topic in group_of else set()))
    placement = None
    if encoder is not None and real:
        centroids = topic_centroids(vectors, curated.merged, real)
        placement = PhrasePlacement(encoder, dict(zip(real, centroids, strict=True)))
    words = {t: [k if isinstance(k, str) else k[0] for k in ks] for t, ks in (keywords or {}).items()}
    fresh = topic_labels(table, neighbours, placement, words)
    found, relabelled = carry_labels(fresh, table.fits, earlier)
    label_of = {**found, **names, **{t: label for t, label in curation.rename.items() if t in found}}
    label_of = {t: label for t, label in label_of.items() if t not in curated.hidden}
    relabelled = [r for r in relabelled if label_of.get(r["id"]) == found[r["id"]]]
    for group, label in zip(
        groups, group_labels(table, [g["topics"] for g in groups], label_of), strict=True
    ):
        group["label"] = label
    return _Labels(label_of, found, relabelled, groups, group_of)


def _outlier_label(outliers: int, hidden: int) -> str:
    if hidden and outliers:
        return f"Outliers and topics marked {NOT_A_TOPIC.lower()}"
    return NOT_A_TOPIC if hidden else "Outliers"


def run_topics(
    texts: list[str],
    ids: list[str],
    vectors: np.ndarray,
    cluster_labels: np.ndarray,
    history: TopicHistory,
    settings: TopicSettings,
    encoder=None,
    guide_names: list[str] = (),
    curation: Curation | None = None,
    titles: list[str] | None = None,
) -> TopicRun:
    """The topics of the clustered papers: guided, matched to history, curated, fitted, labelled.

    Args:
        texts: each paper's abstract, as c-TF-IDF and the labels read it.
        ids: each paper's id.
        vectors: each paper's embedding.
        cluster_labels: the cluster stage's label per paper (-1: outlier).
        history: the earlier runs' topics.
        settings: the stage's knobs.
        encoder: the embedding model (the one that embedded ``vectors``), for the guide, the
            labels' second phrases (``papertopics.topics.label_choice.PhrasePlacement``) and the
            representation where it needs one; without it, labels take their best scoring
            second phrase.
        guide_names: ``topics.guide``'s names.
        curation: ``topics.curation``'s corrections (None: none).
        titles: each paper's title ("" where it has none), which the labels read too.
    """
    from papertopics.topics.fit import describe_topics, fit_topic_model, topic_keywords
    from papertopics.topics.lineage import topic_snapshots

    curation = curation or Curation()
    clusters, named_clusters, unmatched = guided_clusters(
        list(guide_names), encoder, vectors, np.asarray(cluster_labels), settings.guide_min_similarity
    )
    was_outlier = clusters == OUTLIER
    found = by_size(assign_outliers(vectors, clusters) if settings.reduce_outliers else clusters)
    snapshots = topic_snapshots(ids, vectors, found)
    stable_id, matching, baseline, run = follow_topics(
        history, snapshots, settings.min_overlap, settings.min_similarity
    )
    stable = np.array([stable_id.get(t, OUTLIER) for t in found.tolist()], dtype=np.int64)
    curated = apply_curation(curation, stable, _why_missing(matching, baseline))
    for notice in missing_notice(curation, curated.missing):
        _LOG.warning("%s", notice)
    shown = curated.topics

    model, model_topics = fit_topic_model(texts, vectors, shown, embedding_model=encoder, **settings.keywords)
    model_topic = _model_topic_of(model_topics, shown)
    keywords = {int(shown[model_topics == m][0]): k for m, k in topic_keywords(model, model_topics).items()}
    names = {
        stable_id[int(found[np.flatnonzero(clusters == cluster)[0]])]: name
        for cluster, name in named_clusters.items()
    }
    names = {t: name for t, name in names.items() if t in keywords}
    earlier = {t["id"]: t["label"] for t in baseline["topics"]} if baseline else {}
    labels = label_topics(
        texts, vectors, curated, earlier, names, curation, settings.coarse_topics, encoder, keywords, titles
    )
    outliers = int(((shown == OUTLIER) & (stable == OUTLIER)).sum())
    label_of = {**labels.label_of, OUTLIER: _outlier_label(outliers, sum(curated.hidden.values()))}
    model.set_topic_labels({model_topic[t]: label for t, label in label_of.items() if t in model_topic})

    details = describe_topics(keywords, label_of, ids, vectors, shown, settings.n_representative_docs)
    for record in details:
        topic = record["topic"]
        record["model_topic"] = model_topic[topic]
        record["named"] = topic in names
        record["curated"] = topic in curation.rename and topic != OUTLIER
        record["group"] = labels.group_of.get(topic)
        if topic in curation.note:
            record["note"] = curation.note[topic]
    paper_labels = [
        NOT_A_TOPIC if topic == OUTLIER and before in curated.hidden else label_of[topic]
        for topic, before in zip(shown.tolist(), stable.tolist(), strict=True)
    ]
    # Every id as found (merged-away and hidden ones too) under the label of the topic it is shown in.
    found_labels = {
        t: NOT_A_TOPIC if t in curated.hidden else label_of[curated.merged_into.get(t, t)]
        for t in stable_id.values()
    }
    sizes = {t.id: t.size for t in snapshots}
    lineage = lineage_events(
        matching,
        stable_id,
        found_labels,
        {stable_id[key]: size for key, size in sizes.items()},
        baseline,
        run,
        labels.relabelled,
        set(ids),
    )
    lineage["flows"] = paper_flows(baseline, snapshots, stable_id)
    # History keeps the topics as found, each with the label and keywords of the topic it is shown in.
    shown_as = {t: curated.merged_into.get(t, t) for t in stable_id.values()}
    kept = [
        replace(
            topic,
            id=stable_id[topic.id],
            label=labels.found.get(shown_as[stable_id[topic.id]], ""),
            keywords=tuple(word for word, _ in keywords.get(shown_as[stable_id[topic.id]], [])),
        )
        for topic in snapshots
    ]
    summary = {
        "outliers_before_reduction": int(was_outlier.sum()),
        "named_topics": len(names),
        "guide_unmatched": unmatched,
        "coarse_topics": len(labels.groups),
        "curation": _curation_summary(curation, curated, labels.found),
    }
    return TopicRun(
        model,
        shown,
        paper_labels,
        was_outlier,
        details,
        labels.groups,
        lineage,
        summary,
        (history, run, baseline, kept),
    )


def _curation_summary(curation: Curation, curated: Curated, found: dict[int, str]) -> dict | None:
    """What the curation file did this run, for ``topic_details.json`` and the report."""
    if curation.source is None:
        return None
    return {
        "file": curation.source,
        "renamed": sorted(t for t in curation.rename if t not in {m["id"] for m in curated.missing}),
        "merged": [
            {"into": into, "from": sorted(t for t, target in curated.merged_into.items() if target == into)}
            for into in sorted(set(curated.merged_into.values()))
        ],
        "hidden": [{"id": t, "papers": papers, "label": found[t]} for t, papers in curated.hidden.items()],
        "missing": curated.missing,
        "notices": missing_notice(curation, curated.missing),
    }
