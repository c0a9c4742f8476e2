"""The People section and each topic card's people line: who works on each topic (its authors,
institutions and countries with most papers, fractionally counted), who is rising in it, and its
experts as a download. Read from the people stage's outputs; absent where ``people.in_report`` is
false (a copy meant to be shared) or no paper names its authors.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from markupsafe import Markup

from papertopics import storage
from papertopics.report.html_blocks import gzip_block
from papertopics.report.render import render
from papertopics.report.stability_marks import held_mark

_LINE_NAMES = 3  # names per kind on a topic card's line
_KIND_HEADINGS = (("author", "Authors"), ("institution", "Institutions"), ("country", "Countries"))


@dataclass(frozen=True)
class PeopleTables:
    """The people stage's record and tables, as the report shows them."""

    record: dict
    top: pd.DataFrame
    experts: pd.DataFrame
    rising: pd.DataFrame
    files: dict[str, str]  # the stage's tables as they are on disk, by file name (the downloads)


def load_people(record: str | None, top: str | None, experts: str | None, rising: str | None, **tables):
    """The people stage's outputs, or None where the report leaves people out."""
    if not (record and top and experts and rising):
        return None
    loaded = storage.read_json(record)
    if not loaded.get("in_report", True) or not loaded.get("papers_with", {}).get("author"):
        return None

    def read(path: str) -> pd.DataFrame:
        return pd.read_csv(path, keep_default_na=False)

    paths = {"people_top.csv": top, "experts.csv": experts, "people_rising.csv": rising}
    paths.update({f"{name}.csv": path for name, path in tables.items() if path})
    files = {name: open(path, encoding="utf-8").read() for name, path in paths.items()}  # noqa: SIM115
    return PeopleTables(loaded, read(top), read(experts), read(rising), files)


def left_out_columns(record: str | None) -> list[str]:
    """The paper table's columns of people (authors, affiliations, countries) where the report
    leaves people out (``people.in_report: false``): the page shows and offers none of them.
    """
    if not record:
        return []
    loaded = storage.read_json(record)
    return [] if loaded.get("in_report", True) else [c for c in loaded.get("columns", {}).values() if c]


_FILTER_NAMES = 20  # countries and institutions the map's filter offers, each kind


def map_filter(people: PeopleTables | None, papers: pd.DataFrame) -> tuple[Markup, dict | None]:
    """The map's filter by country or institution: its control, and the data the page's script
    reads (``names``, and each paper's indices among them); none where people are left out.

    Offered: the corpus's countries and institutions with most fractional papers, 20 of each.
    """
    # papertopics.people.authorship imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.people.authorship import KINDS, display_names, people_table

    if people is None:
        return Markup(), None
    columns = {kind: people.record.get("columns", {}).get(kind) for kind in KINDS}
    columns = {kind: column if column in papers else None for kind, column in columns.items()}
    long = people_table(papers.reset_index(drop=True), {**columns, "author": None})
    if long.empty:
        return Markup(), None
    names = display_names(long)
    weight = long.groupby(["kind", "key"])["weight"].sum()
    offered = []
    for kind in ("country", "institution"):
        if kind in weight.index.get_level_values(0):
            largest = weight[kind].sort_values(ascending=False, kind="stable").index[:_FILTER_NAMES]
            offered += [(kind, key) for key in largest]
    position = {pair: i for i, pair in enumerate(offered)}
    of_paper: list[list[int]] = [[] for _ in range(len(papers))]
    for row, kind, key in zip(long["row"].tolist(), long["kind"].tolist(), long["key"].tolist(), strict=True):
        at = position.get((kind, key))
        if at is not None and at not in of_paper[row]:
            of_paper[row].append(at)
    control = render(
        "sections/people_filter.html",
        groups=[
            (heading, [(i, names[pair]) for i, pair in enumerate(offered) if pair[0] == kind])
            for kind, heading in (("country", "Countries"), ("institution", "Institutions"))
        ],
    )
    return control, {"names": [names[pair] for pair in offered], "of_paper": of_paper}


def experts_block_id(topic: int) -> str:
    """The id of the page block holding one topic's experts CSV."""
    return f"experts-topic-{topic}"


def experts_blocks(people: PeopleTables | None) -> list[Markup]:
    """Each topic's experts as a CSV block of the page (what the cards' buttons download)."""
    if people is None:
        return []
    return [
        gzip_block(experts_block_id(int(topic)), rows.to_csv(index=False))
        for topic, rows in people.experts.groupby("topic", sort=True)
    ]


def _names(rows: pd.DataFrame) -> list[dict]:
    return [
        {"name": r.name, "papers": f"{r.papers:.1f}", "share": f"{r.share:.0%}"}
        for r in rows.itertuples(index=False)
    ]


def topic_people(people: PeopleTables | None, topic: int) -> dict | None:
    """A topic's names per kind (the top ones), and whether it has experts to download."""
    if people is None:
        return None
    rows = people.top[people.top["topic"] == topic]
    kinds = [(heading, _names(rows[rows["kind"] == kind])) for kind, heading in _KIND_HEADINGS]
    has_experts = bool((people.experts["topic"] == topic).any())
    return {"kinds": [(h, names) for h, names in kinds if names], "experts": has_experts, "topic": topic}


def topic_people_line(people: PeopleTables | None, topic: int) -> Markup:
    """A topic card's people line: its top authors, institutions and countries, and its experts."""
    found = topic_people(people, topic)
    if not found or not found["kinds"]:
        return Markup()
    return render(
        "sections/people_line.html",
        kinds=[(h, names[:_LINE_NAMES]) for h, names in found["kinds"]],
        experts_id=experts_block_id(topic) if found["experts"] else None,
        filename=f"experts-topic-{topic}.csv",
    )


def rising_items(rising: pd.DataFrame) -> list[tuple[str, Markup]]:
    """Who is rising or falling, strongest first, each in words with how often it held in the
    resamples (red where fragile; ``people_rising.csv`` as the robustness stage grades it).
    """
    # papertopics.people.trends imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.people.trends import rising_found, rising_sentence

    return [(rising_sentence(row), held_mark(row._asdict())) for row in rising_found(rising).itertuples()]


def people_section(people: PeopleTables | None, labels: dict[int, str]) -> Markup:
    """The People section: how people are counted, who is rising (with how often each held in
    the resamples), and per topic who works on it.
    """
    if people is None:
        return Markup()
    record = people.record
    topics = [topic_people(people, topic) for topic in sorted(labels) if topic >= 0]
    return render(
        "sections/people.html",
        record=record,
        rising=rising_items(people.rising),
        topics=[(t["topic"], labels[t["topic"]], t) for t in topics if t and t["kinds"]],
        experts_id=experts_block_id,
    )
