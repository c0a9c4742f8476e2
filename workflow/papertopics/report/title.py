"""The report's title: the setting, or the dumps' venue and years read from their titles."""

from __future__ import annotations

import re
from collections.abc import Sequence

# A title such as "ICML 2026 Papers" or a file name such as "icml2017": the venue, then a year.
_VENUE_AND_YEAR = re.compile(r"^\s*(?P<venue>[^\W\d_][^\d]*?)[\s_\-–:]*(?P<year>(?:19|20)\d{2})(?!\d)")
_TITLES_NAMED = 3  # a fallback title names this many dumps, then counts the others


def _venue_and_year(title: str) -> tuple[str, int] | None:
    match = _VENUE_AND_YEAR.match(title)
    if not match:
        return None
    venue = match["venue"].strip(" _-–:,")
    # One letter names no venue: dumps named y2020, y2021 would read as venue "Y".
    return (venue, int(match["year"])) if sum(c.isalpha() for c in venue) >= 2 else None


def _venue_name(venues: Sequence[str]) -> str:
    """The venue as written where some title capitalises it; a file name's ``icml`` as ``ICML``."""
    written = [v for v in venues if v != v.lower()]
    if written:
        return written[0]
    venue = venues[0]
    return venue.upper() if venue.isascii() and venue.isalpha() and len(venue) <= 8 else venue


def year_span(years: Sequence[int]) -> str:
    """``2017`` or ``2017–2019``."""
    first, last = min(years), max(years)
    return str(first) if first == last else f"{first}–{last}"


def compared_years(changes: dict | None) -> list[int]:
    """The years the changes stage compared (none where it compared dumps)."""
    return [int(p) for p in changes["periods"]] if changes and changes["by"] == "year" else []


def report_title(setting: str, corpus_summary: dict, paper_years: Sequence[int] = ()) -> str:
    """The report's title: the setting, or (``auto``) the dumps' venue and years where every dump's
    title names one venue and a year ("ICML 2026 Papers", "icml2017" → "ICML 2017–2019"), or one
    title without a year with the papers' years (``paper_years``, as ``compared_years``);
    else the dumps' own titles joined.
    """
    if setting != "auto":
        return setting
    titles = list(dict.fromkeys(d["title"] for d in corpus_summary["dumps"]))
    parsed = [_venue_and_year(title) for title in titles]
    if all(parsed) and len({venue.casefold() for venue, _ in parsed}) == 1:
        return f"{_venue_name([venue for venue, _ in parsed])} {year_span([year for _, year in parsed])}"
    if len(titles) == 1 and paper_years and not re.search(r"\d", titles[0]):
        return f"{_venue_name([titles[0].strip()])} {year_span(paper_years)}"
    named = " + ".join(titles[:_TITLES_NAMED])
    more = len(titles) - _TITLES_NAMED
    return f"Topics of {named}" + (f" and {more} more dumps" if more > 0 else "")
