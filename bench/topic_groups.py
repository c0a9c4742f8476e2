"""Topic groups against a corpus's labels (issue #50, item 3): the coarse groups made from the same
topics in several ways, and k-means on the papers themselves with as many groups (the target: the
groups should agree with the labels at least as well), each paper in its topic's group.

Reads a pipeline run's topics (``results/staged/topics/papers.csv``, or the published one) and
embeddings, and the corpus file its dumps were cut from (for the labels, used for scoring only)::

    PYTHONPATH=workflow python -m bench.topic_groups RESULTS CORPUS [RESULTS CORPUS ...]
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
from papertopics import storage
from papertopics.mapping.cluster import OUTLIER, topic_centroids
from papertopics.mapping.sizing import resolve_coarse_topics
from papertopics.topics.topic_groups import topic_groups
from sklearn.cluster import KMeans
from sklearn.metrics import normalized_mutual_info_score

SEEDS = (0, 1, 2, 3, 4)


def load_run(results: Path, corpus: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each paper's vector, topic and label (papers in a topic and with a label only)."""
    topics_dir = results / "staged" / "topics"
    papers = pd.read_csv((topics_dir if topics_dir.is_dir() else results / "topics") / "papers.csv")
    vectors = {}
    for path in sorted((results / "embeddings").glob("*.npz")):
        arrays = storage.read_arrays(path)
        vectors.update(zip(arrays["ids"].tolist(), arrays["vectors"], strict=True))
    with gzip.open(corpus, "rt", encoding="utf-8") as lines:
        label_of = {record["id"]: record["label"] for record in map(json.loads, lines)}
    papers = papers[(papers["topic"] != OUTLIER) & papers["input_id"].isin(label_of)]
    matrix = np.stack([vectors[i] for i in papers["id"]]).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    labels = np.array([label_of[i] for i in papers["input_id"]])
    return matrix, papers["topic"].to_numpy(), labels


def by_paper_linkage(vectors, topics, n_groups, seed):
    """The topics stage's groups: average linkage of the papers (cosine), each topic kept whole,
    no group over a third of the papers unless tight (``topics.topic_groups``).
    """
    return topic_groups(vectors, topics, n_groups)[0]


def by_weighted_centroid_kmeans(vectors, topics, n_groups, seed):
    """k-means on the topic centroids, each weighted by its papers: k-means on the papers with
    every topic's papers kept together.
    """
    real = sorted(set(topics.tolist()))
    centroids = topic_centroids(vectors, topics, real)
    sizes = np.array([(topics == t).sum() for t in real])
    found = KMeans(n_groups, n_init=10, random_state=seed).fit(centroids, sample_weight=sizes).labels_
    return dict(zip(real, found.tolist(), strict=True))


def by_paper_kmeans_majority(vectors, topics, n_groups, seed):
    """k-means on the papers; each topic to the group holding most of its papers."""
    found = KMeans(n_groups, n_init=10, random_state=seed).fit(vectors).labels_
    return {t: int(np.bincount(found[topics == t]).argmax()) for t in sorted(set(topics.tolist()))}


def by_unbounded_linkage(vectors, topics, n_groups, seed):
    """The stage's groups before the bound: SciPy's average linkage of the centroids (cosine)."""
    from scipy.cluster.hierarchy import fcluster, linkage

    real = sorted(set(topics.tolist()))
    tree = linkage(
        topic_centroids(vectors, topics, real).astype(np.float64), method="average", metric="cosine"
    )
    return dict(zip(real, fcluster(tree, t=n_groups, criterion="maxclust").tolist(), strict=True))


def by_ward(vectors, topics, n_groups, seed):
    """Ward linkage of the unit-length topic centroids."""
    from scipy.cluster.hierarchy import fcluster, linkage

    real = sorted(set(topics.tolist()))
    centroids = topic_centroids(vectors, topics, real).astype(np.float64)
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    found = fcluster(linkage(centroids, method="ward"), t=n_groups, criterion="maxclust")
    return dict(zip(real, found.tolist(), strict=True))


WAYS = {
    "average linkage of the centroids, unbounded (the first stage)": by_unbounded_linkage,
    "average linkage of the papers, no group over a third unless tight (the stage now)": by_paper_linkage,
    "Ward linkage of the centroids": by_ward,
    "k-means on the centroids, weighted by papers": by_weighted_centroid_kmeans,
    "k-means on the papers, each topic to its majority group": by_paper_kmeans_majority,
}


def compare(results: Path, corpus: Path) -> dict:
    vectors, topics, labels = load_run(results, corpus)
    n_topics = len(set(topics.tolist()))
    n_groups = resolve_coarse_topics("auto", n_topics)
    rows = {}
    for name, way in WAYS.items():
        scores, largest = [], []
        for seed in SEEDS:
            group_of = way(vectors, topics, n_groups, seed)
            groups = np.array([group_of[t] for t in topics.tolist()])
            scores.append(normalized_mutual_info_score(labels, groups))
            largest.append(np.bincount(groups).max() / len(groups))
            if way in (by_unbounded_linkage, by_paper_linkage, by_ward):
                break  # no seed: the same groups every time
        rows[name] = (float(np.mean(scores)), float(np.max(largest)))
    kmeans = [
        normalized_mutual_info_score(labels, KMeans(n_groups, n_init=10, random_state=s).fit(vectors).labels_)
        for s in SEEDS
    ]
    rows["k-means on the papers (not nested in the topics; the target)"] = (
        float(np.mean(kmeans)),
        float("nan"),
    )
    return {
        "corpus": corpus.name,
        "papers": len(topics),
        "topics": n_topics,
        "groups": n_groups,
        "rows": rows,
    }


def markdown(found: list[dict]) -> str:
    lines = []
    for result in found:
        lines += [
            f"{result['corpus']}: {result['papers']} papers, {result['topics']} topics, {result['groups']} groups",
            "",
            "| groups made by | NMI to the labels | largest group's share of the papers |",
            "|---|---:|---:|",
        ]
        lines += [f"| {name} | {nmi:.3f} | {share:.0%} |" for name, (nmi, share) in result["rows"].items()]
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="RESULTS CORPUS pairs")
    args = parser.parse_args()
    pairs = list(zip(args.runs[::2], args.runs[1::2], strict=True))
    print(markdown([compare(Path(results), Path(corpus)) for results, corpus in pairs]))


if __name__ == "__main__":
    main()
