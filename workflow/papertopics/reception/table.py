"""How each topic was received: its decisions (each outcome's share, the acceptance rate), its
reviewers' ratings and its papers' citations for their year, each against the rest of the corpus.

Tests are in :mod:`papertopics.reception.permutation`; q-values are Benjamini–Hochberg across
topics, one family per kind (acceptance, the outcomes' shares, ratings, citations: acceptance,
the question a chair asks first, is not diluted by every outcome's share), graded as the trends are
(``papertopics.stats.grade``). Citations are never compared raw: each paper's count is
divided by the mean count of the papers of its year (a normalised citation score, 1 = its
year's mean), and papers without a year are left out of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from papertopics.reception.permutation import (
    bootstrap_mean_interval,
    draws_for,
    mean_interval,
    mean_test,
    median_interval,
    share_test,
)
from papertopics.reception.values import ReceptionValues
from papertopics.stats import NOT_TESTED, SIGNIFICANT, benjamini_hochberg, grade, wilson_interval

ACCEPTANCE, OUTCOME, RATING, CITATIONS = "acceptance", "outcome", "rating", "citations"
FAMILY = {ACCEPTANCE: "acceptance", OUTCOME: "outcomes", RATING: "ratings", CITATIONS: "citations"}
FAMILIES = ("acceptance", "outcomes", "ratings", "citations")
_MEASURE_ORDER = {ACCEPTANCE: 0, OUTCOME: 1, RATING: 2, CITATIONS: 3}
COLUMNS = [
    "topic",
    "label",
    "measure",
    "outcome",
    "papers",
    "value",
    "low",
    "high",
    "rest",
    "median",
    "median_low",
    "median_high",
    "spread",
    "rest_spread",
    "p_value",
    "q_value",
    "evidence",
    "direction",
]


@dataclass(frozen=True)
class ReceptionSettings:
    """Which decisions count as accepted (words a decision starts a word with, any case), the
    fewest papers with a value a topic needs to be tested, and the grading (``compare``'s).
    """

    accepted: tuple[str, ...]
    min_papers: int
    confidence: float
    false_discovery_rate: float
    suggestive_q: float


@dataclass(frozen=True)
class TopicPapers:
    """Per paper: its topic's code (0 … len(topics) − 1, −1 for an outlier or none), its pool
    (papers judged together: its dump, venue and year) and its year ("" where none).
    """

    codes: np.ndarray
    pools: np.ndarray
    years: np.ndarray
    topics: tuple[int, ...]
    labels: tuple[str, ...]


def is_accepted(decisions: np.ndarray, accepted: tuple[str, ...]) -> np.ndarray:
    """Whether each decision counts as accepted: one of its words starts with an ``accepted`` word."""
    if not accepted:
        return np.zeros(len(decisions), dtype=bool)
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(word) for word in accepted) + ")", re.IGNORECASE)
    return np.array([bool(pattern.search(text)) for text in decisions], dtype=bool)


def normalised_citations(citations: np.ndarray, years: np.ndarray) -> np.ndarray:
    """Each paper's citations over the mean of its year's (NaN without a count, a year, or where
    its year's papers have none at all).
    """
    scores = np.full(len(citations), np.nan)
    for year in np.unique(years[(years != "") & ~np.isnan(citations)]):
        cohort = (years == year) & ~np.isnan(citations)
        mean = citations[cohort].mean()
        if mean > 0:
            scores[cohort] = citations[cohort] / mean
    return scores


def decision_measures(decisions: np.ndarray, accepted: tuple[str, ...]) -> list[tuple[str, str, np.ndarray]]:
    """The shares tested: acceptance where some papers are accepted and some not, then each outcome
    (the rarer only of two) that is not the acceptance split again.
    """
    given = decisions != ""
    measures, seen = [], []
    hit = is_accepted(decisions[given], accepted)
    if 0 < hit.sum() < len(hit):
        measures.append((ACCEPTANCE, "", hit))
        seen.append(hit)
    outcomes, counts = np.unique(decisions[given], return_counts=True)
    if len(outcomes) == 2:
        outcomes = outcomes[np.argsort(counts, kind="stable")[:1]]
    for outcome in outcomes if len(counts) > 1 else []:
        hit = decisions[given] == outcome
        if not any((hit == other).all() or (hit != other).all() for other in seen):
            measures.append((OUTCOME, str(outcome), hit))
    return measures


def _rows(measure: str, outcome: str, found, papers: TopicPapers, settings) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "topic": papers.topics,
            "label": papers.labels,
            "measure": measure,
            "outcome": outcome,
            "papers": found.papers,
            "value": found.value,
            "rest": found.rest,
            "p_value": np.where(found.papers >= settings.min_papers, found.p_value, np.nan),
            "distance": found.distance,
            "gate_p_value": found.gate_p_value,
        }
    )


def _share_rows(
    papers: TopicPapers, values: ReceptionValues, settings: ReceptionSettings, kind: str
) -> list[pd.DataFrame]:
    """The rows of the decisions' shares of one ``kind`` (``ACCEPTANCE`` or ``OUTCOME``)."""
    given = values.decision != ""
    frames = []
    for measure, outcome, hit in decision_measures(values.decision, settings.accepted):
        if measure != kind:
            continue
        found = share_test(hit, papers.codes[given], papers.pools[given], len(papers.topics))
        rows = _rows(measure, outcome, found, papers, settings)
        rows["low"], rows["high"] = wilson_interval(
            found.value * found.papers, found.papers, settings.confidence
        )
        frames.append(rows)
    return frames


def _mean_rows(
    measure: str, scores, tested, papers: TopicPapers, strata, settings, spread=None, describe=True
) -> pd.DataFrame:
    """The rows of a mean (ratings, normalised citations): ``scores`` described (intervals,
    median, spread: unless ``describe`` is off), ``tested`` (the same papers' values on the test's
    scale) tested within ``strata``.
    """
    given = ~np.isnan(scores)
    codes = papers.codes[given]
    found = mean_test(
        tested[given],
        codes,
        strata[given],
        len(papers.topics),
        settings.min_papers,
        draws_for(len(papers.topics), settings.false_discovery_rate),
    )
    value, rest = _plain_means(scores[given], codes, len(papers.topics))
    found = replace(found, value=value, rest=rest)
    rows = _rows(measure, "", found, papers, settings)
    if not describe:
        return rows
    interval = mean_interval if measure == RATING else bootstrap_mean_interval
    columns = ("low", "high", "median", "median_low", "median_high", "spread", "rest_spread")
    described = {column: [] for column in columns}
    for code in range(len(papers.topics)):
        member = scores[given][codes == code]
        inside = spread[given][codes == code] if spread is not None else np.array([])
        outside = spread[given][codes != code] if spread is not None else np.array([])
        values = (
            *interval(member, settings.confidence),
            np.median(member) if len(member) else np.nan,
            *median_interval(member, settings.confidence),
            _mean_of_given(inside),
            _mean_of_given(outside),
        )
        for column, value in zip(columns, values, strict=True):
            described[column].append(value)
    return rows.assign(**described)


def _mean_of_given(values: np.ndarray) -> float:
    """The mean of the values that are not NaN; NaN where there are none."""
    given = values[~np.isnan(values)]
    return float(given.mean()) if len(given) else np.nan


def _plain_means(values: np.ndarray, codes: np.ndarray, topics: int) -> tuple[np.ndarray, np.ndarray]:
    sums = np.bincount(codes[codes >= 0], weights=values[codes >= 0], minlength=topics)
    sizes = np.bincount(codes[codes >= 0], minlength=topics)
    value = np.where(sizes > 0, sums / np.maximum(sizes, 1), np.nan)
    rest = (values.sum() - sums) / np.maximum(len(values) - sizes, 1)
    return value, rest


def _family_rows(
    family: str, papers: TopicPapers, values: ReceptionValues, settings: ReceptionSettings, describe: bool
) -> list[pd.DataFrame]:
    """The rows of one family of measures (:data:`FAMILIES`), every topic."""
    if family == "acceptance":
        return _share_rows(papers, values, settings, ACCEPTANCE)
    if family == "outcomes":
        return _share_rows(papers, values, settings, OUTCOME)
    if family == "ratings":
        if not (~np.isnan(values.rating)).any():
            return []
        rows = _mean_rows(
            RATING,
            values.rating,
            values.rating,
            papers,
            papers.pools,
            settings,
            values.rating_spread,
            describe,
        )
        return [rows]
    scores = normalised_citations(values.citations, papers.years)
    if not (~np.isnan(scores)).any():
        return []
    year_codes = pd.factorize(papers.years)[0]
    logged = np.log1p(np.where(np.isnan(values.citations), 0, values.citations))
    tested = np.where(np.isnan(scores), np.nan, logged)
    return [_mean_rows(CITATIONS, scores, tested, papers, year_codes, settings, describe=describe)]


def _without(papers: TopicPapers, values: ReceptionValues, topics: set[int]):
    """The papers and values less those of the topic codes ``topics``."""
    keep = ~np.isin(papers.codes, list(topics))
    return (
        TopicPapers(papers.codes[keep], papers.pools[keep], papers.years[keep], papers.topics, papers.labels),
        ReceptionValues(
            values.decision[keep], values.rating[keep], values.rating_spread[keep], values.citations[keep], ()
        ),
    )


def _stepped_down(family: str, papers: TopicPapers, values: ReceptionValues, settings) -> pd.DataFrame:
    """A family's tests, stepped down: the topic found most clearly different (q below the false
    discovery rate; the smallest p-value, and of equal ones, permutations' smallest among them, the
    furthest from the rest) is taken out of the rest that the other topics are compared with, and
    they are tested again, until no other topic is found. A topic far off the rest would otherwise make
    every other topic of its venue's year look off the other way. Each found topic keeps the
    figures of the pass that found it; the others take the last pass's.
    """
    found: dict[int, pd.DataFrame] = {}
    while True:
        subset = _without(papers, values, set(found))
        frames = _family_rows(family, *subset, settings, describe=False)
        if not frames:
            return pd.DataFrame(columns=COLUMNS)
        rows = pd.concat(frames, ignore_index=True)
        rows["code"] = rows["topic"].map({topic: code for code, topic in enumerate(papers.topics)})
        rows = rows[~rows["code"].isin(found)].copy()
        tested = rows["p_value"].notna()
        rows["q_value"] = np.nan
        if tested.any():
            rows.loc[tested, "q_value"] = benjamini_hochberg(rows.loc[tested, "p_value"].to_numpy())
            # No q-value below its family's gate's p-value (``mean_test``'s): a family whose gate
            # is not passed flags nothing.
            rows["q_value"] = np.fmax(rows["q_value"], rows["gate_p_value"].where(tested))
        strongest = rows[rows["q_value"] < settings.false_discovery_rate].sort_values(
            ["p_value", "distance", "code"], ascending=[True, False, True]
        )
        if strongest.empty:
            return pd.concat([*found.values(), rows], ignore_index=True).drop(
                columns=["code", "distance", "gate_p_value"]
            )
        code = int(strongest["code"].iloc[0])
        found[code] = rows[rows["code"] == code]


def reception_table(
    papers: TopicPapers,
    values: ReceptionValues,
    settings: ReceptionSettings,
    describe: bool = True,
    families: tuple[str, ...] = FAMILIES,
) -> pd.DataFrame:
    """Every topic's reception, one row per topic and measure (:data:`COLUMNS`), graded; without
    the means' intervals, medians and spreads where ``describe`` is off (the simulations, which
    count findings only). The tests are stepped down (``_stepped_down``); the values, the rest's,
    the intervals, medians and spreads describe each topic's own papers on the whole corpus.
    Only the ``families`` given (each family is tested on its own: the rows of some families
    are those the table of all has of them).
    """
    tested = [_stepped_down(family, papers, values, settings) for family in families]
    table = pd.concat([frame for frame in tested if len(frame)] or [pd.DataFrame(columns=COLUMNS)])
    table = table.reindex(columns=COLUMNS)
    if describe:
        described = pd.concat(
            [frame for family in FAMILIES for frame in _family_rows(family, papers, values, settings, True)]
            or [pd.DataFrame(columns=COLUMNS)]
        )
        key = ["topic", "measure", "outcome"]
        # The topic's value and the rest's on the whole corpus, as its interval is: a citation
        # score normalised without the found topics would not sit inside its interval.
        shown = [
            "value",
            "rest",
            "low",
            "high",
            "median",
            "median_low",
            "median_high",
            "spread",
            "rest_spread",
        ]
        # Decisions alone give no medians or spreads: their columns stay empty.
        described = described.reindex(columns=COLUMNS)
        table = table.drop(columns=shown).merge(described[key + shown], on=key, how="left")
    order = {topic: code for code, topic in enumerate(papers.topics)}
    table = table.assign(order=table["topic"].map(order), kind=table["measure"].map(_MEASURE_ORDER))
    table = table.sort_values(["kind", "outcome", "order"], kind="stable").drop(columns=["order", "kind"])
    return graded(table.reindex(columns=COLUMNS).reset_index(drop=True), settings)


def graded(table: pd.DataFrame, settings: ReceptionSettings) -> pd.DataFrame:
    """Evidence and direction from the q-values (Benjamini–Hochberg across topics, one family per
    kind of :data:`FAMILIES`, stepped down).
    """
    table = table.copy()
    evidence = grade(table["q_value"].fillna(1.0), settings.false_discovery_rate, settings.suggestive_q)
    table["evidence"] = np.where(table["q_value"].isna(), NOT_TESTED, evidence)
    higher = table["value"] > table["rest"]
    moving = table["evidence"].isin([SIGNIFICANT, "suggestive"])
    table["direction"] = np.where(moving, np.where(higher, "higher", "lower"), "")
    return table


def flagged(table: pd.DataFrame) -> pd.DataFrame:
    """The rows found significant."""
    return table[table["evidence"] == SIGNIFICANT]
