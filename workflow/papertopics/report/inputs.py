"""Everything the report shows, read from the upstream stages' outputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from papertopics import storage
from papertopics.changes.signals import leading_topic
from papertopics.mapping.cluster import OUTLIER
from papertopics.periods.assign import Periods, load_groups
from papertopics.report.reception_record import left_out_columns, reception_files
from papertopics.storage import flag_column


@dataclass
class ReportInputs:
    """Everything the report shows, read from the stages' outputs."""

    corpus_summary: dict
    umap_settings: dict
    hdbscan_settings: dict
    topic_settings: dict
    topic_details: list[dict]
    topics: pd.DataFrame
    papers: pd.DataFrame
    figures: dict[str, dict]  # BERTopic's figures of the model, drawn by the topics stage
    periods: Periods  # the periods stage's periods, in the order of ``papers``
    metrics: dict | None = None  # results/metrics.json (topic quality)
    topic_groups: list[dict] | None = None  # the coarse layer, when there is one
    changes: dict | None = None  # results/topics/changes.json (what changed between dumps and runs)
    # The comparison's files as they are on disk (changes.json, dump_shares.csv, trends.csv), by file name.
    comparison_files: dict[str, str] = field(default_factory=dict)
    similar: dict[str, np.ndarray] | None = None  # each paper's most similar papers (stages.similar_papers)
    # Papers longer than the embedding model's window, and its size in tokens (None: not counted).
    over_window: set[str] | None = None
    window_tokens: int | None = None
    venues: dict | None = (
        None  # results/topics/venues.json (venues compared), None or unavailable: no section
    )
    venue_cells: pd.DataFrame | None = None  # results/topics/venues.csv
    people: object | None = None  # papertopics.report.people_section.PeopleTables; None: no People section
    reception: dict | None = None  # results/topics/reception.json (decisions, ratings, citations per topic)
    bridges: pd.DataFrame | None = None  # results/topics/bridges.csv (the topic pairs papers share)
    strategic: pd.DataFrame | None = None  # results/topics/strategic.csv (Callon's centrality, density)

    def __post_init__(self):
        """Parse the papers' outlier flags once, so that every section reads the same booleans."""
        self.papers = self.papers.assign(outlier=flag_column(self.papers["outlier"]))

    @property
    def real_topics(self) -> list[dict]:
        """Topics other than the outlier group."""
        return [t for t in self.topic_details if t["topic"] != OUTLIER]

    @cached_property
    def topic_colours(self) -> dict[int, str]:
        """Each topic's colour (outliers' group left out), topics that touch on the map differing.

        After a placed update the fitted papers, whose places and topics are the fit's, choose the
        colours of the topics they hold as they did in the fit, so a reader sees the colours seen
        before; the topics only placed papers hold (new in a dump) take theirs after, beside them.
        """
        # papertopics.report.colours imports heavy libraries at its top: only the jobs that use it load them.
        from papertopics.report.colours import topic_colours, touching_topics

        placed = flag_column(self.papers["placed"]) if "placed" in self.papers else None
        if placed is None or not placed.any():
            return topic_colours(
                touching_topics(self.papers), {t["topic"]: t["size"] for t in self.topic_details}
            )
        fitted = self.papers[~placed]
        touching = touching_topics(fitted)
        sizes = fitted["topic"].value_counts().to_dict()
        for topic, near in touching_topics(self.papers).items():
            touching.setdefault(topic, near)  # a topic new in a dump: chosen after every fitted one
        return topic_colours(touching, {int(t): int(n) for t, n in sizes.items()})

    @property
    def dump_labels(self) -> dict[str, str]:
        """What readers see for each dump: its title, with its name added where titles repeat."""
        dumps = self.corpus_summary["dumps"]
        repeated = {d["title"] for d in dumps if sum(e["title"] == d["title"] for e in dumps) > 1}
        return {
            d["dump"]: f"{d['title']} ({d['dump']})" if d["title"] in repeated else d["title"] for d in dumps
        }

    def paper_dumps(self) -> pd.Series:
        """Each paper's dumps by their labels, comma-separated."""
        labels = self.dump_labels
        return self.papers["dumps"].map(lambda names: ", ".join(labels.get(n, n) for n in names.split(";")))


@dataclass(frozen=True)
class ReportFiles:
    """The report's input files (the report rule's inputs, by name), among them the periods stage's
    ``periods_table`` and ``periods_settings`` (each paper's period). ``metrics`` (a JSON file of
    quality figures), ``changes`` (the comparison of dumps, with its ``shares`` per dump and
    ``trends`` tables), ``similar`` (each paper's similar papers), ``embedding_summaries`` (the
    embed stage's, per dump) and the venues stage's ``venues`` record, ``venues_table`` and
    ``venue_trends`` are optional; ``venues.csv`` is a download only where venues were compared, ``venue_trends.csv`` only where
    each venue's trends were tested. ``bridges`` (the topic pairs papers share) is optional too.
    """

    corpus_summary: str
    umap_settings: str
    hdbscan_settings: str
    topics: str
    papers: str
    details: str
    figures: str
    periods_table: str
    periods_settings: str
    metrics: str | None = None
    changes: str | None = None
    shares: str | None = None
    trends: str | None = None
    # The newest period against the one before, and the bursts: downloads where they have rows.
    comparison: str | None = None
    bursts: str | None = None
    similar: str | None = None
    embedding_summaries: list[str] | None = None
    venues: str | None = None
    venues_table: str | None = None
    venue_trends: str | None = None
    # The people stage's (papertopics.report.people_section), each optional.
    people: str | None = None
    people_top: str | None = None
    experts: str | None = None
    people_rising: str | None = None
    people_topics: str | None = None
    people_periods: str | None = None
    reception: str | None = None
    reception_table: str | None = None
    reception_years: str | None = None
    bridges: str | None = None
    strategic: str | None = None
    # The robustness stage's record: how often each finding held in the replicates (optional).
    robustness: str | None = None
    # The parse stage's summaries, for each dump file's hash (the corpus reads their text part).
    dump_summaries: list[str] | None = None


def _has_rows(table: str) -> bool:
    """Whether a CSV file holds a row beyond its header."""
    with open(table, encoding="utf-8") as lines:
        next(lines, None)  # the header
        return next(lines, None) is not None


def load_report_inputs(files: ReportFiles) -> ReportInputs:
    """Read the report's inputs (``ReportFiles``)."""
    topic_details = storage.read_json(files.details)
    summaries = [storage.read_json(path) for path in files.embedding_summaries or []]
    paper_table = pd.read_csv(
        files.papers, keep_default_na=False, dtype={"id": str, "dump": str, "dumps": str}
    )
    periods = load_groups(files.periods_table, files.periods_settings, paper_table["id"].tolist())[0]
    paper_table = _without_people(paper_table, _left_out(files))
    robustness = storage.read_json(files.robustness) if files.robustness else None
    venue_record = with_venue_robustness(
        storage.read_json(files.venues) if files.venues else None, robustness
    )
    compared = venue_record is not None and venue_record.get("available")
    trended = compared and (venue_record.get("trends") or {}).get("available")
    counted = bool(summaries) and all(s["over_window"] is not None for s in summaries)
    reception = with_reception_robustness(
        storage.read_json(files.reception) if files.reception else None, robustness
    )
    paper_table = paper_table.drop(columns=left_out_columns(reception), errors="ignore")
    return ReportInputs(
        corpus_summary=_with_dump_hashes(storage.read_json(files.corpus_summary), files.dump_summaries),
        umap_settings=storage.read_json(files.umap_settings),
        hdbscan_settings=storage.read_json(files.hdbscan_settings),
        topic_settings=topic_details["settings"],
        topic_details=topic_details["topics"],
        topics=pd.read_csv(files.topics, keep_default_na=False),
        papers=paper_table,
        figures=storage.read_json(files.figures),
        metrics=storage.read_json(files.metrics) if files.metrics else None,
        topic_groups=topic_details.get("groups"),
        changes=with_trend_robustness(
            storage.read_json(files.changes) if files.changes else None, robustness
        ),
        comparison_files={
            Path(path).name: Path(path).read_text(encoding="utf-8")
            for path in (
                files.changes,
                files.shares,
                files.trends,
                *(path for path in (files.comparison, files.bursts) if path and _has_rows(path)),
                *((files.venues_table,) if compared else ()),
                *((files.venue_trends,) if trended else ()),
            )
            if path
        }
        | reception_files(reception, files.reception_table, files.reception_years),
        similar=storage.read_arrays(files.similar) if files.similar else None,
        over_window={i for s in summaries for i in s["over_window"]} if counted else None,
        window_tokens=max((s["window_tokens"] for s in summaries), default=None),
        periods=periods,
        venues=venue_record,
        venue_cells=pd.read_csv(files.venues_table, keep_default_na=False)
        if compared and files.venues_table
        else None,
        people=_people(files),
        reception=reception,
        bridges=pd.read_csv(files.bridges, keep_default_na=False) if files.bridges else None,
        strategic=pd.read_csv(files.strategic, keep_default_na=False) if files.strategic else None,
    )


def with_trend_robustness(changes: dict | None, robustness: dict | None) -> dict | None:
    """``changes`` with each trend's (and as ``shape_holds``, ... its trajectory's), each burst's
    and each topic's change since the period before (its ``comparison``) ``holds``, ``replicates`` and ``robustness`` (its grade) from the robustness
    stage's record, where there is one and replicates were drawn.
    """
    if not changes or not _drawn(robustness):
        return changes
    trends = changes.get("trends") or {}
    if trends.get("available"):
        shapes = robustness.get("shapes") or {}
        rows = [
            {
                **row,
                **{f"shape_{key}": value for key, value in shapes.get(str(int(row["topic"])), {}).items()},
            }
            for row in _with_held(trends["topics"], robustness.get("trends") or {}, ())
        ]
        changes = {**changes, "trends": {**trends, "topics": rows}}
    bursts = changes.get("bursts") or {}
    if bursts.get("available"):
        held = robustness.get("bursts") or {}
        # A burst none of whose papers is in a topic is no finding about one: it is not re-tested.
        rows = [{**burst, **held.get(_burst_key(burst), {})} for burst in bursts["bursts"]]
        changes = {**changes, "bursts": {**bursts, "bursts": rows}}
    if changes.get("comparison"):
        changes = {
            **changes,
            "comparison": _with_held(changes["comparison"], robustness.get("comparison") or {}, ()),
        }
    return changes


def with_reception_robustness(reception: dict | None, robustness: dict | None) -> dict | None:
    """The reception record with each row's ``holds``, ``replicates`` and ``robustness``, as
    ``with_trend_robustness`` (a reception finding is a topic's measure and outcome), and the same
    for each change across the years (``change_held``, in the order of ``changes``).
    """
    if not reception or not _drawn(robustness):
        return reception
    rows = _with_held(
        reception.get("topics") or [], robustness.get("reception") or {}, ("measure", "outcome")
    )
    # Each change across the years (``changes``, in words) with how often its topic's change held.
    changed = robustness.get("reception_years") or {}
    held = [changed.get(str(topic), {}) for topic in reception.get("change_topics") or []]
    return {**reception, "topics": rows, "change_held": held}


def with_venue_robustness(venues: dict | None, robustness: dict | None) -> dict | None:
    """The venues record with each topic a venue holds more or fewer of, and each venue's own
    trend, given its ``holds``, ``replicates`` and ``robustness``, as ``with_trend_robustness`` (a
    venue finding is a topic's venue).
    """
    if not venues or not venues.get("available") or not _drawn(robustness):
        return venues
    held = robustness.get("venues") or {}

    def graded(group: dict, side: str) -> list[dict]:
        cells = _with_held([{**cell, "venue": group["venue"]} for cell in group[side]], held, ("venue",))
        return [{key: value for key, value in cell.items() if key != "venue"} for cell in cells]

    groups = [
        {**group, "over": graded(group, "over"), "under": graded(group, "under")}
        for group in venues["groups"]
    ]
    return {**venues, "groups": groups, "trends": _venue_trends_held(venues.get("trends") or {}, robustness)}


def _venue_trends_held(trends: dict, robustness: dict) -> dict:
    """Each venue's own trends (``venues.json``'s ``trends``) with how often each held, the
    strongest (the brief's) too; a venue trend is a topic's venue.
    """
    if not trends.get("available"):
        return trends
    held = robustness.get("venue_trends") or {}
    topics = [
        {
            **topic,
            "venues": _with_held(
                [{**row, "topic": topic["topic"]} for row in topic["venues"]], held, ("venue",)
            ),
        }
        for topic in trends["topics"]
    ]
    strongest = trends.get("strongest")
    if strongest:
        strongest = _with_held([strongest], held, ("venue",))[0]
    return {**trends, "topics": topics, "strongest": strongest}


def _burst_key(burst: dict) -> str:
    """A burst's key in the robustness stage's record: its leading topic, term and first period
    (none where it has no topic).
    """
    topic = leading_topic(burst)
    return f"{topic}|{burst['term']}|{burst['start']}" if topic != OUTLIER else ""


def _drawn(robustness: dict | None) -> bool:
    return bool(robustness and robustness.get("replicates"))


def _with_held(rows: list[dict], held: dict[str, dict], by: tuple[str, ...]) -> list[dict]:
    """Each row with its figures from the robustness stage's record, keyed ``topic|measure|outcome``."""
    return [
        {**row, **held.get("|".join([str(int(row["topic"])), *(str(row[c]) for c in by)]), {})}
        for row in rows
    ]


def _with_dump_hashes(corpus_summary: dict, dump_summaries: list[str] | None) -> dict:
    """The corpus summary with each dump file's hash, which its parse summary holds."""
    hashes = {row["dump"]: row["sha256"] for row in map(storage.read_json, dump_summaries or [])}
    for row in corpus_summary["dumps"]:
        row.setdefault("sha256", hashes.get(row["dump"]))
    return corpus_summary


def _without_people(papers: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The paper table without ``columns`` (people left out of the report), and without the
    authors a display name ends with (``Title — Doe, Roe``: ``text.display_name``).
    """
    if not columns:
        return papers
    if "authors" in columns and "display_name" in papers:
        named = papers["authors"].astype(str).str.strip() != ""
        short = papers["display_name"].where(~named, papers["display_name"].str.rsplit(" — ", n=1).str[0])
        papers = papers.assign(display_name=short)
    return papers.drop(columns=columns)


def _left_out(files: ReportFiles) -> list[str]:
    # papertopics.report.people_section imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.report.people_section import left_out_columns

    return left_out_columns(files.people)


def _people(files: ReportFiles):
    # papertopics.report.people_section imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.report.people_section import load_people

    return load_people(
        files.people,
        files.people_top,
        files.experts,
        files.people_rising,
        people_topics=files.people_topics,
        people_periods=files.people_periods,
    )
