"""The change stages, file to file: the topics' shares and trends over the periods stage's
periods, and the venues compared.

Each function is what one Snakemake rule runs. Its parameters are named as the rule's inputs,
outputs and params (paths first), because the rule's script passes them by name; heavy libraries
are imported inside the functions, only when the stage that needs them runs.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass

from papertopics import storage
from papertopics.embed.encoders import gather_embeddings
from papertopics.settings import ChangeSettings, CompareSettings
from papertopics.storage import flag_column
from papertopics.topics.history import earlier_shares, stage_shares

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChangeInputs:
    """What the changes stage reads (the rule's inputs, by name): the corpus, the topics stage's
    papers, details and lineage, the periods stage's periods, the embeddings (themes within a
    topic), and the published share history (``papertopics.topics.history``; zero or one path),
    where the previous run's shares are compared with this run's.
    """

    papers: str
    topic_papers: str
    details: str
    lineage: str
    periods_table: str
    periods_settings: str
    embeddings: list[str]
    history: list[str]


@dataclass(frozen=True)
class ChangeOutputs:
    """What the changes stage writes (the rule's outputs, by name); ``next_history``: this run's
    shares, staged for the published history.
    """

    shares: str
    changes: str
    trends: str
    next_history: str
    bursts: str | None = None
    themes: str | None = None


def changes(inputs: ChangeInputs, outputs: ChangeOutputs, knobs: dict) -> None:
    """Topic shares per dump (or year) with intervals, trends across them, terms that burst, what
    changed between two of them, and themes that changed within a topic (``papertopics.changes.themes``),
    over the periods stage's periods; ``knobs``: ``papertopics.settings.ChangeSettings``'s fields.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # papertopics.changes.compare imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.changes.compare import describe_changes
    from papertopics.changes.shares import recomputed_shares
    from papertopics.changes.tables import burst_table, trend_table
    from papertopics.changes.themes import theme_table, topic_themes
    from papertopics.periods.assign import load_groups

    assigned = pd.read_csv(
        inputs.topic_papers,
        keep_default_na=False,
        dtype={"id": str, "dumps": str, "year": str},
        usecols=lambda name: name in {"id", "topic", "outlier", "dumps", "display_name", "year"},
    )
    assigned["outlier"] = flag_column(assigned["outlier"])
    texts = {p["id"]: p["text"] for p in storage.read_jsonl(inputs.papers)}
    events = storage.read_json(inputs.lineage)
    # The compare knobs, with the stop words the bursting terms are counted with.
    settings = ChangeSettings(**knobs)
    topic_details = storage.read_json(inputs.details)["topics"]
    periods = load_groups(inputs.periods_table, inputs.periods_settings, assigned["id"].tolist())[0]
    share_table, record = describe_changes(
        assigned,
        [texts[i] for i in assigned["id"]],
        topic_details,
        events,
        periods,
        settings,
        settings.stop_words,
    )
    vectors = gather_embeddings(
        assigned["id"].tolist(), [storage.read_arrays(path) for path in inputs.embeddings]
    )
    tested = [p for p in record["periods"] if p not in record["small_periods"]]
    record["themes"] = topic_themes(assigned, vectors, periods, tested, topic_details, settings)
    record["recomputed"] = recomputed_shares(
        share_table, earlier_shares(inputs.history, events.get("previous_run")), events
    )
    storage.write_csv(outputs.shares, share_table)
    storage.write_csv(outputs.trends, trend_table(record))
    if outputs.bursts:
        storage.write_csv(outputs.bursts, burst_table(record))
    if outputs.themes:
        storage.write_csv(outputs.themes, theme_table(record["themes"]))
    storage.write_json(outputs.changes, record)
    # Kept for the next run, which shows where this run's published shares moved.
    stage_shares(outputs.next_history, inputs.history, events["run"], events.get("previous_run"), share_table)
    _log_changes(record)


def _log_changes(record: dict) -> None:
    """What the changes stage found, in a few log lines."""
    trend_rows = record["trends"].get("topics", [])
    _LOG.info(
        "%s %s: %d rising, %d falling topics (significant or suggestive); %d bursting terms",
        record["by"],
        ", ".join(record["periods"]),
        sum(row["direction"] == "rising" for row in trend_rows),
        sum(row["direction"] == "falling" for row in trend_rows),
        len(record["bursts"].get("bursts", [])),
    )
    themes = record["themes"].get("topics", [])
    _LOG.info("themes: %d of %d topics tested changed theme", sum(t["changed"] for t in themes), len(themes))
    shapes = Counter(row["shape"] for row in trend_rows)
    if shapes:
        _LOG.info("trajectories: %s", ", ".join(f"{shapes[s]} {s}" for s in sorted(shapes)))
    if record["comparable"]:
        _LOG.info(
            "%s vs %s: %d of %d topic shares changed significantly; %d new, %d faded topics",
            record["baseline"],
            record["target"],
            sum(row["significant"] for row in record["comparison"]),
            len(record["comparison"]),
            len(record["new_topics"]),
            len(record["faded_topics"]),
        )
    else:
        _LOG.info("no comparison: %s", record["reason"])


def venues(
    periods_table: str,
    periods_settings: str,
    topic_papers: str,
    details: str,
    table: str,
    record: str,
    trends: str,
    knobs: dict,
) -> None:
    """Venues compared (``papertopics.changes.venues``): per topic and group (``compare.by`` a paper field)
    the share and a test of whether the group holds more or fewer of the topic's papers than the
    others, and with ordered periods too (``[venue, year]``) each venue's own trends
    (``papertopics.changes.venue_trends``, written to ``trends``); only the headers and the reason where
    no field is compared. ``knobs``: ``papertopics.settings.CompareSettings``' fields.
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # papertopics.changes.venue_trends imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.changes.venue_trends import describe_venue_trends
    from papertopics.changes.venues import COLUMNS, compare_groups, describe_venues
    from papertopics.periods.assign import load_groups

    assigned = pd.read_csv(
        topic_papers,
        keep_default_na=False,
        dtype={"id": str},
        usecols=lambda name: name in {"id", "topic", "outlier"},
    )
    periods, groups = load_groups(periods_table, periods_settings, assigned["id"].tolist())
    topic_details = storage.read_json(details)["topics"]
    labels = {t["topic"]: t["label"] for t in topic_details}
    settings = CompareSettings(**knobs)
    graded = {
        "confidence": settings.confidence,
        "false_discovery_rate": settings.false_discovery_rate,
        "suggestive_q": settings.suggestive_q,
    }
    clustered = ~flag_column(assigned["outlier"])
    trend_table, trend_record = describe_venue_trends(
        assigned["topic"].to_numpy(), clustered, periods, groups, labels, settings
    )
    storage.write_csv(trends, trend_table)
    if groups is None:
        storage.write_csv(table, pd.DataFrame(columns=COLUMNS))
        storage.write_json(record, describe_venues(pd.DataFrame(columns=COLUMNS), None, {}, graded))
        _LOG.info("no venues compared: compare.by names no paper field")
        return
    cells = compare_groups(assigned["topic"].to_numpy(), clustered, groups, labels, **graded)
    # Each topic's wording per group: the topics stage's per period where the periods are the groups.
    key = "wording" if groups.by == periods.by else "group_wording"
    wording = {t["topic"]: t.get(key, []) for t in topic_details if t["topic"] in labels}
    storage.write_csv(table, cells)
    storage.write_json(record, {**describe_venues(cells, groups, wording, graded), "trends": trend_record})
    found = cells[cells["direction"] != ""]
    _LOG.info(
        "%d %s groups, %d topics: %d cells over-, %d under-represented (significant or suggestive)",
        len(groups.names),
        groups.by,
        len(labels),
        int((found["direction"] == "over").sum()),
        int((found["direction"] == "under").sum()),
    )
    if trend_record["available"]:
        _LOG.info(
            "trends within %d %ss: %d findings in %d tests; slopes differ between venues for %d topics",
            len(trend_record["venues"]),
            groups.by,
            int(trend_table["finding"].sum()),
            len(trend_table),
            len({row["topic"] for row in trend_record["topics"] if row["slopes_differ"]}),
        )
    else:
        _LOG.info("no trends within venues: %s", trend_record["reason"])
