"""The reception stage, file to file: each topic's decisions, ratings and citations for its year
against the rest of the corpus (``papertopics.reception.table``), with the sentences the brief
and the report's section say.

Its parameters are named as the rule's inputs, outputs and params (paths first), because the
rule's script passes them by name; heavy libraries are imported inside the functions.
"""

from __future__ import annotations

import logging

import numpy as np

from papertopics import storage
from papertopics.ingest.parse import input_columns
from papertopics.reception.outcome_words import outcome_phrase
from papertopics.reception.values import read_values
from papertopics.settings import ReceptionStageSettings
from papertopics.stats import SIGNIFICANT
from papertopics.storage import flag_column
from papertopics.topics.stages import pipeline_columns

_LOG = logging.getLogger(__name__)
_FORMATS = {"acceptance": "{:.0%}", "outcome": "{:.0%}", "rating": "{:.2f}", "citations": "{:.2f}×"}


def finding_sentence(row: dict) -> str:
    """One finding in plain words: "Papers on X were accepted at 18% (12–26%), against 32%
    elsewhere", "Of the papers on X, 80% (70–88%) were rejected, against 36% elsewhere" (the
    outcome said as ``outcome_phrase`` says it).
    """
    shown = _FORMATS[row["measure"]].format
    interval = f"({shown(row['low'])}–{shown(row['high'])})"
    subject = f"Papers on {row['label']}"
    if row["measure"] == "acceptance":
        said = f"were accepted at {shown(row['value'])} {interval}"
    elif row["measure"] == "outcome":
        said = f"{shown(row['value'])} {interval} {outcome_phrase(row['outcome'])}"
        return f"Of the papers on {row['label']}, {said}, against {shown(row['rest'])} elsewhere."
    elif row["measure"] == "rating":
        said = f"were rated {shown(row['value'])} on average {interval}"
    else:
        said = f"were cited {shown(row['value'])} their year's mean {interval}"
    return f"{subject} {said}, against {shown(row['rest'])} elsewhere."


def change_sentences(per_year) -> list[tuple[int, str]]:
    """The significant changes across the years (``year_rows``), strongest first: each topic and
    its change in words.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    from papertopics.changes.tables import json_records

    changed = per_year[per_year["change_evidence"] == SIGNIFICANT]
    ordered = changed.sort_values(["change_q_value", "topic", "year"], kind="stable")
    return [
        (int(topic), change_sentence(json_records(rows)))
        for topic, rows in ordered.groupby("topic", sort=False)
    ]


def change_sentence(rows: list[dict]) -> str:
    """A topic's rate across the years against the rest's, from its ``year_rows``.

    For example "Papers on X were accepted at 12% (…) in 2021 and 30% (…) in 2022, against 25%
    and 24% elsewhere: a change beyond the rest's", or of an outcome "Of the papers on X, 12% (…)
    in 2021 and 30% (…) in 2022 went to Findings, against …".
    """
    first = rows[0]

    def listed(parts: list[str]) -> str:
        return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"

    rates = listed(
        [f"{row['value']:.0%} ({row['low']:.0%}–{row['high']:.0%}) in {row['year']}" for row in rows]
    )
    rest = listed([f"{row['rest']:.0%}" for row in rows])
    against = f"against {rest} elsewhere: a change beyond the rest's."
    if first["measure"] == "acceptance":
        return f"Papers on {first['label']} were accepted at {rates}, {against}"
    return f"Of the papers on {first['label']}, {rates} {outcome_phrase(first['outcome'])}, {against}"


def topic_papers_of(table, topic_details: list[dict]):
    """Each paper's topic code (−1 for an outlier), pool (dump, venue, year) and year."""
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # papertopics.reception.table imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.reception.table import TopicPapers

    topics = [t["topic"] for t in topic_details]
    code_of = {topic: code for code, topic in enumerate(topics)}
    codes = np.array([code_of.get(topic, -1) for topic in table["topic"]], dtype=np.int64)
    codes[np.asarray(flag_column(table["outlier"]), dtype=bool)] = -1
    years = table["year"].astype(str).str.strip().to_numpy(dtype=object)
    venue = table["venue"].astype(str) if "venue" in table else ""
    pools = pd.factorize(table["dump"].astype(str) + "|" + venue + "|" + table["year"].astype(str))[0]
    labels = tuple(t["label"] for t in topic_details)
    return TopicPapers(codes, pools, years, tuple(topics), labels)


def received_records(papers: str, parsed: list[str]) -> list[dict]:
    """The corpus's papers (``papers``) as their dumps were parsed (``parsed``), reception fields
    and all: the corpus keeps only the text part (``papertopics.ingest.stages.text_part``), and a
    paper found in several dumps is the record of the first, as the corpus keeps it.
    """
    keys = [(paper["dumps"][0], paper["id"]) for paper in storage.read_jsonl(papers)]
    wanted = set(keys)
    found = {}
    for path in parsed:
        for paper in storage.read_jsonl(path):
            if (paper["dump"], paper["id"]) in wanted:
                found[paper["dump"], paper["id"]] = paper
    return [found[key] for key in keys]


def received_table(records: list[dict], assigned):
    """Each paper with a topic (``assigned``: the topics stage's table), with its input fields,
    those that say how it was received among them.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    inputs = pd.DataFrame(
        {
            "id": [p["id"] for p in records],
            "dump": [p["dump"] for p in records],
            "location": [p["location"] for p in records],
            **input_columns(records, reserved={"id", "dump", "location"}),
        }
    )
    topics = assigned[["id", "topic", "outlier"]].astype({"topic": int})
    return inputs.merge(topics, on="id", how="inner", validate="one_to_one")


def paper_table(records: list[dict], assigned):
    """``papers.csv`` as published: the topics stage's table (``assigned``, read as text, which
    has the papers' text part) with every input field of the papers as parsed (``records``, in the
    corpus's order), decisions, ratings and citations among them, in the columns and order the
    topics stage gives its own (``papertopics.topics.stages.pipeline_columns``).
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    if assigned["id"].tolist() != [paper["id"] for paper in records]:
        raise RuntimeError("the topics stage's papers.csv is out of step with the corpus; rerun topics.")
    pipeline = pipeline_columns(assigned)
    return pd.concat(
        [assigned[pipeline], pd.DataFrame(input_columns(records, reserved=set(pipeline)))], axis=1
    )


def _given(values) -> dict[str, int]:
    """How many papers carry each measure: a decision, ratings, citations (``ReceptionValues``)."""
    return {
        "decision": int((values.decision != "").sum()),
        "ratings": int((~np.isnan(values.rating)).sum()),
        "citations": int((~np.isnan(values.citations)).sum()),
    }


def reception_settings(knobs, min_papers: int):
    """The reception tests' settings from a stage's knobs (``ReceptionStageSettings``, or the
    robustness stage's ``FindingSettings``, which re-tests reception): ``accepted`` and ``compare``'s grading.
    """
    # papertopics.reception.table imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.reception.table import ReceptionSettings

    return ReceptionSettings(
        accepted=tuple(knobs.accepted),
        min_papers=min_papers,
        confidence=knobs.confidence,
        false_discovery_rate=knobs.false_discovery_rate,
        suggestive_q=knobs.suggestive_q,
    )


def reception(
    papers: str,
    parsed: list[str],
    topic_papers: str,
    details: str,
    table: str,
    years: str,
    record: str,
    paper_table_file: str,
    knobs: dict,
) -> None:
    """Each topic's reception (``papertopics.reception.table``): ``table`` one row per topic and
    measure, ``years`` its acceptance (or rarer outcome) per year, ``record`` both with the
    findings in words, ``paper_table_file`` the published ``papers.csv`` (``paper_table``); ``knobs``:
    ``papertopics.settings.ReceptionStageSettings``'s fields.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # papertopics.changes.tables and papertopics.reception.table import heavy libraries at their
    # tops: only the jobs that use them load them.
    from papertopics.changes.tables import json_records
    from papertopics.reception.table import flagged, reception_table
    from papertopics.reception.years import year_rows

    chosen = ReceptionStageSettings(**knobs)
    records = received_records(papers, parsed)
    # As text: what the topics stage wrote is written back unchanged, numbers included.
    assigned = pd.read_csv(topic_papers, keep_default_na=False, dtype=str)
    storage.write_csv(paper_table_file, paper_table(records, assigned))
    merged = received_table(records, assigned)
    values = read_values(merged, chosen.decision_field, chosen.ratings_field, chosen.citations_field)
    for note in values.notes:
        _LOG.warning(note)
    settings = reception_settings(chosen, chosen.min_papers)
    topic_details = storage.read_json(details)["topics"]
    found = topic_papers_of(merged, topic_details)
    rows = reception_table(found, values, settings)
    per_year = year_rows(found, values, settings)
    storage.write_csv(table, rows)
    storage.write_csv(years, per_year)
    significant = flagged(rows).sort_values(["q_value", "topic"], kind="stable")
    changes = change_sentences(per_year)
    given = _given(values)
    storage.write_json(
        record,
        {
            "available": bool(len(rows)),
            "papers": len(merged),
            "given": given,
            "accepted": list(settings.accepted),
            "fields": {
                "decision": chosen.decision_field,
                "ratings": chosen.ratings_field,
                "citations": chosen.citations_field,
            },
            "outcomes": {
                str(k): int(v)
                for k, v in pd.Series(values.decision[values.decision != ""]).value_counts().items()
            },
            "notes": list(values.notes),
            "in_report": chosen.in_report,
            "findings": [finding_sentence(row) for row in json_records(significant)],
            "topics": json_records(rows),
            "by_year": json_records(per_year),
            "changes": [sentence for _, sentence in changes],
            # Each change's topic, in the same order: the report says how often each held.
            "change_topics": [topic for topic, _ in changes],
        },
    )
    _LOG.info(
        "reception: %d papers with a decision, %d with ratings, %d with citations; %d findings significant",
        *given.values(),
        len(significant),
    )
