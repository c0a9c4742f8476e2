"""The topic-quality benchmark's label scores: how well the labels name their topics, and how many
are kept across a rerun (bench/quality.py --labels).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from bench.label_scores import NAME_SIMILARITY, REFERENCE_MIN_LIFT, REFERENCE_MIN_PAPERS, REFERENCE_NAMES
from bench.quality_runs import (
    cached_embeddings,
    default_config,
    first_topic_run,
    load_corpus,
    ours_clusters,
    run_ours,
    topic_settings,
)


def label_kept_share(
    papers: list[dict], embeddings: np.ndarray, config: dict, encoder, cache_dir: Path
) -> dict | None:
    """Labels kept across a rerun on real data: the topics of the corpus's first two years, then
    of its first three (a third dump added), matched by history; the share of the topics that keep
    their id that keep their label too (no curation).
    """
    from papertopics.topics.history import TopicHistory
    from papertopics.topics.run import run_topics

    from bench.label_keywords import kept_most_share, most_papers_kept

    years = sorted({p["year"] for p in papers if p.get("year") is not None})
    if len(years) < 3:
        return None
    runs, topic_of = [], []
    with tempfile.TemporaryDirectory() as folder:
        history = TopicHistory(folder)
        for last in years[1:3]:
            rows = [i for i, p in enumerate(papers) if p["year"] <= last]
            chosen = [papers[i] for i in rows]
            clusters = ours_clusters(chosen, embeddings[rows], config, cache_dir)[0]
            found = run_topics(
                [p["text"] for p in chosen],
                [p["id"] for p in chosen],
                embeddings[rows],
                clusters,
                history,
                topic_settings(config),
                encoder,
                titles=[p["title"] or "" for p in chosen],
            )
            found.record()
            runs.append(found)
            topic_of.append(dict(zip([p["id"] for p in chosen], found.topics.tolist(), strict=True)))
    before = {d["topic"]: d["label"] for d in runs[0].details}
    after = {d["topic"]: d["label"] for d in runs[1].details}
    kept = [t["id"] for t in runs[1].lineage["kept"]]
    same = [t for t in kept if before[t] == after[t]]
    return {
        "years": [years[:2], years[:3]],
        "topics_before": runs[0].n_topics,
        "kept_id": len(kept),
        "kept_label": len(same),
        "share": len(same) / len(kept) if kept else None,
        **kept_most_share(most_papers_kept(*topic_of, kept), same),
        "relabelled": runs[1].lineage["relabelled"],
    }


# The papers whose keywords are fed to the labeller in the half-split figure: a random half, drawn
# with this seed; the labels are scored against the other half's keywords only.
KEYWORD_HALF_SEED = 0


def keyword_halves(paper_ids: list[str], seed: int = KEYWORD_HALF_SEED) -> tuple[set[str], set[str]]:
    """The papers whose keywords are fed and those whose keywords score: a random half each."""
    order = np.random.default_rng(seed).permutation(len(paper_ids))
    fed = {paper_ids[i] for i in order[: len(paper_ids) // 2]}
    return fed, set(paper_ids) - fed


def keyword_half_naming(
    papers: list[dict], corpus: Path, embeddings: np.ndarray, config: dict, encoder, cache_dir: Path
) -> dict | None:
    """The labels against free author keywords they were not given (``keyword_naming``): the
    topics stage run twice on the same topics, without keywords (today's labels, BERTopic's top 3
    words and MMR keywords) and with a random half of the papers' keywords (``keyword_halves``),
    each scored against the other half's keywords only. None where the corpus has no free keywords.
    """
    from papertopics.topics.label_display import FROM_AUTHOR_KEYWORDS
    from papertopics.topics.phrases import label_phrases

    from bench.label_keywords import keyword_naming, load_free_keywords, mmr_keywords, topic_keyword_counts

    free = load_free_keywords(corpus)
    if not free:
        return None
    ids = [p["id"] for p in papers]
    fed, scored = keyword_halves(ids)
    clusters = ours_clusters(papers, embeddings, config, cache_dir)[0]
    runs = [
        first_topic_run(papers, embeddings, clusters, config, encoder, keywords=given)
        for given in (None, [free[i] if i in fed else [] for i in ids])
    ]
    without, fed_run = runs
    if not np.array_equal(without.topics, fed_run.topics):
        raise AssertionError("the keywords moved papers between topics: they must only label them")
    real = [d for d in without.details if d["topic"] != -1]
    sizes = {d["topic"]: d["size"] for d in real}
    mmr = mmr_keywords(
        without.model,
        {d["topic"]: d["model_topic"] for d in real},
        encoder,
        [p["text"] for p in papers],
        config["topics"]["min_keyword_share"],
    )
    after = {d["topic"]: d["label"] for d in fed_run.details if d["topic"] != -1}
    labels = {
        "before": {d["topic"]: label_phrases(d["label"]) for d in real},
        "after": {topic: label_phrases(label) for topic, label in after.items()},
        "top3_words": {d["topic"]: [w for w, _ in d["keywords"][:3]] for d in real},
        "mmr": mmr,
    }
    counts = topic_keyword_counts(ids, without.topics, {i: free[i] for i in scored})
    from_keywords = [d for d in fed_run.details if d.get("label_source") == FROM_AUTHOR_KEYWORDS]
    return {
        "fed": len(fed),
        "scored": len(scored),
        "seed": KEYWORD_HALF_SEED,
        "topics": len(real),
        "from_keywords": len(from_keywords),
        "from_keywords_papers": sum(d["size"] for d in from_keywords),
        "papers": sum(sizes.values()),
        "figures": {name: keyword_naming(of, counts, sizes) for name, of in labels.items()},
        # The issue's own reading: a label hits where any paper of the other half carries it.
        "figures_any_paper": {
            name: keyword_naming(of, counts, sizes, least_papers=1) for name, of in labels.items()
        },
        "largest": [
            {"topic": d["topic"], "size": d["size"], "before": d["label"], "after": after[d["topic"]]}
            for d in real[:20]
        ],
    }


def labels_benchmark(corpus: Path, cache_dir: Path) -> dict:
    """How well the labels name their topics (``label_naming``), the largest topics' labels beside
    their top 3 keywords, the group labels, and the labels kept across a rerun with a third year.
    """
    from papertopics.embed.encoders import load_model, resolve_backend

    config = default_config()
    papers = load_corpus(corpus)
    embeddings = cached_embeddings(papers, corpus, config["embedding"], cache_dir)
    encoder = load_model(config["embedding"]["model"], config["embedding"]["max_seq_length"])
    ours = run_ours(papers, embeddings, config, encoder, cache_dir, corpus)
    return {
        "corpus": corpus.name,
        "papers": len(papers),
        "embedding": f"{config['embedding']['model']}, backend {resolve_backend(config['embedding']['backend'])}",
        "nmi": ours["labels"]["nmi"] if ours.get("labels") else None,
        "naming": ours["label_naming"],
        "largest": ours["topic_labels"][:20],
        "all_topics": ours["topic_labels"],
        "groups": ours["group_labels"],
        "group_naming": ours.get("group_naming"),
        "kept": label_kept_share(papers, embeddings, config, encoder, cache_dir),
        "keyword_half": keyword_half_naming(papers, corpus, embeddings, config, encoder, cache_dir),
    }


def labels_markdown(results: list[dict]) -> str:
    from bench.label_keywords import KEPT_PAPERS, MIN_KEYWORD_PAPERS, MMR_CANDIDATES, MMR_DIVERSITY, MMR_WORDS

    lines = [
        "# Topic labels benchmark",
        "",
        "Written by `make quality` (`bench/quality.py --labels`). A label *names* its topic when one of its",
        "phrases equals one of the topic's reference names (case, hyphens and plural endings set aside) or",
        f"is at least {NAME_SIMILARITY} cosine-similar to one (the packaged model). A topic's reference names",
        f"are the names at least {REFERENCE_MIN_PAPERS} of its papers carry, at least {REFERENCE_MIN_LIFT:g} times as",
        f"often there as in the corpus, the {REFERENCE_NAMES} most used. Figures are shares of the papers whose",
        "topic's label names it (topics weighted by size); *top 3 words* is the label BERTopic prints,",
        "the first three c-TF-IDF keywords of the same topics; *MMR* is the first",
        f"{MMR_WORDS} keywords of BERTopic's `MaximalMarginalRelevance(diversity={MMR_DIVERSITY})` over the",
        f"{MMR_CANDIDATES} best c-TF-IDF words (as `topics.representation: mmr` gives them).",
        "",
        "Against **free author keywords** (the COLM/CoRL corpus, keywords the authors typed), a label",
        f"phrase is a keyword of its topic when at least {MIN_KEYWORD_PAPERS} of the topic's papers carry it or a",
        "close variant: the same set of words once both are lower-cased, punctuation read as spaces, stop",
        "words dropped and each word singular (a parenthesised acronym counts on its own:",
        '"Parameter-Efficient Fine-Tuning (PEFT)" is both "parameter efficient fine tuning" and "peft").',
        "The hit rate is the share of papers whose topic's label has such a phrase; the phrase share is",
        "the share of label phrases that are such keywords, each weighed by its topic's size.",
        "",
        "Title phrases are a reference for every corpus: phrases of 1-4 words of the papers' titles.",
        "They were held out until the labeller read titles too (issue 31); they favour single words, so",
        "the top 3 words do well.",
        "",
    ]
    for result in results:
        lines += [
            f"## {result['corpus']} ({result['papers']} papers)",
            "",
            f"Embeddings: {result['embedding']}."
            + (
                f" NMI to the labels: {result['nmi']:.3f} (the labels move no paper)."
                if result["nmi"] is not None
                else ""
            ),
            "",
            "| reference | ours | top 3 words | MMR |",
            "|---|---:|---:|---:|",
            *(
                f"| {r['reference']} | {r['ours']:.2f} | {r['top3_words']:.2f} | {r.get('mmr', float('nan')):.2f} |"
                for r in result["naming"]
            ),
            "",
            "The largest topics:",
            "",
            "| topic | papers | label | top 3 words | MMR |",
            "|---:|---:|---|---|---|",
            *(
                f"| {t['topic']} | {t['size']} | {t['label']} | {', '.join(t['top_words'])} "
                f"| {', '.join(t.get('mmr', []))} |"
                for t in result["largest"]
            ),
            "",
            f"Group labels: {'; '.join(result['groups'])}.",
            "",
            *_group_naming_lines(result.get("group_naming")),
            *keyword_half_lines(result.get("keyword_half")),
        ]
        kept = result["kept"]
        if kept:
            lines += [
                f"Labels kept across a rerun: the topics of {'-'.join(map(str, kept['years'][0]))} "
                f"({kept['topics_before']} topics), then of {'-'.join(map(str, kept['years'][1]))} with the "
                f"history of the first run: {kept['kept_id']} topics kept their id, {kept['kept_label']} of them "
                f"their label too ({kept['share']:.0%}). Relabelled: "
                + ("; ".join(f"{r['id']}: {r['from']} → {r['to']}" for r in kept["relabelled"]) or "none")
                + "."
                + (
                    f" Of the {kept['kept_most']} that kept their id and at least {KEPT_PAPERS:.0%} of their"
                    f" papers, {kept['kept_most_label']} kept their label ({kept['most_share']:.0%})."
                    if kept.get("most_share") is not None
                    else ""
                ),
                "",
            ]
    return "\n".join(lines)


GROUP_FIGURES = {
    "hit_rate": "hit rate against free author keywords (>= 2 of the group's papers)",
    "phrase_share": "group-label phrases that are free keywords of >= 2 of the group's papers",
    "free_names": "hit rate against the group's 5 most used free keywords (lift >= 2)",
    "sub_areas": "hit rate against the group's sub-area keywords (as for topics)",
}


def _group_naming_lines(figures: dict | None) -> list[str]:
    """The group labels' figures (``group_naming``), each group's papers taken as one topic."""
    if not figures:
        return []
    shown = [f"{GROUP_FIGURES[name]} {figures[name]:.2f}" for name in GROUP_FIGURES if name in figures]
    return [f"Group labels scored as topic labels, each group's papers one topic: {'; '.join(shown)}.", ""]


def keyword_half_lines(half: dict | None) -> list[str]:
    """The half-split figure (``keyword_half_naming``) as a table, with the largest topics' labels."""
    if not half:
        return []
    rows = [
        (half["figures"], "hit_rate", "hit rate"),
        (half["figures"], "phrase_share", "label phrases that are keywords"),
    ]
    if half.get("figures_any_paper"):  # absent from results written before it was added
        any_paper = "hit rate, a keyword of any one of the topic's papers of that half"
        rows.append((half["figures_any_paper"], "hit_rate", any_paper))
    return [
        f"**Keywords from the input** (issue 50): the keywords of a random half of the papers"
        f" ({half['fed']}, seed {half['seed']}) fed to the labeller, the labels scored against the other"
        f" half's ({half['scored']}) only, as above (>= 2 of the topic's papers of that half)."
        f" {half['from_keywords']} of the {half['topics']} topics"
        f" ({half['from_keywords_papers'] / half['papers']:.0%} of the papers) took a keyword as label.",
        "",
        "| against the other half's keywords | before (no keywords fed) | after (half fed) | top 3 words | MMR |",
        "|---|---:|---:|---:|---:|",
        *(
            f"| {label} | {of['before'][name]:.2f} | {of['after'][name]:.2f}"
            f" | {of['top3_words'][name]:.2f} | {of['mmr'][name]:.2f} |"
            for of, name, label in rows
        ),
        "",
        "| topic | papers | before | after |",
        "|---:|---:|---|---|",
        *(f"| {t['topic']} | {t['size']} | {t['before']} | {t['after']} |" for t in half["largest"]),
        "",
    ]
