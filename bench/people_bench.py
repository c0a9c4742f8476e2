"""How often the people stage's "rising" call is wrong, and how often it finds a planted rise
(``make bench-people``).

On real papers with their authors' countries (the shared metadata corpora: OpenReview's COLM and
CoRL 2021-2025, ACL 2021-2022), each run splits the papers into stand-in topics: one of 120 papers
drawn equally from every year, the rest at random into topics of about 140. Then:

- null: countries shuffled among the papers within each year (each paper keeps its own list), so
  that no topic's countries differ from the corpus's but by chance;
- planted: the same, then one country's share of the 120-paper topic set to rise evenly from 10%
  in the first year to 30% in the last (each of the topic's papers of a year written by that
  country alone with that chance, the rest by no one from it), and the same in a topic of 360.

Each run is tested as the stage tests (``papertopics.people.trends.rising``, Benjamini-Hochberg across the
country tests of all topics). Reported: null runs with nothing flagged, significant (q < 0.05) and
at all (suggestive, q < 0.25, included); planted rises found; planted runs with nothing else
flagged outside the planted topic. Writes bench/people.md and bench/people.json.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
from papertopics.people.authorship import people_columns, people_table
from papertopics.people.trends import GradingLevels, rising
from papertopics.periods.assign import paper_periods
from papertopics.settings import PeopleSettings

from bench.common import BENCH, CORPORA

CORPUS_FILES = {"openreview": "openreview_metadata.jsonl.gz", "acl": "acl_2021_2022_metadata.jsonl.gz"}
LEVELS = GradingLevels(confidence=0.95, false_discovery_rate=0.05, suggestive_q=0.25)
SETTINGS = PeopleSettings(
    in_report=True,
    top=10,
    experts=20,
    min_papers=5,
    affiliation_column=None,
    country_column=None,
    confidence=0.95,
    false_discovery_rate=0.05,
    suggestive_q=0.25,
)
TOPIC_PAPERS = 120
OTHER_TOPIC_PAPERS = 140
PLANTED_FROM, PLANTED_TO = 0.10, 0.30


def load(path: Path) -> pd.DataFrame:
    """The papers that name at least one author's country: id, year, countries ("; "-joined)."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    rows = [
        {"id": r["id"], "year": str(r["year"]), "countries": "; ".join(c for c in r["countries"] or [] if c)}
        for r in records
    ]
    return pd.DataFrame([row for row in rows if row["countries"]]).reset_index(drop=True)


def stand_in_topics(years: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Topic 0: ``size`` papers, as many from each year; the rest at random into topics of about 140."""
    names = sorted(set(years.tolist()))
    chosen = np.concatenate(
        [rng.choice(np.nonzero(years == y)[0], size // len(names), replace=False) for y in names]
    )
    topic = np.full(len(years), -2)
    topic[chosen] = 0
    rest = rng.permutation(np.nonzero(topic == -2)[0])
    topic[rest] = 1 + np.arange(len(rest)) % max(len(rest) // OTHER_TOPIC_PAPERS, 1)
    return topic


def shuffled_within_years(countries: np.ndarray, years: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each year's papers' country lists, permuted among that year's papers."""
    shuffled = countries.copy()
    for year in np.unique(years):
        where = np.nonzero(years == year)[0]
        shuffled[where] = countries[rng.permutation(where)]
    return shuffled


def plant(countries, years, topic, country: str, rng: np.random.Generator) -> np.ndarray:
    """Topic 0's share of ``country`` set to rise evenly from 10% to 30% over the years."""
    planted = countries.copy()
    names = sorted(set(years.tolist()))
    without = np.array([country not in c.split("; ") for c in countries.tolist()])
    for step, year in enumerate(names):
        papers = rng.permutation(np.nonzero((topic == 0) & (years == year))[0])
        share = PLANTED_FROM + (PLANTED_TO - PLANTED_FROM) * step / max(len(names) - 1, 1)
        count = rng.binomial(len(papers), share)  # each paper by the country with that chance
        planted[papers[:count]] = country
        donors = np.nonzero(without & (years == year) & (topic != 0))[0]
        planted[papers[count:]] = countries[rng.choice(donors, len(papers) - count)]
    return planted


def corpus_shares(papers: pd.DataFrame, country: str) -> str:
    """The country's fractional share of each year's papers, as ``2021 6%, 2022 8%``."""
    long = people_table(papers, people_columns(list(papers.columns), SETTINGS))
    of_country = long[(long["kind"] == "country") & (long["name"] == country)]
    weight = of_country.groupby(papers["year"].to_numpy()[of_country["row"].to_numpy()])["weight"].sum()
    per_year = papers.groupby("year").size()
    return ", ".join(f"{year} {100 * weight.get(year, 0.0) / n:.0f}%" for year, n in per_year.items())


def one_run(papers: pd.DataFrame, rng: np.random.Generator, country: str | None, size: int) -> dict:
    """One simulated run's flags: anything flagged, and whether the planted rise was found."""
    years = papers["year"].to_numpy()
    topic = stand_in_topics(years, size, rng)
    countries = shuffled_within_years(papers["countries"].to_numpy(), years, rng)
    if country:
        countries = plant(countries, years, topic, country, rng)
    frame = papers.assign(countries=countries)
    long = people_table(frame, people_columns(list(frame.columns), SETTINGS))
    labels = {number: str(number) for number in np.unique(topic).tolist()}
    table = rising(long, topic, paper_periods(frame, "year", []), labels, SETTINGS.min_papers, LEVELS)
    table = table[table["kind"] == "country"]
    target = (table["topic"] == 0) & (table["name"] == country) if country else np.zeros(len(table), bool)
    others = table[~target & (table["topic"] != 0 if country else True)]
    hit = table[target]
    return {
        "significant_elsewhere": bool((others["grade"] == "significant").any()),
        "flagged_elsewhere": bool((others["grade"] != "no evidence").any()),
        "found_significant": bool(((hit["grade"] == "significant") & (hit["direction"] == "rising")).any()),
        "found": bool((hit["direction"] == "rising").any()),
        "tests": int(len(table)),
    }


def simulate(
    papers: pd.DataFrame, runs: int, seed: int, country: str | None, size: int = TOPIC_PAPERS
) -> dict:
    """The share of ``runs`` with each flag."""
    rng = np.random.default_rng(seed)
    results = [one_run(papers, rng, country, size) for _ in range(runs)]
    return {key: float(np.mean([r[key] for r in results])) for key in results[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2049)
    parser.add_argument("--corpora", nargs="+", default=list(CORPUS_FILES), choices=list(CORPUS_FILES))
    parser.add_argument("--countries", nargs="+", default=["China", "United Kingdom"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[TOPIC_PAPERS, 3 * TOPIC_PAPERS])
    parser.add_argument("--results", type=Path, default=BENCH)
    args = parser.parse_args()
    rows = []
    for name in args.corpora:
        papers = load(CORPORA / CORPUS_FILES[name])
        cases = [("null", None, TOPIC_PAPERS)]
        cases += [("planted", country, size) for country in args.countries for size in args.sizes]
        for case, country, size in cases:
            figures = simulate(papers, args.runs, args.seed, country, size)
            shares = corpus_shares(papers, country) if country else ""
            rows.append(
                {
                    "corpus": name,
                    "papers": len(papers),
                    "case": case,
                    "country": country or "",
                    "topic_papers": size,
                }
                | {"corpus_shares": shares, "runs": args.runs, **figures}
            )
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "people.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    lines = [
        "# People: rising countries, shuffled and planted",
        "",
        f"`python -m bench.people_bench`: {args.runs} runs per row (seed {args.seed}); stand-in topics: one of "
        f"{TOPIC_PAPERS} papers drawn equally from every year, the rest at random (~{OTHER_TOPIC_PAPERS} each). "
        "Null: countries shuffled among papers within years. Planted: the country's share of the "
        f"topic (of the size given) rising evenly from {PLANTED_FROM:.0%} to {PLANTED_TO:.0%}; the test asks for a rise "
        "beyond the country's share of the corpus, shown per year. "
        "Nothing flagged: runs with no country test significant (q < 0.05) / graded at all (q < 0.25), "
        "outside the planted topic in planted runs. Found: the planted rise graded significant / at all.",
        "",
        "| corpus | papers | case | topic papers | corpus share by year | tests per run | nothing significant "
        "| nothing flagged | found significant | found at all |",
        "|---|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        found = (
            f"{100 * row['found_significant']:.1f}% | {100 * row['found']:.1f}%"
            if row["case"] == "planted"
            else " | "
        )
        lines.append(
            f"| {row['corpus']} | {row['papers']} | {row['case']} {row['country']} | {row['topic_papers']} | "
            f"{row['corpus_shares']} | {row['tests']:.0f} | "
            f"{100 * (1 - row['significant_elsewhere']):.1f}% | {100 * (1 - row['flagged_elsewhere']):.1f}% | {found} |"
        )
    (args.results / "people.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
