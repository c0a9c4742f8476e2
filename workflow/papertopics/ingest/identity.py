r"""What makes two records of different exports the same paper: the identifiers they carry, else a
key of their abstract's text that is the same whatever an export did to it.

Identifiers (:func:`paper_identifiers`): the DOI (any format's ``doi`` field; an arXiv DOI,
``10.48550/arXiv.2101.00001``, also gives the arXiv id), the arXiv id, the PubMed id, the Web of
Science UT, the OpenAlex work id and the Scopus EID, each from the record's ``id`` where the
export's format (or the id's own shape) says what it is.

The text key (:func:`text_key`) reads the abstract as publisher lines already cut, LaTeX decoded
(``\epsilon`` and ``$\epsilon$`` as the ``ϵ`` a BibTeX reader gives), Unicode compatibility forms
and ligatures folded (``ϵ`` → ``ε``, ``ﬁ`` → ``fi``), accents dropped, case ignored, and only its
letters and digits, so spacing, punctuation and line breaks do not count either.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

from papertopics.text import strip_html

IDENTIFIER_KINDS = ("doi", "arxiv", "pmid", "wos", "openalex", "scopus")
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


def text_key(abstract: str) -> str:
    r"""A key of the abstract's words that exports do not change (see the module's description):
    a symbol command becomes its character, any other command goes (its arguments' words stay,
    as a LaTeX decoder keeps them: ``\textit{log}`` is ``log``; of ``\href`` only the link's text).
    """
    text = strip_html(abstract)
    if "\\" in text:
        text = _LATEX_COMMAND.sub(_symbol_or_nothing, _HREF_TARGET.sub("", text))
    if text.isascii():  # most abstracts: a translation table, ten times faster than the expression
        letters = text.lower().translate(_ASCII_NOT_LETTER_OR_DIGIT)
    else:
        decomposed = unicodedata.normalize("NFKD", text)
        folded = "".join(character for character in decomposed if not unicodedata.combining(character))
        letters = _NOT_LETTER_OR_DIGIT.sub("", folded.casefold())
    return hashlib.sha1(letters.encode("utf-8")).hexdigest()
