"""Who works on each topic: the authors, institutions and countries with most papers in it, and
its experts (the authors with most papers in the topic over all the dumps, with their years).

Counting is fractional: a paper is one unit, split equally across its entries of a kind (its
authors; the institutions, or countries, of its authors whose export places them, one entry per
author), so a paper by four authors gives each author a quarter, and a paper by three authors in
one country and one in another gives the first country three quarters. A topic's share of a
name is its fractional papers over the topic's papers that carry that kind at all. Experts are
ranked by whole papers (a chair invites people who wrote on the topic, however many co-authors
they had), ties by fractional papers, then name.

Names are grouped before counting: authors by case and spacing, institutions by
:func:`papertopics.ingest.affiliations.institution_key`, countries by
:func:`papertopics.ingest.affiliations.normalise_country` (a country the exports wrote in a way
ISO 3166 does not know is kept as written). Each group is shown by its most used spelling.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from papertopics.errors import PipelineInputError
from papertopics.ingest.affiliations import institution_key, normalise_country
from papertopics.ingest.parse import find_field
from papertopics.mapping.cluster import OUTLIER
from papertopics.settings import PeopleSettings

KINDS = ("author", "institution", "country")
# The usual names of the columns that carry each kind, where the config names none.
COLUMN_NAMES = {
    "author": ("authors", "author", "author_names"),
    "institution": ("affiliations", "affiliation", "institutions", "institution", "author_affiliations"),
    "country": ("countries", "country", "author_countries", "country_codes"),
}
# What exports write where they know no name: no entry.
PLACEHOLDERS = {"unknown", "unknown institution", "unknown affiliation", "n/a", "na", "none", "null", "-"}
LONG_COLUMNS = ["row", "kind", "key", "name", "weight", "place"]
TOP_COLUMNS = ["topic", "label", "kind", "rank", "name", "papers", "whole_papers", "share", "topic_papers"]
EXPERT_COLUMNS = ["topic", "label", "rank", "author", "papers", "fractional_papers", "years", "institutions"]


def people_columns(
    columns: list[str], settings: PeopleSettings, source: str = "the papers"
) -> dict[str, str | None]:
    """Which column of the paper table carries each kind (None where none does); a column the
    config names (``people.affiliation_column``, ``people.country_column``) must be there.
    """
    named = {"institution": settings.affiliation_column, "country": settings.country_column}
    found = {}
    for kind in KINDS:
        wanted = named.get(kind)
        found[kind] = find_field(columns, (wanted,) if wanted else COLUMN_NAMES[kind])
        if wanted and found[kind] is None:
            key = "affiliation_column" if kind == "institution" else "country_column"
            raise PipelineInputError(
                f"{source}: people.{key} is {wanted!r} but no dump has that column or field "
                f"(columns: {', '.join(columns[:30])}); set it to one of them, or to null to find it by name."
            )
    return found


def _key(kind: str, name: str) -> str:
    if kind == "author":
        return " ".join(name.casefold().split())
    if kind == "institution":
        return institution_key(name)
    return (normalise_country(name) or " ".join(name.split())).casefold()


def _shown(kind: str, name: str) -> str:
    return (normalise_country(name) or name) if kind == "country" else name


def people_table(papers: pd.DataFrame, columns: dict[str, str | None]) -> pd.DataFrame:
    """One row per entry: the paper's row, its kind, the grouping key, the name as written (a
    country's normalised), its fractional weight and its place among the paper's entries.

    Entries are separated by ";" (how every reader and JSON list writes them); blanks and
    placeholders (``Unknown Institution``, ``N/A``: :data:`PLACEHOLDERS`) are dropped.
    """
    parts = []
    for kind in KINDS:
        column = columns.get(kind)
        if column is None:
            continue
        names = papers[column].fillna("").astype(str).str.split(";").explode().str.strip()
        names = names[(names != "") & ~names.str.casefold().isin(PLACEHOLDERS)]
        if names.empty:
            continue
        rows = names.index.to_numpy()
        place = names.groupby(level=0).cumcount().to_numpy()
        count = names.groupby(level=0).transform("size").to_numpy()
        parts.append(
            pd.DataFrame(
                {
                    "row": rows,
                    "kind": kind,
                    "key": [_key(kind, name) for name in names],
                    "name": [_shown(kind, name) for name in names],
                    "weight": 1.0 / count,
                    "place": place,
                }
            )
        )
    if not parts:
        empty = {
            "row": np.array([], np.int64),
            "weight": np.array([], np.float64),
            "place": np.array([], np.int64),
        }
        return pd.DataFrame({name: empty.get(name, np.array([], object)) for name in LONG_COLUMNS})
    return pd.concat(parts, ignore_index=True).reset_index(drop=True)


def display_names(long: pd.DataFrame) -> dict[tuple[str, str], str]:
    """Each (kind, key)'s most used spelling, ties broken by the first in alphabetical order."""
    counted = long.groupby(["kind", "key", "name"], sort=True).size().reset_index(name="uses")
    best = counted.sort_values(["kind", "key", "uses", "name"], ascending=[True, True, False, True])
    first = best.drop_duplicates(["kind", "key"])
    pairs = zip(first["kind"].tolist(), first["key"].tolist(), strict=True)
    return dict(zip(pairs, first["name"].tolist(), strict=True))


def topic_rows(topic: np.ndarray, labels: dict[int, str]) -> np.ndarray:
    """Each paper's topic where it is a real topic (assigned outliers included), else OUTLIER."""
    topic = np.asarray(topic)
    return np.where(np.isin(topic, [t for t in labels if t != OUTLIER]), topic, OUTLIER)


def top_names(long: pd.DataFrame, topic: np.ndarray, labels: dict[int, str], top: int) -> pd.DataFrame:
    """``people_top.csv``: per topic and kind, the ``top`` names with most fractional papers, their
    whole papers and share of the topic's papers that carry the kind.
    """
    if long.empty:
        return pd.DataFrame(columns=TOP_COLUMNS)
    names = display_names(long)
    frame = long.assign(topic=topic_rows(topic, labels)[long["row"].to_numpy()])
    frame = frame[frame["topic"] != OUTLIER]
    carrying = frame.groupby(["topic", "kind"])["row"].nunique().rename("topic_papers")
    per_name = frame.groupby(["topic", "kind", "key"]).agg(
        papers=("weight", "sum"), whole_papers=("row", "nunique")
    )
    per_name = per_name.join(carrying).reset_index()
    per_name = per_name.sort_values(
        ["topic", "kind", "papers", "whole_papers", "key"], ascending=[True, True, False, False, True]
    )
    per_name["rank"] = per_name.groupby(["topic", "kind"]).cumcount() + 1
    chosen = per_name[per_name["rank"] <= top].copy()
    chosen["name"] = [names[(k, key)] for k, key in zip(chosen["kind"], chosen["key"], strict=True)]
    chosen["label"] = chosen["topic"].map(labels)
    chosen["share"] = (chosen["papers"] / chosen["topic_papers"]).round(6)
    chosen["papers"] = chosen["papers"].round(6)
    kind_order = {kind: i for i, kind in enumerate(KINDS)}
    chosen = chosen.sort_values(
        ["topic", "kind", "rank"], key=lambda c: c.map(kind_order) if c.name == "kind" else c
    )
    return chosen[TOP_COLUMNS].reset_index(drop=True)


def _author_institutions(long: pd.DataFrame) -> pd.DataFrame:
    """Each author entry's institution, where the paper lists one per author (as many entries)."""
    authors = long[long["kind"] == "author"]
    places = long[long["kind"] == "institution"]
    counts = places.groupby("row").size()
    aligned = authors[authors["row"].map(counts).eq(authors["row"].map(authors.groupby("row").size()))]
    joined = aligned.merge(
        places[["row", "place", "name"]], on=["row", "place"], suffixes=("", "_institution")
    )
    return joined[["row", "key", "name_institution"]]


def experts(
    long: pd.DataFrame, topic: np.ndarray, years: np.ndarray, labels: dict[int, str], top: int
) -> pd.DataFrame:
    """``experts.csv``: per topic, the ``top`` authors with most papers in it, with the years of
    those papers (``2021; 2023; 2023``) and their institutions on them, where the export aligns
    one institution per author.
    """
    authors = long[long["kind"] == "author"]
    if authors.empty:
        return pd.DataFrame(columns=EXPERT_COLUMNS)
    names = display_names(authors)
    frame = authors.assign(topic=topic_rows(topic, labels)[authors["row"].to_numpy()])
    frame = frame[frame["topic"] != OUTLIER]
    frame = frame.assign(year=np.asarray(years, dtype=object)[frame["row"].to_numpy()])
    table = frame.groupby(["topic", "key"]).agg(
        papers=("row", "nunique"), fractional_papers=("weight", "sum")
    )
    table = table.reset_index().sort_values(
        ["topic", "papers", "fractional_papers", "key"], ascending=[True, False, False, True]
    )
    table["rank"] = table.groupby("topic").cumcount() + 1
    table = table[table["rank"] <= top]
    # Their years and institutions, from their own entries only (a few per topic).
    chosen = frame.merge(table[["topic", "key"]], on=["topic", "key"])
    places = _author_institutions(long).groupby(["row", "key"])["name_institution"].first()
    chosen = chosen.join(places, on=["row", "key"])
    grouped = chosen.groupby(["topic", "key"])
    table = table.join(
        grouped["year"].agg(lambda ys: "; ".join(sorted(str(y) for y in ys if str(y)))).rename("years"),
        on=["topic", "key"],
    ).join(
        grouped["name_institution"]
        .agg(lambda ps: "; ".join(sorted({p for p in ps if isinstance(p, str)})))
        .rename("institutions"),
        on=["topic", "key"],
    )
    table["author"] = [names[("author", key)] for key in table["key"]]
    table["label"] = table["topic"].map(labels)
    table["fractional_papers"] = table["fractional_papers"].round(6)
    return table[EXPERT_COLUMNS].reset_index(drop=True)
