"""Each paper's reception read as values: its decision, its reviewers' ratings (their mean and
spread) and its citations, from the text the parse stage kept
(``papertopics.ingest.reception_fields``).

A value that is not a number (a rating "n/a", a citation count "unknown") counts as missing and
is said once per field, with how many and the first one's dump and record; a field none of whose
values can be read stops the run with one line naming the first record, since a whole column read
wrongly would make every figure drawn from it wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from papertopics.errors import PipelineInputError

# Ratings are written "5; 7; 7" (a JSON list as the parse stage joins it), "5, 7, 7" or "5 7 7";
# an OpenReview rating may carry its meaning after the number ("6: marginally above threshold").
_RATING_SEPARATORS = re.compile(r"[;,|/]|\s+(?=\d)")
_LEADING_NUMBER = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)(?:\s*[:(].*)?\s*$")


@dataclass(frozen=True)
class ReceptionValues:
    """Per paper (arrays in the papers' order): ``decision`` ("" where none), ``rating`` (the mean
    of its reviewers' ratings), ``rating_spread`` (their standard deviation, NaN under two
    ratings), ``citations`` (NaN where none) and the notes on values that could not be read.
    """

    decision: np.ndarray
    rating: np.ndarray
    rating_spread: np.ndarray
    citations: np.ndarray
    notes: tuple[str, ...]


def number(text: str) -> float | None:
    """``text`` as a number ("12", "6.5", "6: marginally above"), None where it is none."""
    match = _LEADING_NUMBER.match(text)
    return float(match.group(1)) if match else None


def paper_ratings(text: str) -> list[float] | None:
    """A paper's ratings from their text, [] where there is none, None where one is no number."""
    parts = [part.strip() for part in _RATING_SEPARATORS.split(text) if part.strip()]
    values = [number(part) for part in parts]
    return None if any(value is None for value in values) else values


@dataclass(frozen=True)
class _Unreadable:
    """The values of one field that are given but are no number: how many, and the first."""

    field: str
    count: int = 0
    first: str = ""

    def note(self) -> str:
        return (
            f"{self.field}: {self.count} value(s) could not be read as numbers and count as missing "
            f"(first: {self.first})"
        )


def _where(table, row: int, column: str) -> str:
    dump = table["dump"].iat[row] if "dump" in table else "?"
    location = table["location"].iat[row] if "location" in table else f"paper {row + 1}"
    return f"dump {dump}, {location}: {column} {table[column].iat[row]!r}"


def _check_readable(table, column: str, given: np.ndarray, read: np.ndarray) -> _Unreadable:
    """Stop where every given value of ``column`` is unreadable; else count those that are."""
    bad = np.flatnonzero(given & ~read)
    if not len(bad):
        return _Unreadable(column)
    first = _where(table, int(bad[0]), column)
    if not read[given].any():
        raise PipelineInputError(
            f"{first}: none of the {int(given.sum())} values of {column!r} is a number, so the column "
            f"cannot be read; fix the export, or point reception.{column}_field at the right column."
        )
    return _Unreadable(column, len(bad), first)


def _text_column(table, column: str | None) -> np.ndarray:
    if not column or column not in table:
        return np.full(len(table), "", dtype=object)
    return table[column].fillna("").astype(str).str.strip().to_numpy(dtype=object)


def read_values(table, decision_field: str, ratings_field: str, citations_field: str) -> ReceptionValues:
    """The reception values of the papers of ``table`` (a frame of their input columns, with
    ``dump`` and ``location`` to name a record), read from the columns named.
    """
    decisions = _text_column(table, decision_field)
    rating_texts = _text_column(table, ratings_field)
    parsed = [paper_ratings(text) if text else [] for text in rating_texts]
    rating = np.array([np.mean(r) if r else np.nan for r in parsed], dtype=np.float64)
    spread = np.array([np.std(r, ddof=1) if r and len(r) > 1 else np.nan for r in parsed], dtype=np.float64)
    rating_given = rating_texts != ""
    unreadable = [
        _check_readable(table, ratings_field, rating_given, np.array([r is not None for r in parsed], bool))
    ]
    citation_texts = _text_column(table, citations_field)
    counts = [number(text) if text else None for text in citation_texts]
    citations = np.array([np.nan if c is None or c < 0 else c for c in counts], dtype=np.float64)
    citation_given = citation_texts != ""
    unreadable.append(_check_readable(table, citations_field, citation_given, ~np.isnan(citations)))
    notes = tuple(found.note() for found in unreadable if found.count)
    return ReceptionValues(decisions, rating, spread, citations, notes)
