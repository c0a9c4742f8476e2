"""Topic-quality benchmark on a labelled corpus (see docs/benchmarks.md and docs/quality.md)."""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
from pathlib import Path

from papertopics import storage

from bench.quality_guided import guided, guided_table
from bench.quality_labels import labels_benchmark, labels_markdown
from bench.quality_runs import (
    REPO,
    achievable,
    cached_embeddings,
    clustering_cost,
    default_config,
    load_corpus,
    run_bertopic_defaults,
    run_ours,
    run_tfidf_kmeans,
    stability,
    with_overrides,
)

_LOG = logging.getLogger("quality")


# What each change adds: our defaults with one change taken back (or, for the word vectors,
# which measured no gain, put in) at a time.
ABLATIONS = {
    "(a) without the largest-topic limit (hdbscan.max_cluster_share 0)": {
        "hdbscan": {"max_cluster_share": 0}
    },
    "(a) with hdbscan.min_samples 1 (the default before)": {"hdbscan": {"min_samples": 1}},
    "(a) keywords: without the shared-keyword rule (topics.min_keyword_share 0)": {
        "topics": {"min_keyword_share": 0}
    },
    "(a) with word vectors joined to the embeddings (umap.word_weight 0.3)": {"umap": {"word_weight": 0.3}},
    "(a) without outlier reduction (topics.reduce_outliers false)": {"topics": {"reduce_outliers": False}},
    "(a) keywords: plain c-TF-IDF (reduce_frequent_words false)": {
        "topics": {"reduce_frequent_words": False}
    },
    "(a) keywords: MMR (diversity 0.3) on damped c-TF-IDF": {"topics": {"representation": "mmr"}},
    "(a) keywords: KeyBERTInspired on plain c-TF-IDF": {
        "topics": {"representation": "keybert", "reduce_frequent_words": False}
    },
}


def row(name: str, metrics: dict) -> dict:
    agreement = metrics["labels"]
    return {
        "variant": name,
        "nmi": agreement["nmi"],
        "ari": agreement["ari"],
        "homogeneity": agreement["homogeneity"],
        "topics": metrics["topics"],
        "outliers": metrics["outlier_share"],
        "unassigned": metrics["unassigned_share"],
        "npmi": metrics["npmi"],
        "diversity": metrics["diversity"],
    }


def benchmark(
    corpus: Path,
    cache_dir: Path,
    ablations: bool,
    limit: int | None = None,
    random_state: int = 42,
    stable: bool = True,
    guide: bool = False,
) -> dict:
    from papertopics.embed.encoders import load_model, resolve_backend

    config = default_config()
    papers = load_corpus(corpus)
    embeddings = cached_embeddings(papers, corpus, config["embedding"], cache_dir)
    if limit:  # a quick look at the first papers only
        papers, embeddings = papers[:limit], embeddings[:limit]
    encoder = load_model(config["embedding"]["model"], config["embedding"]["max_seq_length"])
    rows = []
    ours = run_ours(papers, embeddings, config, encoder, cache_dir, corpus)
    rows.append(row("(a) papertopics defaults", ours))
    if ours["coarse"]:
        coarse = {**ours, "labels": ours["coarse"]["labels"], "topics": ours["coarse"]["groups"]}
        rows.append(row("(a) its coarse layer (topic groups; keyword scores of the topics)", coarse))
    _LOG.info("%s: ours done", corpus.name)
    if ablations:
        for name, overrides in ABLATIONS.items():
            rows.append(
                row(name, run_ours(papers, embeddings, with_overrides(config, overrides), encoder, cache_dir))
            )
            _LOG.info("%s: %s done", corpus.name, name)
    bertopic = run_bertopic_defaults(papers, embeddings, encoder, random_state)
    rows.append(row("(b) BERTopic defaults, same embeddings", bertopic))
    rows.append(row("(c) TF-IDF + k-means, k = number of labels", run_tfidf_kmeans(papers, random_state)))
    reference = achievable(papers, embeddings, random_state)
    _LOG.info("%s: supervised and k-means done", corpus.name)
    seeds = None
    if stable:
        seeds = stability(papers, embeddings, config, cache_dir)
        seeds["cost"] = clustering_cost(papers, embeddings, config)
    _LOG.info("%s: seed stability done", corpus.name)
    return {
        "corpus": corpus.name,
        "papers": len(papers),
        "labels": len({p["label"] for p in papers}),
        "resolved": ours["settings"],
        "embedding": f"{config['embedding']['model']}, backend {resolve_backend(config['embedding']['backend'])}",
        "example_labels": ours["example_labels"],
        "label_naming": ours["label_naming"],
        "rows": rows,
        "achievable": {
            **reference,
            "ours": {"nmi": ours["labels"]["nmi"], "ari": ours["labels"]["ari"]},
            "bertopic": {"nmi": bertopic["labels"]["nmi"], "ari": bertopic["labels"]["ari"]},
        },
        "stability": seeds,
        "guided": guided(papers, embeddings, config, encoder, cache_dir) if guide else None,
    }


def markdown(results: list[dict]) -> str:
    lines = [
        "# Topic quality benchmark",
        "",
        "Written by `make quality` (bench/quality.py); labels are used for scoring only.",
        "",
    ]
    for result in results:
        lines += [
            f"## {result['corpus']} ({result['papers']} papers, {result['labels']} labels)",
            "",
            f"Embeddings: {result['embedding']}. Sizes our `auto` knobs resolved to: {result['resolved']}. "
            f"First topic labels: {'; '.join(result['example_labels'])}.",
            "",
            "| variant | NMI | ARI | homogeneity | topics | outliers | left unassigned | NPMI | diversity |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in result["rows"]:
            lines.append(
                f"| {r['variant']} | {r['nmi']:.3f} | {r['ari']:.3f} | {r['homogeneity']:.3f} | {r['topics']} "
                f"| {r['outliers']:.1%} | {r['unassigned']:.1%} | {r['npmi']:.3f} | {r['diversity']:.3f} |"
            )
        naming = "; ".join(
            f"against {r['reference']}, ours {r['ours']:.2f}, top 3 words {r['top3_words']:.2f}"
            for r in result.get("label_naming", [])
        )
        lines += [
            "",
            f"Labels that name their topics ([quality-labels.md](quality-labels.md)): {naming}.",
            "",
        ]
        lines += [*achievable_table(result), *stability_table(result["stability"]), *guided_table(result)]
    lines.append(
        "Outliers: share of papers HDBSCAN left unclustered; left unassigned: share still without a topic "
        "(our defaults assign outliers to their nearest topic; BERTopic's defaults keep them as one cluster, -1, "
        "and NMI/ARI score that cluster like any other). "
        "NPMI: gensim c_npmi of each topic's top 10 words over the cleaned abstracts, averaged over topics. "
        "Diversity: unique share of all topics' top 10 words."
    )
    return "\n".join(lines) + "\n"


def achievable_table(result: dict) -> list[str]:
    """Our NMI beside what the same embeddings allow: a supervised classifier and k-means."""
    figures = result["achievable"]
    supervised = figures["supervised"]["nmi"]
    lines = [
        f"Against what the embeddings allow (supervised: 5-fold cross-validated logistic regression on the "
        f"embeddings, accuracy {figures['supervised']['accuracy']:.3f}; k-means with k = {result['labels']} "
        f"on the raw embeddings):",
        "",
        "| | NMI | ARI | share of the supervised NMI |",
        "|---|---:|---:|---:|",
    ]
    for name, key in (
        ("supervised", "supervised"),
        ("k-means on the raw embeddings", "kmeans_raw"),
        ("papertopics defaults", "ours"),
        ("BERTopic defaults", "bertopic"),
    ):
        lines.append(
            f"| {name} | {figures[key]['nmi']:.3f} | {figures[key]['ari']:.3f} | {figures[key]['nmi'] / supervised:.0%} |"
        )
    return lines + [""]


def stability_table(stability: dict | None) -> list[str]:
    if not stability:
        return []
    lines = [
        f"Seed stability over UMAP seeds {'/'.join(map(str, stability['seeds']))} (mean over the seed pairs; "
        "each paper in its topic after outliers are joined, for ours; BERTopic's outliers as one cluster):",
        "",
        "| | topics per seed | mean pairwise ARI | mean pairwise NMI | NMI to the labels (min-max) |",
        "|---|---|---:|---:|---|",
    ]
    rows = (
        ("papertopics defaults", "ours"),
        ("the same, one UMAP run (`umap.consensus_runs: 1`)", "one_run"),
        ("BERTopic defaults", "bertopic"),
    )
    for name, key in rows:
        figures = stability[key]
        to_labels = figures["nmi_to_labels"]
        lines.append(
            f"| {name} | {min(figures['topics'])}-{max(figures['topics'])} | {figures['ari']:.3f} | {figures['nmi']:.3f} "
            f"| {min(to_labels):.3f}-{max(to_labels):.3f} |"
        )
    cost = stability["cost"]
    lines += [
        "",
        f"Cost of the {cost['runs']} joined UMAP runs (`umap.consensus_runs`): reduce and cluster work "
        f"{cost['consensus_s']:.1f} s against {cost['one_run_s']:.1f} s for one run, measured side by side: "
        f"{cost['ratio']:.2f}x.",
    ]
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "corpora", nargs="+", type=Path, help="labelled .jsonl.gz corpora (id, title, abstract, label)"
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "papertopics-quality",
        help="where embeddings are cached between runs (outside the repository)",
    )
    parser.add_argument(
        "--output", type=Path, default=REPO / "bench" / "quality", help="writes OUTPUT.md and OUTPUT.json"
    )
    parser.add_argument(
        "--no-ablations",
        action="store_true",
        help="skip the rows that take back one change at a time (made for the first corpus only)",
    )
    parser.add_argument(
        "--no-stability", action="store_true", help="skip the seed-stability runs (five UMAP seeds each)"
    )
    parser.add_argument(
        "--guided",
        action="store_true",
        help="also score guided topics, the corpus's label names as the guide",
    )
    parser.add_argument(
        "--limit", type=int, help="score only the first LIMIT papers of each corpus (a quick check)"
    )
    parser.add_argument(
        "--labels",
        action="store_true",
        help="only score the topic labels (naming, labels kept across a rerun); writes OUTPUT.md/json",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    missing = [str(c) for c in args.corpora if not c.exists()]
    if missing:
        raise SystemExit(
            f"corpus not found: {', '.join(missing)} (the labelled corpora live in ../shared/corpora)"
        )
    if args.labels:
        found = [labels_benchmark(corpus, args.cache_dir) for corpus in args.corpora]
        storage.write_json(args.output.with_suffix(".json"), found)
        storage.write_text(args.output.with_suffix(".md"), labels_markdown(found))
        print(labels_markdown(found))
        return
    results = [
        benchmark(
            corpus,
            args.cache_dir,
            not args.no_ablations and corpus == args.corpora[0],
            args.limit,
            stable=not args.no_stability,
            guide=args.guided,
        )
        for corpus in args.corpora
    ]
    storage.write_json(args.output.with_suffix(".json"), results)
    storage.write_text(args.output.with_suffix(".md"), markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
