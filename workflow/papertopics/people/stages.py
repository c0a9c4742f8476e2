"""The people stage, file to file: who works on each topic (``papertopics.people.authorship``) and who
is rising (``papertopics.people.trends``), from the topics stage's paper table (which
carries every input column: authors, affiliations, countries) and the periods stage's periods.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from papertopics import storage
from papertopics.settings import PeopleSettings

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class PeopleOutputs:
    """What the people stage writes (the rule's outputs, by name)."""

    top: str
    experts: str
    rising: str
    topics: str
    periods: str
    record: str


def people(
    topic_papers: str,
    details: str,
    periods_table: str,
    periods_settings: str,
    outputs: PeopleOutputs,
    knobs: dict,
) -> None:
    """Who works on each topic and who is rising. ``knobs``: ``papertopics.settings.PeopleSettings``'s
    fields (the ``people`` section, and the levels ``compare`` grades tests at).
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # papertopics.people.authorship imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.people.authorship import experts, people_columns, people_table, top_names
    from papertopics.people.trends import (
        GradingLevels,
        over_represented,
        period_shares,
        rising,
        rising_sentences,
    )

    # papertopics.periods.assign imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.periods.assign import load_groups

    settings = PeopleSettings(**knobs)
    graded = GradingLevels(settings.confidence, settings.false_discovery_rate, settings.suggestive_q)
    papers = pd.read_csv(topic_papers, keep_default_na=False, dtype=str)
    periods, _ = load_groups(periods_table, periods_settings, papers["id"].tolist())
    labels = {t["topic"]: t["label"] for t in storage.read_json(details)["topics"]}
    topic = papers["topic"].astype(int).to_numpy()
    columns = people_columns(list(papers.columns), settings, source="the dumps (results/topics/papers.csv)")
    long = people_table(papers, columns)
    years = papers["year"].to_numpy() if "year" in papers.columns else [""] * len(papers)
    rises = rising(long, topic, periods, labels, settings.min_papers, graded)
    storage.write_csv(outputs.top, top_names(long, topic, labels, settings.top))
    storage.write_csv(outputs.experts, experts(long, topic, years, labels, settings.experts))
    storage.write_csv(outputs.rising, rises)
    storage.write_csv(outputs.topics, over_represented(long, topic, labels, settings.min_papers, graded))
    storage.write_csv(outputs.periods, period_shares(long, periods, settings.top, graded.confidence))
    carrying = {
        kind: int(long.loc[long["kind"] == kind, "row"].nunique())
        for kind in ("author", "institution", "country")
    }
    storage.write_json(
        outputs.record,
        {
            "columns": columns,
            "papers": len(papers),
            "papers_with": carrying,
            "periods": periods.names,
            "by": periods.by,
            "in_report": settings.in_report,
            "counting": "fractional: a paper is one unit split equally across its authors (or their "
            "institutions, or countries, one entry per author the export places)",
            "rising": rising_sentences(rises),
        },
    )
    _LOG.info(
        "people: %d papers with authors, %d with institutions, %d with countries; %d rises or falls graded",
        carrying["author"],
        carrying["institution"],
        carrying["country"],
        int(rises["grade"].isin(["significant", "suggestive"]).sum()) if len(rises) else 0,
    )
