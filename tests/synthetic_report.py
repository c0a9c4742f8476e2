"""Synthetic stage outputs for report tests and the report benchmark: papers scattered around topic
centres on the 2-d map, abstracts drawn from the shipped dumps' words plus words of their topic,
and BERTopic's figures fitted on them with the topics stage's own function; no embedding model.
The tests build large reports from them (tests/test_report_browser.py); bench/report_bench.py
measures how fast such reports open.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from tests.workflow_support import SEEDS, default_config

SYNTHETIC_YEARS = (2019, 2024)
_SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ner",
    "ta",
    "vo",
    "ri",
    "sen",
    "du",
    "pha",
    "gro",
    "lin",
    "ex",
    "qua",
    "zor",
    "bel",
]


def _shipped_words() -> list[str]:
    text = " ".join(seed.read_text(encoding="utf-8") for seed in SEEDS)
    return sorted(set(re.findall(r"[a-z]{3,}", text.lower())))


def _pseudo_word(rng: np.random.Generator) -> str:
    return "".join(rng.choice(_SYLLABLES, size=int(rng.integers(2, 4))))


def synthetic_stage_outputs(n_papers: int, n_topics: int, n_groups: int, seed: int = 0) -> dict:
    """Papers, topics and groups as the topics stage writes them (papers.csv, topic_details.json).

    Topics sit in groups on the map; about 30% of each topic's papers are outliers HDBSCAN left
    out and the topics stage assigned; 1% have no topic at all.
    """
    rng = np.random.default_rng(seed)
    common = _shipped_words()
    topic_words = [[_pseudo_word(rng) for _ in range(12)] for _ in range(n_topics)]
    group_of_topic = np.sort(rng.integers(0, n_groups, size=n_topics))
    group_centres = rng.normal(0, 9, size=(n_groups, 2))
    topic_centres = group_centres[group_of_topic] + rng.normal(0, 1.6, size=(n_topics, 2))
    weights = rng.pareto(1.2, size=n_topics) + 1
    topic = rng.choice(n_topics, size=n_papers, p=weights / weights.sum())
    sizes = np.bincount(topic, minlength=n_topics)
    order = np.argsort(-sizes, kind="stable")  # BERTopic numbers topics by size
    renumber = np.empty(n_topics, dtype=int)
    renumber[order] = np.arange(n_topics)
    xy = topic_centres[topic] + rng.normal(0, 0.45, size=(n_papers, 2))
    # Each topic peaks in a year of its own, so that the map by year shows topics coming and going.
    peak_year = rng.integers(SYNTHETIC_YEARS[0], SYNTHETIC_YEARS[1] + 1, size=n_topics)
    year = np.clip(np.round(peak_year[topic] + rng.normal(0, 1.2, size=n_papers)), *SYNTHETIC_YEARS).astype(
        int
    )
    no_topic = rng.random(n_papers) < 0.01
    outlier = no_topic | (rng.random(n_papers) < 0.3)
    numbered = np.where(no_topic, -1, renumber[topic])
    labels = {renumber[t]: ", ".join(topic_words[t][:3]) for t in range(n_topics)}
    labels[-1] = "Outliers"

    def abstract(t: int) -> str:
        words = rng.choice(common, size=110).tolist()
        own = rng.choice(topic_words[t], size=40).tolist()
        mixed = words[:70] + own + words[70:]
        return " ".join(mixed).capitalize() + "."

    papers = pd.DataFrame(
        {
            "id": [f"syn{i:06d}" for i in range(n_papers)],
            "dump": "synthetic",
            "dumps": "synthetic",
            "display_name": [
                " ".join(
                    rng.choice(common, size=5).tolist() + rng.choice(topic_words[t], size=2).tolist()
                ).capitalize()
                for t in topic
            ],
            "abstract": [abstract(t) for t in topic],
            "topic": numbered,
            "topic_label": [labels[t] for t in numbered],
            "outlier": outlier,
            "x": np.round(xy[:, 0], 5),
            "y": np.round(xy[:, 1], 5),
            "year": year,
        }
    )
    counts = papers["topic"].value_counts()
    details = []
    for t in sorted(counts.index, key=lambda t: (t == -1, t)):
        members = papers.loc[papers["topic"] == t, "id"]
        details.append(
            {
                "topic": int(t),
                "label": labels[t],
                "keywords": [[w, round(0.1 / (i + 1), 4)] for i, w in enumerate(labels[t].split(", "))],
                "size": int(counts[t]),
                "share": float(counts[t] / n_papers),
                "representative_ids": members.tolist()[:3],
            }
        )
    group_members: dict[int, list[int]] = {}
    for original, group in enumerate(group_of_topic.tolist()):
        group_members.setdefault(group, []).append(int(renumber[original]))
    groups = sorted(
        (
            {"topics": sorted(ts), "size": int(sum(counts.get(t, 0) for t in ts))}
            for ts in group_members.values()
        ),
        key=lambda g: (-g["size"], g["topics"][0]),
    )
    for number, group in enumerate(groups):
        group.update(group=number, label=", ".join(labels[t].split(", ")[0] for t in group["topics"][:3]))
        for record in details:
            if record["topic"] in group["topics"]:
                record["group"] = number
    return {
        "papers": papers,
        "details": details,
        "groups": groups,
        "labels": labels,
        "embeddings_seed": seed,
        "topic_of_paper": numbered,
    }


def report_inputs(outputs: dict, with_figures: bool):
    """ReportInputs of synthetic stage outputs; with BERTopic's figures fitted on them when asked, and
    with the papers' similar papers where the package's report shows them.
    """
    import dataclasses

    from papertopics.figures import model_figures
    from papertopics.report import ReportInputs
    from papertopics.topics.stages import topic_table

    papers, details = outputs["papers"], outputs["details"]
    n_topics = sum(d["topic"] != -1 for d in details)
    model = _fitted_model(outputs) if with_figures else None
    topics = topic_table(details)
    summary = {
        "dumps": [
            {
                "dump": "synthetic",
                "title": "Synthetic papers",
                "records_read": len(papers),
                "kept": len(papers),
                "duplicates": 0,
                "also_in_earlier_dumps": 0,
                "rejected": 0,
                "sha256": "0" * 64,
            }
        ],
        "duplicates_across_dumps": 0,
    }
    return ReportInputs(
        corpus_summary=summary,
        umap_settings={
            "n_neighbors": 15,
            "n_neighbors_setting": "auto",
            "n_components": 5,
            "min_dist": 0.0,
            "metric": "cosine",
            "random_state": 42,
        },
        hdbscan_settings={
            "min_cluster_size": 10,
            "min_cluster_size_setting": "auto",
            "min_samples": 5,
            "cluster_selection_method": "eom",
        },
        topic_settings={
            "embedding_model": "none (synthetic)",
            "ngram_range": [1, 1],
            "stop_words": "english",
            "top_n_words": 10,
            "reduce_outliers": True,
            "representation": "ctfidf",
            "topics": n_topics,
            "coarse_topics": len(outputs["groups"]),
            "coarse_topics_setting": "auto",
        },
        topic_details=details,
        topics=topics,
        papers=papers,
        figures=model_figures(model, synthetic_grouped_topics(outputs)),
        topic_groups=outputs["groups"],
        **_periods(papers, dataclasses.fields(ReportInputs)),
        **(
            {"similar": synthetic_similar_papers(outputs)}
            if "similar" in {field.name for field in dataclasses.fields(ReportInputs)}
            else {}
        ),
    )


def _periods(papers: pd.DataFrame, fields) -> dict:
    """The periods stage's periods of the papers (one dump) where the package's ``ReportInputs``
    requires them; an earlier commit's, which the report benchmark's "before" builds with, set
    them itself.
    """
    import dataclasses

    if not any(f.name == "periods" and f.default is dataclasses.MISSING for f in fields):
        return {}
    from papertopics.periods.assign import paper_periods

    return {"periods": paper_periods(papers, "auto", ["synthetic"])}


def synthetic_embeddings(outputs: dict) -> np.ndarray:
    """Each paper's embedding: its topic's random direction plus noise."""
    topic = outputs["topic_of_paper"]
    rng = np.random.default_rng(outputs["embeddings_seed"])
    directions = rng.normal(size=(int(topic.max()) + 2, 32))
    return (directions[topic] + 0.8 * rng.normal(size=(len(topic), 32))).astype(np.float32)


def synthetic_grouped_topics(outputs: dict):
    """The synthetic topics and groups as the hierarchy figure draws them (``GroupedTopics``)."""
    from papertopics.figures.hierarchy import GroupedTopics
    from papertopics.mapping.cluster import topic_centroids

    shown = [d for d in outputs["details"] if d["topic"] != -1]
    real = [d["topic"] for d in shown]
    centroids = topic_centroids(synthetic_embeddings(outputs), outputs["topic_of_paper"], real)
    return GroupedTopics(
        labels={d["topic"]: d["label"] for d in shown},
        sizes={d["topic"]: d["size"] for d in shown},
        centroids=dict(zip(real, centroids, strict=True)),
        groups=outputs["groups"],
    )


def synthetic_similar_papers(outputs: dict) -> dict[str, np.ndarray]:
    """The similar-papers stage's output for the synthetic papers (from their embeddings)."""
    from papertopics.mapping.similar import similar_papers

    indices, similarity = similar_papers(synthetic_embeddings(outputs), 10, exact_up_to=100_000)
    return {"ids": outputs["papers"]["id"].to_numpy(), "indices": indices, "similarity": similarity}


def _fitted_model(outputs: dict):
    """BERTopic fitted on the synthetic papers with their topics given (the topics stage's own
    function), on embeddings that are each topic's random direction plus noise.
    """
    from papertopics.settings import TopicStageSettings
    from papertopics.topics.fit import fit_topic_model

    papers = outputs["papers"]
    topic = outputs["topic_of_paper"]
    embeddings = synthetic_embeddings(outputs)
    model, _ = fit_topic_model(
        papers["abstract"].tolist(),
        embeddings,
        topic,
        None,
        # The stage's keyword knobs as config.yaml sets them, but single words.
        replace(TopicStageSettings.from_config(default_config()), ngram_range=[1, 1]),
    )
    model.set_topic_labels({d["topic"]: d["label"] for d in outputs["details"]})
    return model


def build_synthetic_report(
    path: Path, n_papers: int, n_topics: int, n_groups: int, with_figures: bool = True
) -> Path:
    from papertopics.report import build_report

    page = build_report(
        report_inputs(synthetic_stage_outputs(n_papers, n_topics, n_groups), with_figures),
        title="auto",
        hover_chars=200,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
