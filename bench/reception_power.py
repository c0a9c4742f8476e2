"""Error rate and power of the reception tests on real papers and their real topics.

A shared metadata corpus is written as a user's export would be (one JSON Lines dump per venue and
year, decisions, ratings and citations as the source gives them), parsed by the parse stage's own
reader, and given real topics once (TF-IDF of title and abstract, 100-d SVD, k-means; seed 0).
Neither corpus has rejected papers, so its rarest tier (OpenReview's orals, ACL's short papers)
counts as accepted, as for a chair whose export calls the accepted papers by their tier: the
acceptance family is then that tier against the others, and the other outcomes (ACL's Findings
and Long) the outcomes' family. Then only the reception tests are rerun, 200 times each:

- shuffled: decisions and ratings each permuted among the papers of the same venue and year
  (within a year, not across venues: COLM's and CoRL's ratings are on scales of their own),
  citations among those of the same year, as each is tested, so no topic differs from the rest; the share of runs flagging any topic (significant) should be
  at most 5%;
- planted: a random set of 30, 60 or 120 papers of one real topic (those with a value of the kind
  planted) made a topic of its own, everything shuffled as above, and then their acceptance (or
  another outcome's share) raised by 10, 20 or 30 points, their ratings lowered by 0.3, 0.5 or
  1.0, or their citations halved: the share of runs that flag that topic (found), and that flag
  nothing else (clean);
- a change across the years (``year_rows``' test): shuffled as above, the share of runs in which
  some topic's decisions changed significantly; planted, a topic of 120 papers whose tier share
  is raised by 10, 20 or 30 points over its venue's year's in the later half of its years only.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
from papertopics.ingest.parse import input_columns, parse_dump
from papertopics.reception.table import (
    ACCEPTANCE,
    CITATIONS,
    FAMILIES,
    FAMILY,
    OUTCOME,
    RATING,
    ReceptionSettings,
    TopicPapers,
    flagged,
    is_accepted,
    reception_table,
)
from papertopics.reception.values import ReceptionValues, read_values
from papertopics.reception.years import year_measure, year_rows

CORPORA = ("openreview_metadata", "acl_2021_2022_metadata")
SIZES = (30, 60, 120)
EFFECTS = {
    ACCEPTANCE: (0.10, 0.20, 0.30),
    OUTCOME: (0.10, 0.20, 0.30),
    RATING: (0.3, 0.5, 1.0),
    CITATIONS: (0.5,),
}
CHANGE_EFFECTS = (0.10, 0.20, 0.30)
SETTINGS = ReceptionSettings(
    accepted=(),  # each corpus's rarest tier (``load_corpus``)
    min_papers=10,
    confidence=0.95,
    false_discovery_rate=0.05,
    suggestive_q=0.25,
)


@dataclass(frozen=True)
class Corpus:
    """A corpus's papers as the reception stage reads them, with topics and years, and the settings
    they are tested with (its rarest tier counted as accepted).
    """

    values: ReceptionValues
    papers: TopicPapers
    settings: ReceptionSettings


def write_dumps(source: Path, folder: Path) -> list[Path]:
    """The corpus as a chair's exports: one JSON Lines file per venue and year, fields as given."""
    by_dump: dict[str, list[str]] = {}
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        for line in lines:
            paper = json.loads(line)
            record = {key: paper[key] for key in ("id", "title", "abstract", "venue", "year", "decision")}
            record.update(ratings=paper["ratings"], citations=paper["citations"])
            by_dump.setdefault(f"{paper['venue'].lower()}{paper['year']}", []).append(json.dumps(record))
    paths = []
    for name, records in sorted(by_dump.items()):
        path = folder / f"{name}.jsonl"
        path.write_text("\n".join(records) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def real_topics(texts: list[str], topics: int) -> np.ndarray:
    """Topics from the text alone: TF-IDF, 100-d SVD, k-means (seed 0)."""
    from sklearn.cluster import KMeans
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    matrix = TfidfVectorizer(stop_words="english", min_df=2, sublinear_tf=True).fit_transform(texts)
    reduced = normalize(TruncatedSVD(100, random_state=0).fit_transform(matrix))
    return KMeans(topics, n_init=4, random_state=0).fit_predict(reduced)


def load_corpus(source: Path, folder: Path, topics: int = 8) -> Corpus:
    """Parse the corpus's dumps as the parse stage does and give its papers real topics."""
    parsed = [paper for path in write_dumps(source, folder) for paper in parse_dump(path, 20).papers]
    table = pd.DataFrame(
        {
            "dump": [p["dump"] for p in parsed],
            "location": [p["location"] for p in parsed],
            **input_columns(parsed, reserved={"dump", "location"}),
        }
    )
    values = read_values(table, "decision", "ratings", "citations")
    codes = real_topics([f"{p.get('title', '')}. {p['text']}" for p in parsed], topics)
    years = table["year"].astype(str).to_numpy(dtype=object)
    pools = pd.factorize(table["dump"] + "|" + table["year"].astype(str))[0]
    papers = TopicPapers(
        codes, pools, years, tuple(range(topics)), tuple(f"topic {t}" for t in range(topics))
    )
    tiers, counts = np.unique(values.decision[values.decision != ""], return_counts=True)
    settings = replace(SETTINGS, accepted=(str(tiers[np.argmin(counts)]).lower(),))
    return Corpus(values, papers, settings)


def shuffled(values: ReceptionValues, papers: TopicPapers, rng: np.random.Generator) -> ReceptionValues:
    """Decisions and ratings (with their spread) each permuted within pools (one venue's one year:
    COLM's and CoRL's ratings are on scales of their own), citations within years, as each is
    tested.
    """
    decision, rating, spread, citations = (
        values.decision.copy(),
        values.rating.copy(),
        values.rating_spread.copy(),
        values.citations.copy(),
    )
    for pool in np.unique(papers.pools):
        members = np.flatnonzero(papers.pools == pool)
        decision[members] = decision[rng.permutation(members)]
        order = rng.permutation(members)
        rating[members], spread[members] = rating[order], spread[order]
    for year in np.unique(papers.years):
        members = np.flatnonzero(papers.years == year)
        citations[members] = citations[rng.permutation(members)]
    return ReceptionValues(decision, rating, spread, citations, values.notes)


def _has_value(values: ReceptionValues, kind: str) -> np.ndarray:
    return {
        ACCEPTANCE: values.decision != "",
        OUTCOME: values.decision != "",
        RATING: ~np.isnan(values.rating),
        CITATIONS: ~np.isnan(values.citations),
    }[kind]


def _planted_topic(
    corpus: Corpus, kind: str, size: int, rng
) -> tuple[ReceptionValues, TopicPapers, np.ndarray] | None:
    """A shuffled copy with ``size`` papers of one real topic (with a value of ``kind``) made a
    topic of their own, and those papers; None where no topic has that many.
    """
    values = shuffled(corpus.values, corpus.papers, rng)
    has = _has_value(values, kind)
    sizes = np.bincount(corpus.papers.codes[has], minlength=len(corpus.papers.topics))
    candidates = np.flatnonzero(sizes >= size + 2)
    if not len(candidates):
        return None
    source = rng.choice(candidates)
    chosen = rng.choice(np.flatnonzero(has & (corpus.papers.codes == source)), size, replace=False)
    codes = corpus.papers.codes.copy()
    codes[chosen] = len(corpus.papers.topics)
    papers = TopicPapers(
        codes,
        corpus.papers.pools,
        corpus.papers.years,
        (*corpus.papers.topics, len(corpus.papers.topics)),
        (*corpus.papers.labels, "planted"),
    )
    return values, papers, chosen


def planted(
    corpus: Corpus, kind: str, size: int, effect: float, rng
) -> tuple[ReceptionValues, TopicPapers] | None:
    """A planted topic (``_planted_topic``) with its papers' ``kind`` moved by ``effect``."""
    made = _planted_topic(corpus, kind, size, rng)
    if made is None:
        return None
    values, papers, chosen = made
    return _moved(values, kind, chosen, effect, corpus.settings, rng), papers


def planted_outcome(decisions: np.ndarray, settings: ReceptionSettings) -> str | None:
    """The outcome a planted outcome's share raises: the rarest not counted as accepted (None
    where every outcome is, or only one is not: its share is the acceptance split again).
    """
    given = decisions[decisions != ""]
    outcomes, counts = np.unique(given[~is_accepted(given, settings.accepted)], return_counts=True)
    return str(outcomes[np.argmin(counts)]) if len(outcomes) > 1 else None


def _moved(
    values: ReceptionValues, kind: str, chosen: np.ndarray, effect: float, settings: ReceptionSettings, rng
) -> ReceptionValues:
    decision, rating, citations = values.decision.copy(), values.rating.copy(), values.citations.copy()
    if kind in (ACCEPTANCE, OUTCOME):
        given = decision[decision != ""]
        hit = (
            is_accepted(given, settings.accepted)
            if kind == ACCEPTANCE
            else given == planted_outcome(decision, settings)
        )
        raised = rng.random(len(chosen)) < hit.mean() + effect
        decision[chosen] = np.where(
            raised, rng.choice(given[hit], len(chosen)), rng.choice(given[~hit], len(chosen))
        )
    elif kind == RATING:
        rating[chosen] -= effect
    else:
        citations[chosen] = citations[chosen] * effect
    return ReceptionValues(decision, rating, values.rating_spread, citations, values.notes)


def null_rate(corpus: Corpus, runs: int, seed: int = 0) -> dict:
    """How often shuffled values flag some topic: any kind, and each kind."""
    rng = np.random.default_rng(seed)
    any_flag, by_family = 0, dict.fromkeys(FAMILIES, 0)
    for _ in range(runs):
        found = flagged(
            reception_table(
                corpus.papers, shuffled(corpus.values, corpus.papers, rng), corpus.settings, describe=False
            )
        )
        any_flag += len(found) > 0
        for family in by_family:
            by_family[family] += found["measure"].map(FAMILY).eq(family).any()
    return {"runs": runs, "any": any_flag / runs, **{k: v / runs for k, v in by_family.items()}}


def power(
    corpus: Corpus, kind: str, size: int, effect: float, runs: int, seed: int = 1, other_kinds: bool = True
) -> dict:
    """How often a planted effect is found, and how often nothing else is flagged with it (of its
    kind; of any kind unless ``other_kinds`` is False, which tests the planted kind alone: each
    kind is a family of its own, so its findings are the same, at a fraction of the cost).
    """
    rng = np.random.default_rng(seed)
    found = clean = clean_any = done = 0
    if kind == OUTCOME and planted_outcome(corpus.values.decision, corpus.settings) is None:
        runs = 0  # no outcome's share apart from acceptance to plant in
    for _ in range(runs):
        made = planted(corpus, kind, size, effect, rng)
        if made is None:
            break
        values, papers = made
        values = values if other_kinds else _kind_alone(values, kind)
        hits = flagged(reception_table(papers, values, corpus.settings, describe=False))
        planted_topic = hits["topic"] == papers.topics[-1]
        same_kind = hits["measure"].map(FAMILY).eq(FAMILY[kind])
        found += (planted_topic & same_kind).any()
        clean += not (~planted_topic & same_kind).any()
        clean_any += not (~planted_topic).any()
        done += 1
    return {
        "kind": kind,
        "size": size,
        "effect": effect,
        "runs": done,
        "found": found / done if done else None,
        "clean": clean / done if done else None,
        "clean_any_kind": clean_any / done if done and other_kinds else None,
    }


def _kind_alone(values: ReceptionValues, kind: str) -> ReceptionValues:
    """``values`` with the other kinds' values left out, as in an export that carries none."""
    missing = np.full(len(values.rating), np.nan)
    return ReceptionValues(
        values.decision if kind in (ACCEPTANCE, OUTCOME) else np.full(len(values.decision), "", dtype=object),
        values.rating if kind == RATING else missing,
        values.rating_spread if kind == RATING else missing,
        values.citations if kind == CITATIONS else missing,
        values.notes,
    )


def _tier_within_pools(
    decision: np.ndarray,
    papers: TopicPapers,
    chosen: np.ndarray,
    later: np.ndarray,
    effect: float,
    settings: ReceptionSettings,
    rng,
) -> np.ndarray:
    """``decision`` with each ``chosen`` paper drawn anew from its pool (venue's year): the followed
    tier at the pool's share, plus ``effect`` for the papers of the ``later`` years; else another
    decision of its pool.
    """
    decision = decision.copy()
    _, _, tier = year_measure(decision, papers.years, settings.accepted)
    # A pool without the tier plants the tier's commonest decision in the corpus (where the tier
    # is acceptance, its measure names no outcome: "" would be a paper without a decision).
    words, counts = np.unique(decision[tier], return_counts=True)
    commonest = words[np.argmax(counts)]
    for pool in np.unique(papers.pools[chosen]):
        members = np.flatnonzero((papers.pools == pool) & (decision != ""))
        drawn = chosen[papers.pools[chosen] == pool]
        drawn = drawn[decision[drawn] != ""]
        share = tier[members].mean()
        others = decision[members][~tier[members]]
        if not len(drawn) or not len(others):
            continue
        raised = rng.random(len(drawn)) < share + np.where(later[drawn], effect, 0.0)
        tier_decision = decision[members][tier[members]]
        decision[drawn] = np.where(
            raised,
            rng.choice(tier_decision, len(drawn)) if len(tier_decision) else commonest,
            rng.choice(others, len(drawn)),
        )
    return decision


def _changed(table: pd.DataFrame) -> set:
    return set(table.loc[table["change_evidence"] == "significant", "topic"])


def change_null_rate(corpus: Corpus, runs: int, seed: int = 0) -> float:
    """How often shuffled decisions make some topic's decisions change significantly across years."""
    rng = np.random.default_rng(seed)
    shuffled_runs = (
        year_rows(corpus.papers, shuffled(corpus.values, corpus.papers, rng), corpus.settings)
        for _ in range(runs)
    )
    return sum(bool(_changed(table)) for table in shuffled_runs) / runs


def change_power(corpus: Corpus, size: int, effect: float, runs: int, seed: int = 1) -> dict:
    """How often a topic whose share of the followed tier (``year_measure``'s) rises by
    ``effect`` over its venue's year's in the later half of its years only is found to change,
    and how often no other topic is.
    """
    rng = np.random.default_rng(seed)
    found = clean = done = 0
    for _ in range(runs):
        made = _planted_topic(corpus, OUTCOME, size, rng)
        if made is None:
            break
        values, papers, chosen = made
        # The later half of the topic's own years: a topic of COLM's (2024-25) changes in 2025.
        years = np.unique(papers.years[chosen][papers.years[chosen] != ""])
        later = np.isin(papers.years, years[len(years) // 2 :])
        decision = _tier_within_pools(values.decision, papers, chosen, later, effect, corpus.settings, rng)
        changed = _changed(year_rows(papers, replace(values, decision=decision), corpus.settings))
        found += papers.topics[-1] in changed
        clean += not (changed - {papers.topics[-1]})
        done += 1
    return {
        "size": size,
        "effect": effect,
        "runs": done,
        "found": found / done if done else None,
        "clean": clean / done if done else None,
    }
