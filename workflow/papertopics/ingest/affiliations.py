"""Who wrote a paper and where: each author's institution and country, read from the exports as
they come, and the two normalisations the people stage counts by.

Every reader gives two lists per paper, ``affiliations`` (institution names) and ``countries``,
each holding one entry per author whose export says where they work, in author order (an author
the export places nowhere has no entry). The people stage splits a paper's one unit equally
across the entries (fractional counting), so an author is counted once, at their first address:

- Web of Science ``C1``: ``[Doe, J; Roe, R] Univ X, Dept Y, City, Country.``; the bracket names
  the authors (as ``AF`` writes them) at the address that follows; the institution is the
  address's first part (Web of Science puts the organisation first), the country its last. An
  address without a bracket (older records) is one entry.
- Scopus ``Authors with affiliations``: ``Doe J., Dept Y, Univ X, City, Country; Roe R., ...``.
- PubMed ``AD``: the address lines after each author's ``FAU``.
- OpenAlex ``authorships``: each author's first institution and its ISO country code.

Where an address has several parts (department, institution, city), the institution is the first
part that names an organisation (``University``, ``Institute``, ...), else the first part.
Countries are normalised through ISO 3166 (``pycountry``): a name, official name, common name or
alpha-2/alpha-3 code gives one short name; what the exports write that ISO does not (Web of
Science's ``Peoples R China``, ``England``) is listed in :data:`EXPORT_COUNTRY_NAMES`.
Institution names are grouped only by :func:`institution_key`: case, punctuation, ``Univ`` for
``University`` and the words "of", "the", "and" — nothing fuzzier.
"""

from __future__ import annotations

import functools
import re

# Country names the exports write that are not ISO 3166 names, codes or common names: Web of
# Science's abbreviations and the nations of the United Kingdom its addresses name.
EXPORT_COUNTRY_NAMES = {
    "peoples r china": "CN",
    "pr china": "CN",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "north ireland": "GB",
    "northern ireland": "GB",
    "uk": "GB",
    "south korea": "KR",
    "korea": "KR",
    "republic of korea": "KR",
    "turkey": "TR",
    "russia": "RU",
    "u arab emirates": "AE",
    "iran": "IR",
    "vietnam": "VN",
    "czech republic": "CZ",
}
# Words that mark the part of an address naming the organisation: the first part naming a
# university, else the first naming another organisation ("Institute"), else the first with a weak
# word ("School of Computing" of a university).
_ORGANISATION = (
    re.compile(r"\b(univ\w*|universit\w*)", re.IGNORECASE),
    re.compile(
        r"\b(institut\w*|inst|hospital|academy|acad|inc|ltd|corp\w*|gmbh|foundation|council)\b", re.IGNORECASE
    ),
    re.compile(r"\b(college|school|labs?|laborator\w*|cent(?:er|re)|ctr|research)\b", re.IGNORECASE),
)
# Web of Science's tab-delimited C1: addresses separated by ";", which also separates the names
# inside an address's bracket.
_ADDRESS_SEPARATOR = re.compile(r";\s*(?![^\[]*\])")
_BRACKET = re.compile(r"^\s*\[([^\]]*)\]\s*(.*)$")
_EMAIL = re.compile(r"\S+@\S+")


@functools.lru_cache(maxsize=4096)
def normalise_country(text: str) -> str | None:
    """One short name per country (``"U.S.A."``, ``"USA"``, ``"United States"`` → ``"United States"``),
    or None where ``text`` names no country ISO 3166 or the exports know.
    """
    # pycountry reads its ISO databases when imported: only a dump that names countries pays.
    import pycountry

    cleaned = re.sub(r"[.\s]+", " ", text.replace(".", "")).strip(" ,;").strip()
    if not cleaned:
        return None
    code = EXPORT_COUNTRY_NAMES.get(cleaned.casefold())
    try:
        country = (
            pycountry.countries.get(alpha_2=code)
            if code
            else pycountry.countries.lookup(cleaned.removeprefix("The "))
        )
    except LookupError:
        return None
    return getattr(country, "common_name", None) or country.name


def country_of_address(address: str) -> str | None:
    """The country an address ends with: its last comma-separated part, or that part's last words
    (``"Stanford, CA 94305 USA"`` → United States); None where none is a country.
    """
    parts = [part.strip() for part in _EMAIL.sub("", address).rstrip(" .;").split(",") if part.strip()]
    if not parts:
        return None
    words = parts[-1].split()
    for count in range(len(words), 0, -1):
        found = normalise_country(" ".join(words[-count:]))
        if found:
            return found
    return None


def institution_of_address(address: str, organisation_first: bool = False) -> str | None:
    """The institution an address names: its first part (Web of Science's order) or the first
    part naming an organisation (Scopus, PubMed: the department may come first).
    """
    parts = [part.strip(" .") for part in _EMAIL.sub("", address).split(",") if part.strip(" .")]
    if not parts:
        return None
    if organisation_first:
        return parts[0]
    for words in _ORGANISATION:
        found = next((part for part in parts if words.search(part)), None)
        if found:
            return found
    return parts[0]


def institution_key(name: str) -> str:
    """What two spellings of one institution share: ``"Univ. of Twente"`` and ``"University
    Twente"`` → ``"university twente"`` (case, punctuation, ``Univ``, "of", "the", "and" only).
    """
    words = re.sub(r"[^\w\s]", " ", name.casefold()).split()
    words = ["university" if word == "univ" else word for word in words]
    return " ".join(word for word in words if word not in {"of", "the", "and"})


def _entries(addresses: list[str], organisation_first: bool) -> tuple[list[str], list[str]]:
    institutions = [institution_of_address(a, organisation_first) or "" for a in addresses]
    countries = [country_of_address(a) or "" for a in addresses]
    return [i for i in institutions if i], [c for c in countries if c]


def wos_affiliations(authors: list[str], addresses: list[str]) -> tuple[list[str], list[str]]:
    """Institutions and countries of a Web of Science record: ``authors`` as ``AF`` (or ``AU``)
    lists them, ``addresses`` the ``C1`` lines. Each author at the first address whose bracket
    names them; without brackets, each address is one entry.
    """
    first_address: dict[str, str] = {}
    unbracketed = []
    for line in addresses:
        match = _BRACKET.match(line)
        if match is None:
            unbracketed.append(line)
            continue
        for name in match.group(1).split(";"):
            first_address.setdefault(name.strip().casefold(), match.group(2))
    if not first_address:
        return _entries(unbracketed, organisation_first=True)
    chosen = [first_address[name.casefold()] for name in authors if name.casefold() in first_address]
    return _entries(chosen, organisation_first=True)


def split_wos_addresses(text: str | None) -> list[str]:
    """The addresses of a tab-delimited ``C1`` cell (``[A; B] Univ X, ...; [C] ...``)."""
    return [part.strip() for part in _ADDRESS_SEPARATOR.split(text or "") if part.strip()]


def scopus_affiliations(text: str | None) -> tuple[list[str], list[str]]:
    """Institutions and countries of Scopus's ``Authors with affiliations``: ``Name I., address;
    ...``, one per author (the name is the part before the first comma).
    """
    if not text:
        return [], []
    addresses = [entry.split(",", 1)[1] for entry in text.split(";") if "," in entry]
    return _entries(addresses, organisation_first=False)


def medline_affiliations(addresses_by_author: list[str]) -> tuple[list[str], list[str]]:
    """Institutions and countries of a PubMed record: each author's first ``AD`` line."""
    return _entries(addresses_by_author, organisation_first=False)


def openalex_affiliations(authorships: list) -> tuple[list[str], list[str]]:
    """Institutions and countries of an OpenAlex work: each author's first institution, and its
    country code (or the authorship's first country).
    """
    institutions, countries = [], []
    for authorship in authorships or []:
        if not isinstance(authorship, dict):
            continue
        places = [place for place in authorship.get("institutions") or [] if isinstance(place, dict)]
        first = places[0] if places else {}
        if first.get("display_name"):
            institutions.append(str(first["display_name"]))
        code = first.get("country_code") or next(iter(authorship.get("countries") or []), None)
        country = normalise_country(str(code)) if code else None
        if country:
            countries.append(country)
    return institutions, countries
