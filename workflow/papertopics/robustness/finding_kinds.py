"""Each kind of finding the finding_robustness stage grades (``papertopics.robustness.stages``):
read from its stage's table, re-tested in every replicate on its matched topic with its stage's
own test and family (``papertopics.robustness.retests``), and graded by how often it holds
(``papertopics.robustness.findings``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from papertopics import storage
from papertopics.mapping.cluster import OUTLIER

# The reception stage's own steps, so that the papers and their decisions are read as it reads them.
from papertopics.reception.stages import received_records, received_table, reception_settings, topic_papers_of
from papertopics.reception.values import read_values
from papertopics.robustness.findings import Replicate, count_holds, with_robustness
from papertopics.robustness.retest_cache import RetestCache, array_digest
from papertopics.settings import FindingSettings
from papertopics.stats import SIGNIFICANT


@dataclass(frozen=True)
class FindingInputs:
    """What the finding_robustness stage reads (the rule's inputs, by name).

    Attributes:
        topic_papers: the topics stage's ``papers.csv`` (each paper's topic, and its authors,
            affiliations and countries).
        topics: ``topics.csv`` with each topic's stability (``topic_stability``).
        matches: ``stability.csv``: each topic's match in each replicate.
        replicates: every replicate's topics.
        periods_table: the periods stage's table of each paper's period and group.
        periods_settings: the periods stage's record.
        found_trends: the changes stage's ``trends.csv``.
        changes: the changes stage's ``changes.json`` (the periods the trends were tested over).
        papers: the corpus (its papers' dumps, to find them as parsed).
        parsed: the dumps as parsed, decisions, ratings and citations and all.
        details: the topics stage's ``topic_details.json``.
        found_reception: the reception stage's ``reception.csv``.
        found_bursts: the changes stage's ``bursts.csv``.
        found_reception_years: the reception stage's rates per year (``reception_years.csv``).
        found_venue_trends: the venues stage's ``venue_trends.csv``.
        found_rising: the people stage's ``people_rising.csv``.
        found_people_topics: the people stage's ``people_topics.csv``.
        found_venues: the venues stage's ``venues.csv``.
    """

    topic_papers: str
    topics: str
    matches: str
    replicates: list[str]
    periods_table: str
    periods_settings: str
    found_trends: str
    changes: str
    papers: str
    parsed: list[str]
    details: str
    found_reception: str
    found_bursts: str
    found_reception_years: str
    found_venue_trends: str
    found_rising: str
    found_people_topics: str
    found_venues: str


@dataclass(frozen=True)
class Graded:
    """What every kind's re-test reads: the main run's papers (``papers.csv``, as text), the
    replicates, each topic's stability, the stage's settings, and the periods stage's periods and
    groups (None where no venues are compared) over the papers.
    """

    assigned: object
    replicates: list[Replicate]
    stability: dict[int, float]
    settings: FindingSettings
    periods: object
    groups: object
    # Where each replicate's re-tests are kept between runs (none: each is computed), and a digest
    # of the files the re-tests of the topics' own findings read (papers, periods, changes).
    cache: RetestCache | None = None
    inputs: str = ""

    def retest(self, kind: str, retest, inputs: str | None = None):
        """``retest`` (replicate → its re-tested table) through the cache, where there is one,
        keyed by ``inputs`` (a digest of the data it reads; where None, ``self.inputs``).
        """
        if self.cache is None:
            return retest
        key = self.inputs if inputs is None else inputs
        return lambda replicate: self.cache.table(kind, key, replicate, retest)

    def levels(self):
        """The levels the people's and the venues' tests are graded at (``compare``'s)."""
        # The people's tests import heavy libraries at their top: only the jobs that use them load them.
        from papertopics.people.trends import GradingLevels

        settings = self.settings
        return GradingLevels(settings.confidence, settings.false_discovery_rate, settings.suggestive_q)


# What tells a kind's findings of one topic apart (none for a trend), and so keys its record.
REPORTED_BY = {
    "trends": (),
    "shapes": (),
    "comparison": (),
    "bursts": ("term", "start"),
    "reception": ("measure", "outcome"),
    "reception_years": (),
    "people_rising": ("kind", "name"),
    "people_topics": ("kind", "name"),
    "venues": ("venue",),
    "venue_trends": ("venue",),
}


def graded_table(table, graded: Graded, retest, kind: str, is_finding, after: str | None = None):
    """``table`` (a stage's findings of ``kind``) with how often each held and its grade."""
    holds, drawn = count_holds(table, graded.replicates, retest, REPORTED_BY[kind])
    return with_robustness(table, holds, drawn, graded.stability, is_finding, after=after)


def trends_graded(inputs: FindingInputs, graded: Graded):
    """The trends (``trends.csv``), each re-tested over the periods the main run tested, and from
    the same re-test each trajectory's shape (``shape_holds``, ``shape_replicates``,
    ``shape_robustness``, after ``shape_q``): it holds where the matched topic has the same shape.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.robustness.retests import replicate_trends, trajectory_findings

    trends = pd.read_csv(inputs.found_trends, keep_default_na=False)
    tested = (storage.read_json(inputs.changes)["trends"] or {}).get("periods") or []
    retested = {}  # each replicate's trends, tested once for the trends and their shapes

    trends_of = graded.retest(
        "trends", lambda replicate: replicate_trends(replicate, graded.periods, tested, graded.settings)
    )

    def retest(replicate: Replicate):
        if id(replicate) not in retested:
            retested[id(replicate)] = trends_of(replicate)
        return retested[id(replicate)]

    table = graded_table(trends, graded, retest, "trends", _flag(trends, "finding"), after="finding")
    shapes = trajectory_findings(trends)
    holds, drawn = count_holds(
        shapes,
        graded.replicates,
        lambda replicate: trajectory_findings(retest(replicate)),
        REPORTED_BY["shapes"],
    )
    is_finding = shapes["grade"] == SIGNIFICANT
    return with_robustness(
        table, holds, drawn, graded.stability, is_finding, after="shape_q", prefix="shape_"
    )


def comparison_graded(inputs: FindingInputs, graded: Graded):
    """The newest period against the one before (``changes.json``'s comparison, as
    ``comparison.csv``), each topic's change re-tested between the same two periods.
    """
    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.robustness.retests import comparison_findings, replicate_comparison

    changes = storage.read_json(inputs.changes)
    found = comparison_findings(changes)
    return graded_table(
        found,
        graded,
        graded.retest(
            "comparison",
            lambda replicate: replicate_comparison(
                replicate, graded.periods, changes["baseline"], changes["target"], graded.settings
            ),
        ),
        "comparison",
        found["grade"] == SIGNIFICANT,
    )


def bursts_graded(inputs: FindingInputs, graded: Graded):
    """The bursts (``bursts.csv``, with each burst's leading ``topic``), each re-tested on the
    replicate's drawn papers and topics: its term bursting again from its first period, its
    leading topic's match among the topics holding most of the burst's papers.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.robustness.retests import BurstsTested, burst_findings, replicate_bursts

    record = storage.read_json(inputs.changes)["bursts"]
    table = pd.read_csv(inputs.found_bursts, keep_default_na=False, dtype={"term": str, "start": str})
    found = burst_findings(record)
    if found["term"].tolist() != table["term"].tolist():
        raise RuntimeError(f"{inputs.found_bursts} is out of step with {inputs.changes}; rerun changes.")

    @functools.cache
    def tested() -> BurstsTested:
        # The papers' texts are read only where some replicate's bursts are not kept.
        texts = {paper["id"]: paper["text"] for paper in storage.read_jsonl(inputs.papers)}
        return BurstsTested(
            [texts[paper] for paper in graded.assigned["id"]],
            graded.periods,
            record.get("periods") or [],
            graded.settings,
            graded.settings.stop_words,
        )

    holds, drawn = count_holds(
        found,
        graded.replicates,
        graded.retest("bursts", lambda r: replicate_bursts(r, tested())),
        REPORTED_BY["bursts"],
    )
    table.insert(table.columns.get_loc("topics"), "topic", found["topic"].to_numpy())
    return with_robustness(table, holds, drawn, graded.stability, found["topic"] != OUTLIER)


def reception_graded(inputs: FindingInputs, graded: Graded) -> dict:
    """The reception findings (``reception``) and the changes of a topic's decisions across the
    years (``reception_years``: on each of its rows), on the same papers' decisions, ratings and
    citations.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.robustness.retests import (
        DECISION_FAMILIES,
        VALUE_FAMILIES,
        replicate_reception,
        replicate_year_changes,
        year_change_findings,
    )

    settings = graded.settings
    merged = received_table(received_records(inputs.papers, inputs.parsed), graded.assigned)
    if merged["id"].tolist() != graded.assigned["id"].tolist():
        raise RuntimeError(f"{inputs.topic_papers} is out of step with the corpus; rerun topics.")
    values = read_values(merged, settings.decision_field, settings.ratings_field, settings.citations_field)
    found = topic_papers_of(merged, storage.read_json(inputs.details)["topics"])
    found_settings = reception_settings(settings, settings.reception_min_papers)
    reception = pd.read_csv(inputs.found_reception, keep_default_na=False)
    per_year = pd.read_csv(inputs.found_reception_years, keep_default_na=False)
    # The families of ratings and citations read no decision: a decision edited, theirs are kept.
    values_read = array_digest(
        values.rating, values.rating_spread, values.citations, found.pools, found.years
    )
    family_retests = [
        graded.retest(
            family,
            lambda replicate, family=family: replicate_reception(
                replicate, found, values, found_settings, (family,)
            ),
            values_read,
        )
        for family in VALUE_FAMILIES
    ]

    def reception_retest(replicate: Replicate):
        decided = replicate_reception(replicate, found, values, found_settings, DECISION_FAMILIES)
        return pd.concat([decided, *(retest(replicate) for retest in family_retests)], ignore_index=True)

    changed = year_change_findings(per_year)
    holds, drawn = count_holds(
        changed,
        graded.replicates,
        lambda replicate: replicate_year_changes(replicate, found, values, found_settings),
        REPORTED_BY["reception_years"],
    )
    is_finding = changed["grade"] == SIGNIFICANT
    return {
        "reception": graded_table(
            reception,
            graded,
            reception_retest,
            "reception",
            reception["evidence"] == SIGNIFICANT,
        ),
        "reception_years": with_robustness(per_year, holds, drawn, graded.stability, is_finding),
    }


def people_graded(inputs: FindingInputs, graded: Graded) -> dict:
    """Who is rising in a topic (``people_rising``) and who holds more or fewer of it
    (``people_topics``), each re-tested on the replicate's topics.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.people.authorship import people_columns, people_table
    from papertopics.robustness.retests import people_tested, replicate_over_represented, replicate_rising

    settings = graded.settings
    columns = people_columns(list(graded.assigned.columns), settings, source=inputs.topic_papers)

    @functools.cache
    def people():
        # The people's table is made only where some replicate's re-tests are not kept.
        long = people_table(graded.assigned, columns)
        return people_tested(long, graded.periods, settings.people_min_papers, graded.levels())

    retests = {"people_rising": replicate_rising, "people_topics": replicate_over_represented}
    found = {"people_rising": inputs.found_rising, "people_topics": inputs.found_people_topics}
    tables = {}
    for kind, retest in retests.items():
        # A name is text, even one that reads as a number (a group's "1").
        table = pd.read_csv(found[kind], keep_default_na=False, dtype={"name": str})
        tables[kind] = graded_table(
            table,
            graded,
            graded.retest(kind, lambda replicate, retest=retest: retest(replicate, people())),
            kind,
            table["grade"] == SIGNIFICANT,
        )
    return tables


def venues_graded(inputs: FindingInputs, graded: Graded) -> dict:
    """Which venues hold more or fewer of a topic (``venues``) and each venue's own trends
    (``venue_trends``), re-tested on the replicate's topics.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # The re-tests import heavy libraries at their top: only the jobs that use them load them.
    from papertopics.robustness.retests import replicate_venue_trends, replicate_venues

    # A venue is text, even one that reads as a number (a track "2").
    venues = pd.read_csv(inputs.found_venues, keep_default_na=False, dtype={"venue": str})
    levels = graded.levels()
    trends = pd.read_csv(inputs.found_venue_trends, keep_default_na=False, dtype={"venue": str})
    # Where no venues are compared the tables are only their headers, and nothing is re-tested.
    return {
        "venues": graded_table(
            venues,
            graded,
            graded.retest("venues", lambda replicate: replicate_venues(replicate, graded.groups, levels)),
            "venues",
            venues["grade"] == SIGNIFICANT,
        ),
        "venue_trends": graded_table(
            trends,
            graded,
            graded.retest(
                "venue_trends",
                lambda replicate: replicate_venue_trends(
                    replicate, graded.periods, graded.groups, graded.settings
                ),
            ),
            "venue_trends",
            _flag(trends, "finding"),
            after="finding",
        ),
    }


def _flag(table, column: str):
    """A column of true and false as written to CSV, as booleans (none where the table is empty)."""
    return table[column].astype(str).str.lower().eq("true") if len(table) else []
