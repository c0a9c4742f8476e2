"""The topics stage's work, from the clusters to labelled, stably numbered, curated topics.

``run_topics`` chains the steps, each a function returning a small frozen record: the guide's
categories first (``guide``), the topics ordered by size (``order_by_size``), matched to history
(``follow_history``), curated (``curate``), fitted by BERTopic (``fit``), labelled (``label``),
described (``describe``) and compared with the previous run (``lineage``). A topic's numberings
(cluster label, number by size, stable id, curated id, BERTopic's number) are one table,
``papertopics.topics.ids.TopicIds``, that the steps fill in and read; one numbering leaves this
module, the stable id as curation shows it. ``papertopics.topics.stages.topics`` reads the files
and writes what ``run_topics`` returns.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from papertopics.mapping.cluster import OUTLIER, assign_outliers
from papertopics.settings import TopicStageSettings
from papertopics.topics.curation import Curated, Curation, apply_curation, curation_summary, missing_notice
from papertopics.topics.fit import describe_topics, fit_topic_model, topic_keywords
from papertopics.topics.guided import guided_topics, unmatched_names
from papertopics.topics.history import TopicHistory
from papertopics.topics.ids import TopicIds
from papertopics.topics.labeller import PaperTexts, TopicLabels, label_topics
from papertopics.topics.lineage import Followed, follow_history, record_run, trace_lineage, why_missing
from papertopics.topics.place import kept_labels, labels_as_fitted

_LOG = logging.getLogger(__name__)
NOT_A_TOPIC = "Not a topic"


@dataclass(frozen=True)
class Given:
    """What the topics are given beside the papers: ``topics.guide``'s names, ``topics.curation``'s
    corrections and, under ``update: place``, each paper's label and group label in the fit (""
    if placed), which its fitted topic and group keep (``papertopics.topics.place``).
    """

    guide_names: list[str] = ()
    curation: Curation = field(default_factory=Curation)
    fitted_labels: np.ndarray | None = None
    fitted_group_labels: np.ndarray | None = None


@dataclass
class TopicRun:
    """What a run of the topics stage found: each paper's topic (stable id, curated; -1 none) and
    its label, the topic records and groups, the fitted model, what changed since the previous
    run, the table of the topics' numberings, and the record history keeps (written by
    ``record``, last).
    """

    model: object
    topics: np.ndarray
    paper_labels: list[str]
    was_outlier: np.ndarray
    details: list[dict]
    groups: list[dict]
    lineage: dict
    summary: dict
    topic_ids: TopicIds
    _history: tuple = ()

    @property
    def n_topics(self) -> int:
        """Topics other than the papers without one."""
        return sum(1 for d in self.details if d["topic"] != OUTLIER)

    @property
    def model_topics(self) -> np.ndarray:
        """Each paper's topic in the fitted model's numbering."""
        shown = np.unique(self.topics)
        model = np.array([self.topic_ids.model_topic_of(int(t)) for t in shown], dtype=np.int64)
        return model[np.searchsorted(shown, self.topics)]

    def record(self) -> None:
        """Keep this run's topics (as found, before curation) for the next run to match against."""
        record_run(*self._history)


# ---------------------------------------------------------------- the steps, in order


@dataclass(frozen=True)
class Guided:
    """The clusters with the guide's categories first."""

    clusters: np.ndarray  # each paper's cluster label (-1: outlier)
    names: dict[int, str]  # cluster label → the guide's name for it
    unmatched: list[str]  # the guide's names no paper fits


def guide(
    names: list[str], encoder, vectors: np.ndarray, cluster_labels: np.ndarray, min_similarity: float
) -> Guided:
    """The clusters with the guide's categories first (``guided_topics``), the names no paper fits
    logged (they make no topic). No names: the clusters as they were.
    """
    if not names:
        return Guided(cluster_labels, {}, [])
    name_vectors = np.asarray(encoder.encode(names), dtype=np.float32)
    cluster_labels, named = guided_topics(vectors, name_vectors, cluster_labels, min_similarity)
    unmatched = unmatched_names(names, named)
    for name in unmatched:
        _LOG.warning("topics.guide: no paper fits %r, so it makes no topic", name)
    return Guided(cluster_labels, {cluster: names[index] for cluster, index in named.items()}, unmatched)


@dataclass(frozen=True)
class BySize:
    """This run's topics as found, largest first."""

    topic_ids: TopicIds  # its cluster and size columns
    rows: np.ndarray  # each paper's topic as found: its row of ``topic_ids`` (-1: none)


def order_by_size(vectors: np.ndarray, clusters: np.ndarray, reduce_outliers: bool) -> BySize:
    """The topics as found: the clusters (with the outliers assigned to the nearest, when
    ``reduce_outliers``) numbered 0, 1, ... from the largest.
    """
    return BySize(*TopicIds.by_size(assign_outliers(vectors, clusters) if reduce_outliers else clusters))


@dataclass(frozen=True)
class CuratedTopics:
    """The topics once the curation file's merges and hides apply."""

    topic_ids: TopicIds  # with the curated ids and what is hidden
    curated: Curated  # each paper's topic, merged and shown, and what was done


def curate(curation: Curation, followed: Followed, rows: np.ndarray) -> CuratedTopics:
    """Merge and hide topics by stable id; the ids the file names that this run lacks are logged."""
    stable = TopicIds.of_papers(followed.topic_ids.stable, rows)
    curated = apply_curation(curation, stable, why_missing(followed.matching, followed.topic_ids))
    for notice in missing_notice(curation, curated.missing):
        _LOG.warning("%s", notice)
    return CuratedTopics(followed.topic_ids.with_curation(curated.merged_into, set(curated.hidden)), curated)


@dataclass(frozen=True)
class Fitted:
    """BERTopic fitted on the shown topics."""

    model: object
    topic_ids: TopicIds  # with BERTopic's numbers
    keywords: dict[int, list[tuple[str, float]]]  # shown topic → weighted keywords, best first


def fit(
    texts: list[str],
    vectors: np.ndarray,
    rows: np.ndarray,
    topic_ids: TopicIds,
    encoder,
    keywords: TopicStageSettings,
) -> Fitted:
    """BERTopic's model of the shown topics (made as ``keywords``' keyword knobs say) and their keywords."""
    shown = TopicIds.of_papers(topic_ids.shown, rows)
    model, model_topics = fit_topic_model(texts, vectors, shown, encoder, keywords)
    topic_ids = topic_ids.with_model_topics(rows, model_topics)
    words = {topic_ids.shown_of_model(m): k for m, k in topic_keywords(model, model_topics).items()}
    return Fitted(model, topic_ids, words)


def _outlier_label(outliers: int, hidden: int) -> str:
    if hidden and outliers:
        return f"Outliers and topics marked {NOT_A_TOPIC.lower()}"
    return NOT_A_TOPIC if hidden else "Outliers"


@dataclass(frozen=True)
class Labelled:
    """The shown topics' labels and groups."""

    names: dict[int, str]  # shown topic → the guide's name it takes
    label_of: dict[int, str]  # shown topic (the outliers' -1 too) → label shown
    # Stable id → the label of the topic it is shown in, for every topic as found (merged-away
    # and hidden ones too).
    label_as_found: dict[int, str]
    labels: TopicLabels


def label(
    texts: list[str],
    vectors: np.ndarray,
    curated: CuratedTopics,
    fitted: Fitted,
    guided: Guided,
    baseline: dict | None,
    given: Given,
    settings: TopicStageSettings,
    encoder,
    read: PaperTexts,
) -> Labelled:
    """The labels (``label_topics``, which read each paper's title and keywords too, ``read``, and
    make ``settings.coarse_topics`` groups; a placed update's fitted
    topics keep theirs, ``kept_labels``, and with nothing new to label its groups keep theirs too,
    ``labels_as_fitted``), given to the model too, and the outliers' label.
    """
    topic_ids = fitted.topic_ids
    names = {topic_ids.stable_of_cluster(cluster): name for cluster, name in guided.names.items()}
    names = {t: name for t, name in names.items() if t in fitted.keywords}
    earlier = {t["id"]: t["label"] for t in baseline["topics"]} if baseline else {}
    kept = kept_labels(curated.curated.topics, given.fitted_labels)
    labels = labels_as_fitted(
        vectors, curated.curated, kept, given.fitted_group_labels, settings.coarse_topics
    ) or label_topics(
        texts,
        vectors,
        curated.curated,
        earlier,
        {**names, **given.curation.rename},
        kept,
        settings.coarse_topics,
        encoder,
        fitted.keywords,
        read,
    )
    outliers = int((curated.curated.merged == OUTLIER).sum())  # papers in no topic as found
    label_of = {**labels.label_of, OUTLIER: _outlier_label(outliers, sum(curated.curated.hidden.values()))}
    shown = set(curated.curated.topics.tolist())
    fitted.model.set_topic_labels(
        {topic_ids.model_topic_of(t): text for t, text in label_of.items() if t in shown}
    )
    label_as_found = {
        t: NOT_A_TOPIC if hidden else label_of[shown_as]
        for t, shown_as, hidden in zip(
            topic_ids.stable.tolist(), topic_ids.curated.tolist(), topic_ids.hidden.tolist(), strict=True
        )
    }
    return Labelled(names, label_of, label_as_found, labels)


@dataclass(frozen=True)
class Described:
    """The topic records and each paper's label."""

    details: list[dict]  # ``topic_details.json``'s topics, outliers last
    paper_labels: list[str]


def describe(
    ids: list[str],
    vectors: np.ndarray,
    curated: CuratedTopics,
    fitted: Fitted,
    labelled: Labelled,
    curation: Curation,
    n_representative_docs: int,
) -> Described:
    """One record per shown topic (``describe_topics``, with its model number, group, and what the
    guide and curation did to it), and each paper's label.
    """
    shown, merged, hidden = curated.curated.topics, curated.curated.merged, curated.curated.hidden
    label_of = labelled.label_of
    details = describe_topics(fitted.keywords, label_of, ids, vectors, shown, n_representative_docs)
    for record in details:
        topic = record["topic"]
        record["model_topic"] = fitted.topic_ids.model_topic_of(topic)
        record["named"] = topic in labelled.names
        record["curated"] = topic in curation.rename and topic != OUTLIER
        record["group"] = labelled.labels.group_of.get(topic)
        record["label_source"] = labelled.labels.source.get(topic)
        if topic in curation.note:
            record["note"] = curation.note[topic]
    paper_labels = [
        NOT_A_TOPIC if topic == OUTLIER and before in hidden else label_of[topic]
        for topic, before in zip(shown.tolist(), merged.tolist(), strict=True)
    ]
    return Described(details, paper_labels)


def run_topics(
    texts: list[str],
    ids: list[str],
    vectors: np.ndarray,
    cluster_labels: np.ndarray,
    history: TopicHistory,
    settings: TopicStageSettings,
    encoder=None,
    given: Given = Given(),
    titles: list[str] | None = None,
    keywords: list[list[str]] | None = None,
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
        given: the guide's names, the curation and a placed update's fitted labels.
        titles: each paper's title ("" where it has none), which the labels read too.
        keywords: each paper's keywords as its input gives them (none where it gives none),
            a topic's first label candidates (``papertopics.topics.author_keywords``).
    """
    curation = given.curation
    guided = guide(
        list(given.guide_names), encoder, vectors, np.asarray(cluster_labels), settings.guide_min_similarity
    )
    as_found = order_by_size(vectors, guided.clusters, settings.reduce_outliers)
    followed = follow_history(
        history,
        ids,
        vectors,
        as_found.topic_ids,
        as_found.rows,
        settings.min_overlap,
        settings.min_similarity,
    )
    curated = curate(curation, followed, as_found.rows)
    fitted = fit(texts, vectors, as_found.rows, curated.topic_ids, encoder, settings)
    labelled = label(
        texts,
        vectors,
        curated,
        fitted,
        guided,
        followed.baseline,
        given,
        settings,
        encoder,
        PaperTexts(titles, keywords, settings.label_keyword_min_papers),
    )
    described = describe(ids, vectors, curated, fitted, labelled, curation, settings.n_representative_docs)
    traced = trace_lineage(
        followed,
        fitted.topic_ids,
        labelled.label_as_found,
        labelled.labels.from_papers,
        labelled.labels.relabelled,
        fitted.keywords,
        ids,
    )
    return TopicRun(
        fitted.model,
        curated.curated.topics,
        described.paper_labels,
        guided.clusters == OUTLIER,
        described.details,
        labelled.labels.groups,
        traced.events,
        _summary(guided, labelled, curation, curated.curated),
        fitted.topic_ids,
        (history, followed.run, followed.baseline, traced.kept),
    )


def _summary(guided: Guided, labelled: Labelled, curation: Curation, curated: Curated) -> dict:
    """``topic_details.json``'s figures: outliers before reduction, guided and coarse topics, curation."""
    return {
        "outliers_before_reduction": int((guided.clusters == OUTLIER).sum()),
        "named_topics": len(labelled.names),
        "guide_unmatched": guided.unmatched,
        "coarse_topics": len(labelled.labels.groups),
        "curation": curation_summary(curation, curated, labelled.labels.from_papers),
    }
