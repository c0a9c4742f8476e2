"""The topic stages, file to file: the topics fitted and labelled, and their evaluation.

Each function is what one Snakemake rule runs. Its parameters are named as the rule's inputs,
outputs and params (paths first), because the rule's script passes them by name (the topics
stage's files gathered by name into ``TopicInputs`` and ``TopicOutputs``); heavy libraries are
imported inside the functions, only when the stage that needs them runs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from papertopics import storage
from papertopics.embed.encoders import EncoderOnDemand, corpus_embeddings, load_model
from papertopics.embed.models import resolve_model_location
from papertopics.ingest.parse import input_columns, paper_keywords
from papertopics.mapping.cluster import OUTLIER, topic_centroids
from papertopics.settings import EvaluateSettings, TopicStageSettings
from papertopics.storage import flag_column
from papertopics.topics.bridges import FurtherTopics, bridges_table, further_topic_columns, further_topics
from papertopics.topics.curation import load_curation
from papertopics.topics.fit import needs_embedding_model
from papertopics.topics.guided import load_guide
from papertopics.topics.history import TopicHistory
from papertopics.topics.quality import evaluate_topics

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class TopicInputs:
    """What the topics stage reads (the rule's inputs, by name).

    Attributes:
        papers: the corpus (JSON Lines).
        embeddings: the dumps' embedding files.
        layout: the 2-d map's coordinates.
        labels: the cluster stage's labels.
        cluster_settings: the cluster stage's settings, whose consensus figures are kept.
        guide_file: ``topics.guide`` when it is a file (zero or one path); an input, so that
            editing the file reruns the stage.
        curation_file: ``topics.curation`` (zero or one path); an input, likewise.
        periods_table: the periods stage's papers (each paper's period and group), for each
            topic's wording per period (and per group, with ``compare.by`` naming a field).
        periods_settings: the periods stage's settings (``periods.json``).
        history: the published history's topic record (``papertopics.topics.history``; zero or
            one path), which this run's topics are matched against.
        fitted_wording: under ``update: place``, each fitted topic's wording per period as the
            last fit kept it (``results/fit/wording.json``; zero or one path).
    """

    papers: str
    embeddings: list[str]
    layout: str
    labels: str
    cluster_settings: str
    guide_file: list[str]
    curation_file: list[str]
    periods_table: str
    periods_settings: str
    history: list[str]
    fitted_wording: list[str]


@dataclass(frozen=True)
class TopicOutputs:
    """What the topics stage writes (the rule's outputs, by name).

    Attributes:
        topics: ``topics.csv`` (see ``topic_table``).
        topic_papers: ``papers.csv``: every paper with its topic and map position.
        details: ``topic_details.json``: settings, topics and topic groups.
        model: the folder of the saved BERTopic model.
        figures: the model's figures (``papertopics.figures``).
        lineage: how this run's topics continue the previous run's.
        bridges: ``bridges.csv``: the topic pairs that papers share (``bridges_table``).
        strategic: ``strategic.csv``: each topic's Callon centrality, density and quadrant
            (``papertopics.topics.strategic``).
        next_history: this run's topic record, staged: published as the history's with the run.
    """

    topics: str
    topic_papers: str
    details: str
    model: str
    figures: str
    lineage: str
    bridges: str
    strategic: str
    next_history: str


def topics(inputs: TopicInputs, outputs: TopicOutputs, knobs: dict) -> None:
    """Find the topics of the clusters (``papertopics.topics.run``) and write them; ``knobs``:
    ``papertopics.settings.TopicStageSettings``'s fields.
    """
    # papertopics.figures imports plotly at its top: only the topics job loads it.
    from papertopics.figures import model_figures
    from papertopics.periods.assign import load_groups
    from papertopics.topics.place import placed_fitted_labels, settle_placed_topics
    from papertopics.topics.run import Given, run_topics

    records, vectors = corpus_embeddings(inputs.papers, inputs.embeddings)
    ids = [p["id"] for p in records]
    clusters = storage.read_arrays(inputs.labels)  # the cluster stage's labels.npz, read once
    map_2d = _layout_in_corpus_order(inputs.layout, clusters, ids)
    chosen = TopicStageSettings(**knobs)
    names = load_guide(inputs.guide_file[0] if inputs.guide_file else chosen.guide_names)
    curation = load_curation(inputs.curation_file[0] if inputs.curation_file else None)
    texts = [p["text"] for p in records]
    author_keywords = [paper_keywords(p) for p in records]
    fitted_labels, fitted_group_labels = placed_fitted_labels(clusters)
    found = run_topics(
        texts,
        ids,
        vectors,
        clusters["labels"],
        TopicHistory(inputs.history[0] if inputs.history else None, staged=outputs.next_history),
        chosen,
        # The labels' second phrases are placed by meaning, with the model; BERTopic needs it
        # loaded for the representations that embed keywords, the rest only when they embed.
        encoder=load_model(chosen.embedding_model, chosen.max_seq_length)
        if needs_embedding_model(chosen.representation)
        else EncoderOnDemand(chosen.embedding_model, chosen.max_seq_length, chosen.embedding_cache_dir),
        given=Given(names, curation, fitted_labels, fitted_group_labels),
        titles=[p.get("title") or "" for p in records],
        keywords=author_keywords,
    )
    placement = settle_placed_topics(clusters, found)
    # A placed update's new papers ("" in the fit); none in a refit.
    placed = np.zeros(len(ids), dtype=bool) if fitted_labels is None else fitted_labels == ""
    further = further_topics(vectors, found.topics, chosen.further_topic_min_weight)
    paper_table = _paper_table(records, found, further, map_2d, placed)
    periods, groups = load_groups(inputs.periods_table, inputs.periods_settings, ids)
    # The fit's wording, where this run places papers on that fit (a refit words every period).
    _add_wording(found, texts, (periods, groups), inputs.fitted_wording if fitted_labels is not None else [])
    storage.write_csv(outputs.topics, topic_table(found.details))
    storage.write_csv(outputs.topic_papers, paper_table)
    label_of = {d["topic"]: d["label"] for d in found.details}
    storage.write_csv(outputs.bridges, bridges_table(found.topics, further, label_of))
    strategic_source = _write_strategic(outputs.strategic, records, author_keywords, found, periods)
    recorded = {
        "embedding_model": chosen.embedding_model,
        **chosen.recorded(),
        "topics": found.n_topics,
        "coarse_topics_setting": chosen.coarse_topics,
        "guide": names,
        "guide_min_similarity": chosen.guide_min_similarity if names else None,
        **found.summary,
        "consensus": storage.read_json(inputs.cluster_settings).get("consensus"),
        "wording_by": periods.by,
        "strategic_keywords": strategic_source,
        "placement": placement,
    }
    storage.write_json(
        outputs.details, {"settings": recorded, "topics": found.details, "groups": found.groups}
    )
    storage.write_json(outputs.figures, model_figures(found.model, grouped_topics(vectors, found)))
    location = resolve_model_location(chosen.embedding_model)
    _save_model(found.model, outputs.model, location, chosen.save_ctfidf)
    storage.write_json(outputs.lineage, found.lineage)
    # Staged: the publish rule puts it in the published history once the whole run succeeds.
    found.record()
    _LOG.info(
        "%d topics (run %d of this history): %s",
        found.n_topics,
        found.lineage["run"],
        [d["label"] for d in found.details],
    )


def _write_strategic(path: str, records: list[dict], author_keywords: list[list[str]], found, periods) -> str:
    """The strategic diagram's table (``papertopics.topics.strategic``) written to ``path``, with
    each topic's place among the first and the last period's papers where the periods are
    ordered and two or more; which keywords it counted.
    """
    # papertopics.topics.strategic imports pandas at its top: only the topics job loads it.
    from papertopics.topics.strategic import strategic_table

    real = [d for d in found.details if d["topic"] != OUTLIER]
    period = np.full(len(records), -1)
    if periods.ordered and len(periods.names) >= 2:
        index = {name: i for i, name in enumerate(periods.names)}
        period[periods.rows] = [index[name] for name in periods.period]
    table, source = strategic_table(
        [f"{p.get('title') or ''}. {p['text']}" for p in records],
        author_keywords,
        np.asarray(found.topics),
        {d["topic"]: [word for word, _ in d["keywords"]] for d in real},
        {d["topic"]: d["label"] for d in real},
        (period, periods.names) if (period >= 0).any() else None,
    )
    storage.write_csv(path, table)
    return source


def grouped_topics(vectors: np.ndarray, found):
    """The run's topics (``found``, a ``TopicRun``) as the hierarchy figure draws them
    (``GroupedTopics``): under the groups the map and the report use, each topic at the centroid
    of its papers (``vectors``).
    """
    # papertopics.figures imports plotly at its top: only the topics job loads it.
    from papertopics.figures.hierarchy import GroupedTopics

    shown = [d for d in found.details if d["topic"] != OUTLIER]
    real = [d["topic"] for d in shown]
    centroids = topic_centroids(vectors, found.topics, real) if real else []
    return GroupedTopics(
        labels={d["topic"]: d["label"] for d in shown},
        sizes={d["topic"]: d["size"] for d in shown},
        centroids=dict(zip(real, centroids, strict=True)),
        groups=found.groups,
    )


def _add_wording(found, texts: list[str], compared, fitted_wording: list[str]) -> None:
    """Each topic's wording per period (and per group, with venues and years both compared:
    ``compared``, the periods and the groups), from the fitted model (in its own topic numbers),
    added to its record. Given the wording a fit kept (``fitted_wording``: its ``wording.json``,
    zero or one path; used where it worded the same kind of periods), only the periods whose
    topics' papers changed since are worded afresh.
    """
    # papertopics.topics.wording imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.topics.wording import periods_to_word, with_kept_wording, wording_per_period

    periods, groups = compared
    model_topics = found.model_topics
    kept = storage.read_json(fitted_wording[0]) if fitted_wording else None
    kept_topics = kept["topics"] if kept and kept["by"] == periods.by else None
    fresh = periods if kept_topics is None else periods_to_word(periods, found.topics, kept_topics)
    wording = wording_per_period(found.model, texts, model_topics, fresh)
    group_wording = (
        wording_per_period(found.model, texts, model_topics, groups)
        if groups is not None and groups.by != periods.by
        else None
    )
    for record in found.details:
        record["wording"] = wording.get(record["model_topic"], [])
        if kept_topics is not None:
            record["wording"] = with_kept_wording(
                kept_topics.get(str(record["topic"]), []), record["wording"], set(fresh.period), periods.names
            )
        if group_wording is not None:
            record["group_wording"] = group_wording.get(record["model_topic"], [])


def _layout_in_corpus_order(layout: str, clusters: dict, ids: list[str]) -> np.ndarray:
    """The 2-d map, checked with the cluster stage's arrays (``clusters``) to be in the corpus's
    paper order.
    """
    coordinates = storage.read_arrays(layout)
    if coordinates["ids"].tolist() != ids or clusters["ids"].tolist() != ids:
        raise RuntimeError(
            "the 2-d map or cluster labels are out of step with the corpus; rerun map and reduce."
        )
    return coordinates["map_2d"]


def pipeline_columns(table) -> list[str]:
    """The columns of a ``papers.csv`` (``_paper_table``) that the pipeline computes, which the
    input's own fields follow: up to the map position's ``y``.
    """
    return list(table.columns[: table.columns.get_loc("y") + 1])


def _paper_table(records: list[dict], found, further: FurtherTopics, map_2d: np.ndarray, placed: np.ndarray):
    """``papers.csv``: each paper with its topic, its ``further`` topics and map position,
    whether it was ``placed`` on an earlier fit (``update: place``) rather than fitted, and the
    input's own fields.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    pipeline_columns = {
        "id": [p["id"] for p in records],
        "dump": [p["dump"] for p in records],
        "dumps": [";".join(p["dumps"]) for p in records],
        "display_name": [p["display_name"] for p in records],
        "abstract": [p["abstract"] for p in records],
        "topic": found.topics,
        "topic_label": found.paper_labels,
        **further_topic_columns(further),
        "outlier": found.was_outlier,
        "placed": placed,
        "x": np.round(map_2d[:, 0], 5),
        "y": np.round(map_2d[:, 1], 5),
    }
    # Input fields (title, authors, url, year, label, ...) are carried along, never used to fit.
    return pd.DataFrame({**pipeline_columns, **input_columns(records, reserved=set(pipeline_columns))})


def topic_table(details: list[dict]):
    """``topics.csv``: one row per topic record (id, label, whether the label is curated, where it
    came from, keywords, size, share).
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    return pd.DataFrame(
        {
            "id": [d["topic"] for d in details],
            "label": [d["label"] for d in details],
            "curated": [bool(d.get("curated")) for d in details],
            "label_source": [d.get("label_source") or "" for d in details],
            "keywords": ["; ".join(word for word, _ in d["keywords"]) for d in details],
            "size": [d["size"] for d in details],
            "share": [round(d["share"], 6) for d in details],
        }
    )


def _save_model(model, model_out: str, embedding_model_location: str, save_ctfidf: bool) -> None:
    """The fitted BERTopic model, for users to load (``BERTopic.load``); no stage reads it back (the
    next run matches its topics against the history, ``papertopics.topics.history``). Without ``save_ctfidf`` it is its topics,
    keywords and topic embeddings: the c-TF-IDF matrix and the vectorizer's vocabulary (as JSON) are
    nearly all of its size (50 of 51 MB for 10,000 papers) and of its writing time, and only
    BERTopic's own topic updates and merges after loading need them.
    """
    with storage.atomic_folder(model_out) as temporary:
        model.save(
            temporary,
            serialization="safetensors",
            save_ctfidf=save_ctfidf,
            save_embedding_model=embedding_model_location,
        )


def evaluate(papers: str, topic_papers: str, details: str, metrics: str, knobs: dict) -> None:
    """Topic quality: coherence, diversity, outliers, and agreement with a ``label`` column if any;
    ``knobs``: ``papertopics.settings.EvaluateSettings``'s fields.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    texts = {p["id"]: p["text"] for p in storage.read_jsonl(papers)}
    # Only the columns scored here: the abstracts and coordinates are the bulk of the file.
    assigned = pd.read_csv(
        topic_papers,
        keep_default_na=False,
        dtype={"id": str},
        usecols=lambda name: name in {"id", "topic", "outlier", "label"},
    )
    missing = [i for i in assigned["id"] if i not in texts]
    if missing:
        raise RuntimeError(f"{topic_papers} lists {len(missing)} papers not in the corpus; rerun topics.")
    topic_details = storage.read_json(details)
    labels = assigned["label"].astype(str).str.strip().tolist() if "label" in assigned.columns else None
    scores = evaluate_topics(
        [texts[i] for i in assigned["id"]],
        assigned["topic"].to_numpy(),
        flag_column(assigned["outlier"]),
        {t["topic"]: [word for word, _ in t["keywords"]] for t in topic_details["topics"]},
        top_n_words=EvaluateSettings(**knobs).top_n_words,
        labels=labels,
        group_of={t["topic"]: t["group"] for t in topic_details["topics"] if t.get("group") is not None},
    )
    scores["consensus"] = topic_details["settings"].get("consensus")
    storage.write_json(metrics, scores)
    _LOG.info(
        "%d topics: NPMI %.3f, diversity %.3f, outliers %.1f%%%s",
        scores["topics"],
        scores["npmi"],
        scores["diversity"],
        100 * scores["outlier_share"],
        f", NMI {scores['labels']['nmi']:.3f}" if scores["labels"] else "",
    )
