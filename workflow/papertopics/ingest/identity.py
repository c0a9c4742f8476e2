r"""What makes two records the same paper: the identifiers they carry, where their texts agree, else
a key of their abstract's text that is the same whatever an export did to it.

Identifiers (:func:`paper_identifiers`): the DOI (any format's ``doi`` field; an arXiv DOI,
``10.48550/arXiv.2101.00001``, also gives the arXiv id), the arXiv id, the PubMed id, the Web of
Science UT, the OpenAlex work id and the Scopus EID, each from the record's ``id`` where the
export's format (or the id's own shape) says what it is.

The text key (:func:`text_key`) reads the abstract as publisher lines already cut, LaTeX decoded
(``\epsilon`` and ``$\epsilon$`` as the ``ϵ`` a BibTeX reader gives), Unicode compatibility forms
and ligatures folded (``ϵ`` → ``ε``, ``ﬁ`` → ``fi``), accents dropped, case ignored, and only its
letters and digits, so spacing, punctuation and line breaks do not count either.

Two records sharing an identifier are one paper only where their texts agree
(:func:`texts_agree`): an identifier can be wrong (a DOI copied from the neighbouring record, ids
reused across hand-made files), and the paper it wrongly names must not be lost.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass

from papertopics.text import strip_html

# Each kind of identifier, with what a message calls it.
IDENTIFIER_NAMES = {
    "doi": "DOI",
    "arxiv": "arXiv id",
    "pmid": "PubMed id",
    "wos": "Web of Science UT",
    "openalex": "OpenAlex id",
    "scopus": "Scopus EID",
}
IDENTIFIER_KINDS = tuple(IDENTIFIER_NAMES)
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$")
_ARXIV_ID = re.compile(r"^(?:arxiv:)?(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?$", re.IGNORECASE)
_WOS_UT = re.compile(r"^(?:WOS|ISI):\w+$", re.IGNORECASE)
_OPENALEX_ID = re.compile(r"^(?:https://openalex\.org/)?(W\d+)$", re.IGNORECASE)
_SCOPUS_EID = re.compile(r"^2-s2\.0-\d+$")
_NOT_LETTER_OR_DIGIT = re.compile(r"[\W_]+")
_ASCII_NOT_LETTER_OR_DIGIT = str.maketrans(
    "", "", "".join(chr(code) for code in range(128) if not chr(code).isalnum())
)
_ASCII_NOT_LETTER_OR_DIGIT_TO_SPACE = str.maketrans(
    {chr(code): " " for code in range(128) if not chr(code).isalnum()}
)


def paper_identifiers(paper: dict, dump_format: str) -> dict[str, str]:
    """The identifiers of a parsed paper (kind → value, compared as given here) from a dump of
    ``dump_format`` (the parse summary's ``format``).
    """
    identifiers = {}
    extra = paper.get("extra") or {}
    doi_field = next((name for name in extra if name.casefold() == "doi"), None)
    found = _DOI.search(extra[doi_field]) if doi_field else None
    if found:
        identifiers["doi"] = found.group().rstrip(".,;").casefold()
        from_doi = _ARXIV_DOI.match(identifiers["doi"])
        if from_doi:
            identifiers["arxiv"] = from_doi.group(1)
    given = str(paper.get("input_id") or "").strip()
    arxiv = (
        _ARXIV_ID.match(given) if dump_format == "arxiv" or given.casefold().startswith("arxiv:") else None
    )
    openalex = _OPENALEX_ID.match(given)
    if arxiv:
        identifiers["arxiv"] = arxiv.group(1).casefold()
    elif dump_format == "medline" and given.isdigit():
        identifiers["pmid"] = given
    elif _WOS_UT.match(given):
        identifiers["wos"] = given.upper().replace("ISI:", "WOS:")
    elif openalex:
        identifiers["openalex"] = openalex.group(1).upper()
    elif _SCOPUS_EID.match(given):
        identifiers["scopus"] = given
    return identifiers


_LATEX_COMMAND = re.compile(r"\\([A-Za-z]+)|\\(?=[^A-Za-z])")
# \href{url}{text}'s url: a LaTeX decoder (the BibTeX reader's) keeps only the text.
_HREF_TARGET = re.compile(r"\\href\s*\{[^{}]*\}")


@functools.cache
def _latex_symbols() -> dict[str, str]:
    """LaTeX's symbol commands (``epsilon`` → ``ϵ``, ``ss`` → ``ß``) as pylatexenc decodes them
    (as the BibTeX reader does): the commands it writes as one or two characters.
    """
    # A format's parser loads only for a dump of that format.
    from pylatexenc.latex2text import get_default_latex_context_db

    return {
        spec.macroname: spec.simplify_repl
        for spec in get_default_latex_context_db().iter_macro_specs()
        if isinstance(spec.simplify_repl, str)
        and 0 < len(spec.simplify_repl) <= 2
        and "%" not in spec.simplify_repl
    }


def _symbol_or_nothing(command: re.Match) -> str:
    return _latex_symbols().get(command.group(1) or "", " ")


def _decoded(text: str) -> str:
    """``text`` as :func:`comparable_text` reads it, before all but its letters and digits are dropped:
    HTML and LaTeX decoded, compatibility forms folded, accents dropped, lower case.
    """
    text = strip_html(text)
    if "\\" in text:
        text = _LATEX_COMMAND.sub(_symbol_or_nothing, _HREF_TARGET.sub("", text))
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(character for character in decomposed if not unicodedata.combining(character)).casefold()


def comparable_text(text: str) -> str:
    r"""The letters and digits of ``text`` that exports do not change (see the module's description):
    a symbol command becomes its character, any other command goes (its arguments' words stay, as
    a LaTeX decoder keeps them: ``\textit{log}`` is ``log``; of ``\href`` only the link's text).
    """
    decoded = _decoded(text)
    if decoded.isascii():  # most abstracts: a translation table, ten times faster than the expression
        return decoded.translate(_ASCII_NOT_LETTER_OR_DIGIT)
    return _NOT_LETTER_OR_DIGIT.sub("", decoded)


def comparable_words(text: str) -> frozenset[str]:
    """The distinct words of ``text``, read as :func:`comparable_text` reads it (a word: a run of
    letters and digits).
    """
    decoded = _decoded(text)
    if decoded.isascii():
        return frozenset(decoded.translate(_ASCII_NOT_LETTER_OR_DIGIT_TO_SPACE).split())
    return frozenset(word for word in _NOT_LETTER_OR_DIGIT.split(decoded) if word)


def text_key(abstract: str) -> str:
    """A key of the abstract's words that exports do not change: its :func:`comparable_text`, hashed."""
    return hashlib.sha1(comparable_text(abstract).encode("utf-8")).hexdigest()


# The key of an abstract with no letter or digit (none that parsing keeps): it matches nothing.
NO_TEXT_KEY = text_key("")

# Two records' texts agree where one of their title and abstract is alike (at least TEXT_AGREES)
# and neither is unlike (under TEXT_DIFFERS); a part one of them lacks counts for neither.
# Measured (bench/identifier-agreement.md) on the nine exports of tests/test_exports_merge.py and
# on the shared corpora: the same paper's title is alike at 0.91 and above (a retitled arXiv
# version), its abstract at 0.68 and above (a rewritten one), never both under 0.8; of 97,403
# pairs of a paper and one of its nearest others in its corpus, titles reach 0.98 ("Qwen2.5-Omni" and
# "Qwen3.5-Omni Technical Report": 0.96), but their abstracts then stay under 0.37, and abstracts
# reach 0.57, or 0.94 for one copied onto another paper, whose title is then 0.33 alike.
TEXT_AGREES = 0.8
TEXT_DIFFERS = 0.5


@dataclass(frozen=True)
class ComparableText:
    """A record's title and abstract as :func:`texts_agree` compares them: the title's letters and
    digits, the abstract's distinct words (each empty where the record has none).
    """

    title: str
    abstract_words: frozenset[str]

    @classmethod
    def of(cls, paper: dict) -> ComparableText:
        """The comparable texts of a parsed paper (its ``title`` and ``abstract``)."""
        return cls(
            comparable_text(str(paper.get("title") or "")),
            comparable_words(str(paper.get("abstract") or "")),
        )


def title_similarity(first: str, second: str) -> float:
    """How alike two titles' letters are: difflib's ratio, twice the letters they share in order
    over their lengths' sum (a typo in a 60-letter title: 0.98).
    """
    return difflib.SequenceMatcher(None, first, second, autojunk=False).ratio()


def abstract_similarity(first: frozenset[str], second: frozenset[str]) -> float:
    """How alike two abstracts' words are: the words both use over the words either uses (Jaccard)."""
    return len(first & second) / len(first | second)


def titles_differ(first: str, second: str) -> bool:
    """Whether two comparable titles (:func:`comparable_text`) say two papers: both are given, and
    they are less alike than :data:`TEXT_DIFFERS`.
    """
    return bool(first and second) and first != second and title_similarity(first, second) < TEXT_DIFFERS


def texts_agree(first: ComparableText, second: ComparableText) -> bool:
    """Whether two records' texts say they are one paper (:data:`TEXT_AGREES`); the abstracts are
    measured first, the titles only where they can still decide.
    """
    alike = False
    if first.abstract_words and second.abstract_words:
        similarity = abstract_similarity(first.abstract_words, second.abstract_words)
        if similarity < TEXT_DIFFERS:
            return False
        alike = similarity >= TEXT_AGREES
    if not (first.title and second.title):
        return alike
    if first.title == second.title:
        return True
    return title_similarity(first.title, second.title) >= (TEXT_DIFFERS if alike else TEXT_AGREES)
