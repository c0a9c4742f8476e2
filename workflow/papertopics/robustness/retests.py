"""The main run's tests run again on one replicate's topics: the same test (over the same periods,
on the same papers' decisions, ratings and citations), Benjamini-Hochberg across the replicate's
own topics, as the main run's family is its topics.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from papertopics.changes.shares import compare_periods, dump_shares
from papertopics.changes.signals import leading_topic, term_bursts, topic_trends
from papertopics.changes.trajectories import STEADY
from papertopics.changes.trends import FALLING, RISING
from papertopics.changes.venue_trends import describe_venue_trends
from papertopics.changes.venues import compare_groups
from papertopics.mapping.cluster import OUTLIER
from papertopics.people.authorship import display_names
from papertopics.people.trends import GradingLevels, over_represented, rising
from papertopics.periods.assign import Periods
from papertopics.reception.table import FAMILIES, ReceptionSettings, TopicPapers, reception_table
from papertopics.reception.values import ReceptionValues
from papertopics.reception.years import year_rows
from papertopics.robustness.findings import Replicate
from papertopics.settings import CompareSettings
from papertopics.stats import NO_EVIDENCE, SIGNIFICANT, grade

TESTED_COLUMNS = ["topic", "direction", "grade"]
# A reception finding is a topic's measure and outcome (its acceptance, its mean rating, ...).
RECEPTION_COLUMNS = ["topic", "measure", "outcome", "direction", "grade"]


def drawn_periods(periods: Periods, rows: np.ndarray) -> Periods:
    """``periods`` (over the main run's paper rows) of the drawn papers ``rows`` only, renumbered."""
    moved = drawn_positions(periods.rows, rows)
    kept = moved >= 0
    return replace(periods, rows=moved[kept], period=periods.period[kept])


def drawn_positions(main_rows: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each of ``main_rows`` (the main run's paper rows) as a row of the drawn papers ``rows``,
    -1 where its paper was not drawn.
    """
    size = max(int(main_rows.max(initial=-1)), int(rows.max(initial=-1))) + 1
    position = np.full(size, -1, dtype=np.int64)
    position[rows] = np.arange(len(rows))
    return position[main_rows]


def _replicate_shares(replicate: Replicate, periods: Periods, confidence: float) -> pd.DataFrame:
    """The replicate's topics' shares per period (``dump_shares``), over the papers it drew."""
    papers = pd.DataFrame({"topic": replicate.labels, "outlier": replicate.outlier})
    labels = {int(topic): str(topic) for topic in np.unique(replicate.labels)}
    return dump_shares(papers, drawn_periods(periods, replicate.rows), labels, confidence)


def replicate_trends(
    replicate: Replicate, periods: Periods, tested: list[str], settings: CompareSettings
) -> pd.DataFrame:
    """The trend of each of the replicate's topics over the main run's ``tested`` periods (its
    clustered papers, Cochran-Armitage, Benjamini-Hochberg across its topics): ``topic``,
    ``direction``, ``grade``, and its trajectory's ``shape`` (``trajectory_findings``); none
    where no trend can be tested.
    """
    shares = _replicate_shares(replicate, periods, settings.confidence)
    found = topic_trends(shares, periods.by, tested, settings)
    if not found["available"]:
        return pd.DataFrame(columns=[*TESTED_COLUMNS, "shape"])
    return pd.DataFrame(found["topics"])[[*TESTED_COLUMNS, "shape"]]


def trajectory_findings(trends: pd.DataFrame) -> pd.DataFrame:
    """Each topic's trajectory (a table of trends with its ``shape``: ``trends.csv``, or
    ``replicate_trends``') as a finding: ``topic``, ``direction`` (its shape: rising, falling,
    peaked, returned), ``grade`` (significant where it has a shape: its test and smallest move
    passed; none where it is steady).
    """
    shaped = trends["shape"] != STEADY
    return pd.DataFrame(
        {
            "topic": trends["topic"],
            "direction": trends["shape"],
            "grade": np.where(shaped, SIGNIFICANT, NO_EVIDENCE).astype(object),
        }
    )


# The newest period against the one before: a topic's change in clustered share between the two.
COMPARISON_COLUMNS = ["topic", "label", "baseline", "target", "baseline_clustered_papers"]
COMPARISON_COLUMNS += ["target_clustered_papers", "baseline_clustered_share", "target_clustered_share"]
COMPARISON_COLUMNS += [
    "change_pp",
    "change_low_pp",
    "change_high_pp",
    "p_value",
    "q_value",
    "grade",
    "direction",
]


def step_direction(change_pp) -> list[str]:
    """``rising`` where a topic's share grew from the baseline to the target, else ``falling``."""
    return [RISING if change > 0 else FALLING for change in change_pp]


def comparison_findings(changes: dict) -> pd.DataFrame:
    """The changes stage's newest period against the one before (``changes.json``), a row per
    topic with its ``direction`` (``COMPARISON_COLUMNS``); no rows where the two were not compared
    or not tested (a period too small): there is nothing to re-test.
    """
    if not (changes.get("comparable") and changes.get("tested")):
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    found = pd.DataFrame(changes["comparison"], columns=COMPARISON_COLUMNS[:2] + COMPARISON_COLUMNS[4:-1])
    found.insert(2, "baseline", changes["baseline"])
    found.insert(3, "target", changes["target"])
    return found.assign(direction=step_direction(found["change_pp"]))[COMPARISON_COLUMNS]


def replicate_comparison(
    replicate: Replicate, periods: Periods, baseline: str, target: str, settings: CompareSettings
) -> pd.DataFrame:
    """Each of the replicate's topics' change in clustered share from the main run's ``baseline``
    to its ``target`` (Fisher's exact test, Benjamini-Hochberg across the replicate's topics,
    graded as the changes stage grades it): ``topic``, ``direction``, ``grade``.
    """
    shares = _replicate_shares(replicate, periods, settings.confidence)
    found = compare_periods(shares, baseline, target, settings.confidence, settings.false_discovery_rate)
    return pd.DataFrame(
        {
            "topic": found["topic"].astype(int),
            "direction": step_direction(found["change_pp"]),
            "grade": grade(found["q_value"], settings.false_discovery_rate, settings.suggestive_q),
        }
    )


# A burst's topic finding: the topic that holds most of a term's papers in its burst, keyed by
# the term and the period its burst starts in.
BURST_COLUMNS = ["topic", "term", "start", "direction", "grade"]
BURSTING = "bursting"


def burst_findings(bursts: dict) -> pd.DataFrame:
    """Each burst of the changes stage (``changes.json``'s ``bursts``, in ``bursts.csv``'s order)
    as a finding of its leading topic (``OUTLIER`` where none of its papers is in a topic):
    ``BURST_COLUMNS``, every burst significant (the changes stage keeps no other).
    """
    found = (bursts.get("bursts") or []) if bursts.get("available") else []
    return pd.DataFrame(
        {
            "topic": [leading_topic(burst) for burst in found],
            "term": [b["term"] for b in found],
            "start": [str(b["start"]) for b in found],
            "direction": BURSTING,
            "grade": SIGNIFICANT,
        },
        columns=BURST_COLUMNS,
    )


@dataclass(frozen=True)
class BurstsTested:
    """What the burst test reads, the main run's: each paper's text, the periods, the periods the
    bursts were tested over, the ``compare`` knobs and the stop words the terms are counted with.
    """

    texts: list[str]
    periods: Periods
    tested: list[str]
    settings: CompareSettings
    stop_words: str | None


def replicate_bursts(replicate: Replicate, found: BurstsTested) -> pd.DataFrame:
    """The terms that burst in the replicate's drawn papers (the changes stage's test and family
    over the main run's tested periods), each topic among those holding most of a burst's papers
    there once per period of its span (``start``: a main burst holds where its first period is in
    the span): ``BURST_COLUMNS``.
    """
    labels = {int(topic): str(topic) for topic in np.unique(replicate.labels) if topic != OUTLIER}
    record = term_bursts(
        [found.texts[row] for row in replicate.rows],
        pd.DataFrame({"topic": replicate.labels}),
        drawn_periods(found.periods, replicate.rows),
        found.tested,
        labels,
        found.settings,
        found.stop_words,
    )
    rows = [
        (int(topic["topic"]), burst["term"], str(period), BURSTING, SIGNIFICANT)
        for burst in record.get("bursts") or []
        for topic in burst["topics"]
        for period in burst["periods"]
    ]
    return pd.DataFrame(rows, columns=BURST_COLUMNS)


# The reception families that read the papers' decisions (the others read ratings and citations).
DECISION_FAMILIES = ("acceptance", "outcomes")
VALUE_FAMILIES = tuple(family for family in FAMILIES if family not in DECISION_FAMILIES)


def replicate_reception(
    replicate: Replicate,
    papers: TopicPapers,
    values: ReceptionValues,
    settings: ReceptionSettings,
    families: tuple[str, ...] = FAMILIES,
) -> pd.DataFrame:
    """The reception tests of the replicate's topics (each against the rest, one family per kind,
    stepped down, as the main run's; ``papers`` and ``values``: the main run's, every paper), of
    the ``families`` given: ``topic``, ``measure``, ``outcome``, ``direction``, ``grade``.
    """
    drawn, kept = _drawn_reception(replicate, papers, values)
    found = reception_table(drawn, kept, settings, describe=False, families=families)
    return found.rename(columns={"evidence": "grade"})[RECEPTION_COLUMNS]


# A change across the years is a topic's: its rate against the rest's changed, in no one direction.
CHANGED = "changed"


def year_change_findings(per_year: pd.DataFrame) -> pd.DataFrame:
    """The reception stage's rates per year (``year_rows``: a row per topic and year, each with the
    topic's change test) as findings, a row each: ``topic``, ``direction`` (changed), ``grade``.
    """
    return pd.DataFrame(
        {"topic": per_year["topic"], "direction": CHANGED, "grade": per_year["change_evidence"]},
        columns=TESTED_COLUMNS,
    )


def replicate_year_changes(
    replicate: Replicate, papers: TopicPapers, values: ReceptionValues, settings: ReceptionSettings
) -> pd.DataFrame:
    """Whether each of the replicate's topics' acceptance (or rarer outcome) against the rest's
    changed across the years (the reception stage's exact change test, Benjamini-Hochberg across
    the replicate's topics): ``topic``, ``direction``, ``grade``, a row per topic.
    """
    drawn, kept = _drawn_reception(replicate, papers, values)
    found = year_change_findings(year_rows(drawn, kept, settings))
    return found.drop_duplicates("topic")


def _drawn_reception(
    replicate: Replicate, papers: TopicPapers, values: ReceptionValues
) -> tuple[TopicPapers, ReceptionValues]:
    """The replicate's drawn papers as the reception tests read them: each coded by its topic
    there (-1 an outlier), with its pool, year, decision, rating and citations.
    """
    labels = replicate.labels
    topics = np.unique(labels[labels != OUTLIER])
    codes = np.where((labels == OUTLIER) | replicate.outlier, -1, np.searchsorted(topics, labels))
    rows = replicate.rows
    drawn = TopicPapers(
        codes=codes.astype(np.int64),
        pools=papers.pools[rows],
        years=papers.years[rows],
        topics=tuple(int(t) for t in topics),
        labels=tuple(str(t) for t in topics),
    )
    kept = replace(
        values,
        decision=values.decision[rows],
        rating=values.rating[rows],
        rating_spread=values.rating_spread[rows],
        citations=values.citations[rows],
    )
    return drawn, kept


# A person finding is a topic's kind (institution, country) and name; a venue finding a topic's venue.
PEOPLE_COLUMNS = ["topic", "kind", "name", "direction", "grade"]
VENUE_COLUMNS = ["topic", "venue", "direction", "grade"]


@dataclass(frozen=True)
class PeopleTested:
    """The main run's people as the people stage tests them: its long table (one row per paper's
    author, institution or country, ``row`` a main-run paper row) with each name spelled as the
    main run shows it, so that a replicate's finding names the same name; the periods; the fewest
    papers a name needs; and the levels the tests are graded at.
    """

    long: pd.DataFrame
    periods: Periods
    min_papers: float
    levels: GradingLevels


def people_tested(
    long: pd.DataFrame, periods: Periods, min_papers: float, levels: GradingLevels
) -> PeopleTested:
    """``PeopleTested`` with each (kind, key) spelled as ``display_names`` spells it on every paper."""
    shown = display_names(long)
    names = [shown[pair] for pair in zip(long["kind"].tolist(), long["key"].tolist(), strict=True)]
    return PeopleTested(long.assign(name=names), periods, min_papers, levels)


def _drawn_people(replicate: Replicate, people: PeopleTested) -> tuple[pd.DataFrame, dict[int, str]]:
    """The long table of the replicate's drawn papers (rows renumbered as drawn) and its topics' labels."""
    moved = drawn_positions(people.long["row"].to_numpy(dtype=np.int64), replicate.rows)
    long = people.long[moved >= 0].assign(row=moved[moved >= 0]).reset_index(drop=True)
    labels = {int(topic): str(topic) for topic in np.unique(replicate.labels) if topic != OUTLIER}
    return long, labels


def replicate_rising(replicate: Replicate, people: PeopleTested) -> pd.DataFrame:
    """Who is rising or falling in each of the replicate's topics beyond the corpus (the people
    stage's test over the main run's periods, Benjamini-Hochberg across every tested pair of a
    kind): ``topic``, ``kind``, ``name``, ``direction``, ``grade``.
    """
    long, labels = _drawn_people(replicate, people)
    periods = drawn_periods(people.periods, replicate.rows)
    found = rising(long, replicate.labels, periods, labels, people.min_papers, people.levels)
    return found[PEOPLE_COLUMNS]


def replicate_over_represented(replicate: Replicate, people: PeopleTested) -> pd.DataFrame:
    """The names that hold more (or fewer) of each of the replicate's topics than the other names
    (the people stage's cells, Benjamini-Hochberg across the cells of a kind): ``topic``,
    ``kind``, ``name``, ``direction``, ``grade``.
    """
    long, labels = _drawn_people(replicate, people)
    found = over_represented(long, replicate.labels, labels, people.min_papers, people.levels)
    return found[PEOPLE_COLUMNS]


def replicate_venues(replicate: Replicate, groups: Periods, levels: GradingLevels) -> pd.DataFrame:
    """Which venues hold more or fewer of each of the replicate's topics than the others (the
    venues stage's cells over its clustered papers, Benjamini-Hochberg across every cell):
    ``topic``, ``venue``, ``direction``, ``grade``.
    """
    labels = {int(topic): str(topic) for topic in np.unique(replicate.labels) if topic != OUTLIER}
    found = compare_groups(
        replicate.labels,
        ~replicate.outlier.astype(bool),
        drawn_periods(groups, replicate.rows),
        labels,
        levels.confidence,
        levels.false_discovery_rate,
        levels.suggestive_q,
    )
    return found[VENUE_COLUMNS]


def replicate_venue_trends(
    replicate: Replicate, periods: Periods, groups: Periods | None, settings: CompareSettings
) -> pd.DataFrame:
    """Each venue's own trends of the replicate's topics (the venues stage's Cochran-Armitage test
    within each venue over its periods of enough papers, Benjamini-Hochberg across every venue and
    topic): ``topic``, ``venue``, ``direction``, ``grade``; none where no venue has 3 such periods.
    """
    labels = {int(topic): str(topic) for topic in np.unique(replicate.labels) if topic != OUTLIER}
    found, _ = describe_venue_trends(
        replicate.labels,
        ~replicate.outlier.astype(bool),
        drawn_periods(periods, replicate.rows),
        drawn_periods(groups, replicate.rows) if groups is not None else None,
        labels,
        settings,
    )
    return found[VENUE_COLUMNS]
