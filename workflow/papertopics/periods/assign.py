"""Which period (dump or year) and which group (a venue, a track: any categorical field) each
paper belongs to, decided once, by the periods stage, for the topics, changes, venues and report
stages alike (``results/periods/papers.csv`` and ``periods.json``).

``compare.by`` names what is compared: ``auto``, ``dump`` or ``year`` (ordered periods, as
before), a paper field such as ``venue`` (unordered groups: the periods are those groups and no
test of order runs over them), or both, ``[venue, year]`` (each paper's venue and its year).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from papertopics import storage
from papertopics.errors import PipelineInputError

PERIOD_CHOICES = ("auto", "dump", "year")
# The topics stage's own columns of papers.csv; an input field of one of these names is input_<name>.
PIPELINE_COLUMNS = (
    "id",
    "dump",
    "dumps",
    "display_name",
    "abstract",
    "topic",
    "topic_label",
    "outlier",
    "x",
    "y",
)


@dataclass
class Periods:
    """The papers' periods (dumps or years, oldest first; or unordered groups such as venues) and
    each (paper row, period) pair.
    """

    by: str
    names: list[str]
    rows: np.ndarray  # index into the paper table, one entry per (paper, period) pair
    period: np.ndarray  # the period of each pair
    left_out: int  # papers without a period (no year, when comparing years; no value of the field)
    note: str | None = None  # why years were not compared though some papers carry one
    ordered: bool = True  # False for groups that have no order (venues): no trend runs over them


def _years(papers: pd.DataFrame) -> pd.Series:
    """Each paper's year as text ('2024'), or '' where it has none."""
    if "year" not in papers.columns:
        return pd.Series([""] * len(papers), index=papers.index)
    numbers = pd.to_numeric(papers["year"].astype(str).str.strip(), errors="coerce")
    whole = numbers.notna() & (numbers == numbers.round())
    return numbers.where(whole).map(lambda y: "" if pd.isna(y) else str(int(y)))


def paper_periods(papers: pd.DataFrame, by: str, dump_order: list[str]) -> Periods:
    """Group the papers by dump (each of its dumps) or by year. ``auto`` compares years when
    every paper carries one and there are two or more, else dumps, in ``dump_order``.
    """
    years = _years(papers)
    note = None
    if by == "auto":
        by = "year" if (years != "").all() and years.nunique() >= 2 else "dump"
        without = int((years == "").sum())
        if by == "dump" and 0 < without < len(papers):
            unusable = papers.loc[years == "", "year"].astype(str).str.strip() if "year" in papers else []
            examples = ", ".join(repr(v) for v in dict.fromkeys(v for v in unusable if v)) or "none given"
            note = (
                f"{without} of {len(papers)} papers have no usable year (values: {examples[:120]}), so dumps "
                "are compared, not years; give every paper a whole-number year, or set compare.by: year "
                "to leave those papers out."
            )
    if by == "year":
        if (years == "").all():
            raise PipelineInputError(
                "compare.by is 'year' but no paper carries a year; give the papers a 'year' field "
                "(JSON Lines, JSON or CSV input) or set compare.by to 'dump' or 'auto'."
            )
        has_year = (years != "").to_numpy()
        names = sorted(set(years[has_year]), key=int)
        return Periods(
            "year", names, np.flatnonzero(has_year), years[has_year].to_numpy(), int((~has_year).sum())
        )
    listed = papers["dumps"].astype(str).str.split(";")
    rows = np.repeat(np.arange(len(papers)), listed.map(len).to_numpy())
    period = np.array([dump for dumps in listed for dump in dumps], dtype=object)
    present = set(period.tolist())
    names = [d for d in dump_order if d in present] + sorted(present - set(dump_order))
    return Periods("dump", names, rows, period, 0, note)


# A leading "Proceedings of (the)", which some databases write before a conference's name and others not.
_PROCEEDINGS = re.compile(r"^proceedings of (?:the )?")


def group_key(value: str) -> str:
    """What makes two written values one group: the same words, whatever their case, accents'
    encoding (NFKC), punctuation and spacing, and with or without a leading "Proceedings of
    (the)". Nothing fuzzier: "and" is not "&", an abbreviation is not the name it shortens.
    """
    text = unicodedata.normalize("NFKC", value).casefold()
    words = " ".join(re.sub(r"[^\w\s]|_", " ", text).split())
    return _PROCEEDINGS.sub("", words) or " ".join(text.split())


def _shown_form(forms: Counter) -> str:
    """A group's name: its most common written form; on a tie, one in mixed case before one in
    capitals throughout (Web of Science's) before one in lower case, then the first in code-point
    order.
    """
    return min(forms, key=lambda form: (-forms[form], 2 if form.islower() else int(form.isupper()), form))


def group_names(values: pd.Series) -> pd.Series:
    """Each value as its group's name (``group_key``): the most common written form of the
    values of its group (whitespace collapsed); '' stays ''.
    """
    written = values.map(lambda value: " ".join(str(value).split()))
    keys = written.map(group_key).where(written != "", "")
    forms: dict[str, Counter] = {}
    for key, form in zip(keys, written, strict=True):
        if key:
            forms.setdefault(key, Counter())[form] += 1
    names = {key: _shown_form(found) for key, found in forms.items()}
    return keys.map(lambda key: names.get(key, ""))


def field_groups(papers: pd.DataFrame, field: str) -> Periods:
    """Group the papers by the values of a categorical ``field`` (``venue``, ``track``), sorted by
    name, with no order between them; values that differ only as ``group_key`` allows are one
    group (``group_names``); papers without a value are left out (counted).
    """
    if field not in papers.columns or not (papers[field].astype(str).str.strip() != "").any():
        carried = [
            c for c in papers.columns if c not in PIPELINE_COLUMNS and (papers[c].astype(str) != "").any()
        ]
        raise PipelineInputError(
            f"compare.by names {field!r}, but no paper carries a {field!r} field (the papers carry: "
            f"{', '.join(carried) or 'no field beyond title and abstract'}); give the papers that field "
            "(JSON Lines, JSON or CSV input) or set compare.by to auto, dump, year or one of those fields."
        )
    values = group_names(papers[field].astype(str))
    has_value = (values != "").to_numpy()
    return Periods(
        field,
        sorted(set(values[has_value])),
        np.flatnonzero(has_value),
        values[has_value].to_numpy(dtype=object),
        int((~has_value).sum()),
        ordered=False,
    )


@dataclass(frozen=True)
class CompareBy:
    """``compare.by`` read: the periods (``auto``, ``dump``, ``year``, or None) and the field of
    unordered groups (None where there is none).
    """

    period: str | None
    field: str | None


def read_compare_by(value) -> CompareBy:
    """``compare.by`` as a period choice, a field name, or a list of one of each."""
    given = [value] if isinstance(value, str) else list(value)
    periods = [v for v in given if v in PERIOD_CHOICES]
    fields = [v for v in given if v not in PERIOD_CHOICES]
    if not given or len(periods) > 1 or len(fields) > 1:
        raise PipelineInputError(
            f"compare.by is {value!r}; give one of auto, dump, year, or a paper field (venue), or a list of "
            "one field and one of auto, dump, year ([venue, year])."
        )
    return CompareBy(periods[0] if periods else None, fields[0] if fields else None)


def paper_groups(papers: pd.DataFrame, compare_by, dump_order: list[str]) -> tuple[Periods, Periods | None]:
    """Each paper's periods and its group: the stage's one decision of who is compared with whom.

    With a field alone (``compare.by: venue``) the periods are the field's groups, unordered;
    with a field and a period choice both are returned; with a period choice alone, no groups.
    """
    by = read_compare_by(compare_by)
    groups = field_groups(papers, by.field) if by.field else None
    periods = paper_periods(papers, by.period, dump_order) if by.period else groups
    return periods, groups


def _joined(periods: Periods | None, n_papers: int) -> list[str]:
    """Each paper's periods as one text, ``;``-separated ('' for none)."""
    listed: list[list[str]] = [[] for _ in range(n_papers)]
    if periods is not None:
        for row, name in zip(periods.rows.tolist(), periods.period.tolist(), strict=True):
            listed[row].append(str(name))
    return [";".join(names) for names in listed]


def _settings(periods: Periods | None) -> dict | None:
    if periods is None:
        return None
    return {
        "by": periods.by,
        "names": periods.names,
        "ordered": periods.ordered,
        "left_out": periods.left_out,
        "note": periods.note,
    }


def groups_record(ids: list[str], periods: Periods, groups: Periods | None) -> tuple[pd.DataFrame, dict]:
    """The stage's two outputs: one row per paper (``id``, ``period``, ``group``, each a
    ``;``-separated list where a paper is in several dumps) and the settings of both.
    """
    table = pd.DataFrame(
        {"id": ids, "period": _joined(periods, len(ids)), "group": _joined(groups, len(ids))}
    )
    return table, {"periods": _settings(periods), "groups": _settings(groups)}


def _read(
    table: pd.DataFrame, column: str, settings: dict | None, ids: list[str], source: str
) -> Periods | None:
    if settings is None:
        return None
    by_id = dict(zip(table["id"], table[column], strict=True))
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise RuntimeError(
            f"{source} lacks {len(missing)} papers (first {missing[0]}); rerun the periods stage."
        )
    listed = [by_id[i].split(";") if by_id[i] else [] for i in ids]
    rows = np.repeat(np.arange(len(ids)), [len(names) for names in listed])
    period = np.array([name for names in listed for name in names], dtype=object)
    return Periods(
        settings["by"],
        list(settings["names"]),
        rows.astype(np.int64),
        period,
        int(settings["left_out"]),
        settings.get("note"),
        bool(settings.get("ordered", True)),
    )


def load_groups(table: str, settings: str, ids: list[str]) -> tuple[Periods, Periods | None]:
    """The periods stage's periods and groups, in the order of ``ids`` (a stage's paper table)."""
    frame = pd.read_csv(table, keep_default_na=False, dtype=str)
    record = storage.read_json(settings)
    return (
        _read(frame, "period", record["periods"], ids, table),
        _read(frame, "group", record["groups"], ids, table),
    )
