"""Text clean-up for keyword extraction, the words the keyword vectorizer reads, stable paper ids
and short display names.
"""

from __future__ import annotations

import functools
import hashlib
import html
import itertools
import re
import unicodedata

_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
# \cmd{arg} keeps arg; a bare \cmd (e.g. \alpha, \infty) is dropped; \% \& \_ keep the character.
_LATEX_ESCAPED_CHAR = re.compile(r"\\([%&_#$])")
_LATEX_COMMAND_WITH_ARGUMENT = re.compile(r"\\[A-Za-z]+\*?\s*\{([^{}]*)\}")
_LATEX_BARE_COMMAND = re.compile(r"\\[A-Za-z]+\*?")
_MATH_DELIMITERS = re.compile(r"\$\$?|\\[()\[\]]")
_BRACES = re.compile(r"[{}]")
_MARKDOWN_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1")
_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_BACKTICKS = re.compile(r"`+")
# Invisible characters that scrapes and word processors leave inside words: zero-width space,
# word joiner, a byte-order mark inside the text, soft hyphen. (Zero-width joiners stay: they
# change how some scripts and emoji render.)
_INVISIBLE_CHARACTERS = "\u200b\u2060\ufeff\u00ad"
_INVISIBLE = re.compile(f"[{_INVISIBLE_CHARACTERS}]")
# Control characters other than tab and line breaks (which the whitespace rules handle).
_CONTROL_CHARACTERS = "\x00-\x08\x0e-\x1f\x7f"
CONTROL_CHARACTER = re.compile(f"[{_CONTROL_CHARACTERS}]")
# Any character that normalise_text keeps.
_VISIBLE = re.compile(rf"[^\s{_INVISIBLE_CHARACTERS}{_CONTROL_CHARACTERS}]")
# Only entities with their closing semicolon: "R&D" and "&notation" stay as written.
_HTML_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# Tags of the elements that abstracts scraped from web pages carry, with name="value"
# attributes only: "a <b and c> d" in an abstract is maths, not a tag.
_HTML_TAG = re.compile(
    r"</?(?:a|abbr|b|big|blockquote|br|cite|code|div|em|font|h[1-6]|hr|i|img|jats:[a-z-]+|li|"
    r"math|mi|mn|mo|mrow|msub|msup|ol|p|pre|q|s|small|span|strike|strong|sub|sup|tt|u|ul)"
    r"""(?:\s+[\w:-]+\s*=\s*(?:"[^"]*"|'[^']*'|[^\s<>"']+))*\s*/?>""",
    re.IGNORECASE,
)


def collapse_whitespace(text: str) -> str:
    # Printable text has no whitespace but the plain space (checked over all of Unicode), so
    # without doubled, leading or trailing spaces it is already collapsed, as most text is.
    """Runs of whitespace (any Unicode whitespace) as one space, without leading or trailing space."""
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    # str.split() splits on exactly the characters regex \s matches (checked over all of Unicode), without a regex.
    return " ".join(text.split())


def normalise_text(text: str) -> str:
    """One line of clean text: invisible characters dropped, control characters and every
    kind of space or line break (non-breaking, thin, ideographic, CR, LF) made one space.
    """
    # Every invisible and control character is non-printable, so printable text (most of it)
    # skips both substitutions.
    if not text.isprintable():
        text = CONTROL_CHARACTER.sub(" ", _INVISIBLE.sub("", text))
    return collapse_whitespace(text)


def is_blank(text: str) -> bool:
    """Whether ``normalise_text(text)`` is empty, found without building it."""
    return _VISIBLE.search(text) is None


# Parsing asks for the HTML-free form of each abstract several times in a row (keywords,
# length, identity); the last few answers are kept.
@functools.lru_cache(maxsize=8)
def strip_html(text: str) -> str:
    """Decode HTML entities (``&amp;`` → ``&``, ``&#233;`` → ``é``) and drop HTML tags."""
    # Each substitution runs only where the character its pattern begins with occurs: a plain
    # search for it costs far less than the regular expression finding nothing.
    if "<" in text:
        text = _HTML_TAG.sub(" ", text)
    if "&" in text:
        text = _HTML_ENTITY.sub(lambda entity: html.unescape(entity.group()), text)
    return normalise_text(text)


def clean_for_keywords(abstract: str) -> str:
    r"""Strip HTML, LaTeX, math delimiters, markdown emphasis and URLs, keeping the words.

    ``$\textbf{DAG}$`` becomes ``DAG``, ``**NeurIPS**`` becomes ``NeurIPS`` and
    ``<i>E. coli</i> &amp; yeast`` becomes ``E. coli & yeast``.
    """
    text = strip_html(abstract)
    # As in strip_html, each pattern runs only where text it needs occurs (most abstracts have no markup).
    if "](" in text:
        text = _MARKDOWN_LINK.sub(r"\1", text)
    if "://" in text or "www." in text.lower():
        text = _URL.sub(" ", text)
    if "\\" in text:
        text = _LATEX_ESCAPED_CHAR.sub(r"\1", text)
        # Nested commands (\textbf{\emph{x}}) unwrap one level per pass.
        previous = None
        while previous != text:
            previous = text
            text = _LATEX_COMMAND_WITH_ARGUMENT.sub(r"\1", text)
        text = _LATEX_BARE_COMMAND.sub(" ", text)
    if "$" in text or "\\" in text:
        text = _MATH_DELIMITERS.sub("", text)
    if "{" in text or "}" in text:
        text = _BRACES.sub("", text)
    if "*" in text or "_" in text:
        text = _MARKDOWN_EMPHASIS.sub(r"\2", text)
    if "`" in text:
        text = _BACKTICKS.sub("", text)
    return collapse_whitespace(text)


_NON_WORD = re.compile(r"\W+")
# For ASCII text, \W is every character but letters, digits and "_": mapping those to spaces
# and splitting gives what the regular expression gives, without running it.
_ASCII_NON_WORD_TO_SPACE = str.maketrans(
    {chr(code): " " for code in range(128) if _NON_WORD.match(chr(code))}
)


def normalise_for_identity(abstract: str) -> str:
    """The form two abstracts must share to count as the same paper: HTML decoded, Unicode
    compatibility forms folded (``ﬁ`` → ``fi``), case, punctuation and spacing ignored.
    """
    folded = unicodedata.normalize("NFKC", strip_html(abstract)).casefold()
    if folded.isascii():
        return " ".join(folded.translate(_ASCII_NON_WORD_TO_SPACE).split())
    return _NON_WORD.sub(" ", folded).strip()


def paper_id(abstract: str) -> str:
    """A stable id from the abstract's content: unchanged when a dump is reordered or
    re-exported in another format.
    """
    digest = hashlib.sha1(normalise_for_identity(abstract).encode("utf-8")).hexdigest()
    return f"p{digest[:12]}"


# Only the words after the verb are used, so a "we" or "this paper" before it is not matched;
# the lookahead on the verbs' first letters lets the search pass over other words quickly.
_INTRODUCING_VERB = re.compile(
    r"\b(?=[ipcndt])"
    r"(?:introduce[sd]?|propose[sd]?|present(?:s|ed)?|call(?:ed)?|name[sd]?|dub(?:bed)?|term(?:ed)?)\b"
    r"(?P<rest>[^.;:!?]*)",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9]*(?:[-–][A-Za-z0-9]+)*")
_TOKEN_PART_SEPARATOR = re.compile(r"[-–]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# Tokens within this many words after an introducing verb may be the coined name.
_NAME_WINDOW_WORDS = 10
_DISPLAY_NAME_MAX_CHARS = 80
_TITLE_MAX_CHARS = 200


def _is_coined_token(token: str, followed_by_comma: bool) -> bool:
    """LakeQA, CrispEdit, DeR-Mamba, GALA, V2A, Digit-18; Tool-Guard only as an appositive."""
    if not token[:1].isupper():
        return False
    parts = _TOKEN_PART_SEPARATOR.split(token)
    has_letters = any(c.isalpha() for c in token)
    inner_capital = any(any(c.isupper() for c in part[1:]) for part in parts)
    letters_and_digits = has_letters and any(c.isdigit() for c in token)
    capitalised_compound = len(parts) > 1 and all(part[:1].isupper() for part in parts)
    return inner_capital or letters_and_digits or (capitalised_compound and followed_by_comma)


def coined_name(cleaned_abstract: str) -> str | None:
    """The name an abstract coins for its contribution ("we introduce LakeQA"), if any.

    An appositive name wins ("we present Creat3r, an ..."), then a parenthesised one
    ("the Diffusion Value Function (DVF)" → DVF), then the first coined-looking token.
    """
    for introduction in _INTRODUCING_VERB.finditer(cleaned_abstract):
        rest = introduction.group("rest")
        candidates = []
        for match in itertools.islice(_TOKEN.finditer(rest), _NAME_WINDOW_WORDS):
            following = rest[match.end() : match.end() + 1]
            if _is_coined_token(match.group(), following == ","):
                preceding = rest[match.start() - 1 : match.start()] if match.start() else ""
                appositive = following == ","
                parenthesised = preceding == "(" and following == ")"
                rank = 0 if appositive else 1 if parenthesised else 2
                candidates.append((rank, match.start(), match.group()))
        if candidates:
            return min(candidates)[2]
    return None


def shorten(text: str, max_chars: int) -> str:
    """``text`` cut at a word boundary to at most ``max_chars`` characters, ending in an ellipsis."""
    if len(text) <= max_chars:
        return text
    shortened = text[: max_chars - 1].rsplit(" ", 1)[0]
    return shortened.rstrip(",;:") + "…"


def first_sentence(cleaned_abstract: str, max_chars: int = _DISPLAY_NAME_MAX_CHARS) -> str:
    """The abstract's first sentence, shortened to ``max_chars``."""
    sentence = _SENTENCE_END.split(cleaned_abstract, maxsplit=1)[0].rstrip(".")
    return shorten(sentence, max_chars)


def short_authors(authors: str, separator: str | None = None) -> str:
    """The first author and "et al.": ``Ada Lovelace; Alan Turing; Grace Hopper`` → ``Ada Lovelace et al.``.

    Names are split at ``separator`` where given (the exports' ``;``, which keeps ``Turing, Alan``
    one name), else at ";" where there is one, else at "," and "and".
    """
    if separator is not None:
        names = [name.strip() for name in authors.split(separator) if name.strip()]
    else:
        separator = ";" if ";" in authors else ","
        names = [name.strip() for name in re.split(rf"{separator}|\band\b", authors) if name.strip()]
    if len(names) <= 2:
        return " and ".join(names)
    return f"{names[0]} et al."


def display_name(
    cleaned_abstract: str,
    title: str | None = None,
    authors: str | None = None,
    authors_separator: str | None = None,
) -> str:
    """The paper's title when the dump gives one, else the name its abstract coins or its
    first sentence; followed by its authors when the dump lists them (split as :func:`short_authors`).
    """
    name = shorten(clean_for_keywords(title), _TITLE_MAX_CHARS) if title else None
    name = name or coined_name(cleaned_abstract) or first_sentence(cleaned_abstract)
    short = short_authors(authors, authors_separator) if authors else ""
    return f"{name} — {short}" if short else name


# Publisher boilerplate that database exports (Scopus, Web of Science, PubMed) leave at the end of
# an abstract: a copyright line ("© 2018 Elsevier Ltd. All rights reserved.", "Copyright © 2020
# IEEE", "(C) 2019 Elsevier B.V."), "All rights reserved." and "Published by ...". Each opener is
# matched only where a sentence starts (a copyright sign anywhere after a space), and only in a
# short tail: a sentence such as "Copyright protection of images is ..." or "... recently published
# by Kucharski et al." is not boilerplate and stays.
_YEAR = r"(?:1[89]|20)\d\d"
_SENTENCE_START = r"(?:^|(?<=[.!?;:)\]\"”])\s+)"
_BOILERPLATE_OPENERS = (
    # (pattern at the cut, the longest tail it may cut, in characters)
    (re.compile(rf"(?:^|\s+)(?=(?:Crown\s+)?(?:Copyright\s*)?©[^©]*?(?<!\d){_YEAR}(?!\d))"), 400),
    (
        re.compile(rf"{_SENTENCE_START}(?=(?:Crown\s+)?Copyright\s*(?:\(c\)|{_YEAR}|by\b))", re.IGNORECASE),
        400,
    ),
    (
        re.compile(
            rf"{_SENTENCE_START}(?=\([cC]\)\s*(?:{_YEAR}\s+[A-Z]|[Cc]opyright\b|[Tt]he\s+[Aa]uthors?\b))"
        ),
        300,
    ),
    (
        re.compile(rf"{_SENTENCE_START}(?={_YEAR}\s+\S[^.]*\.?\s*All rights reserved\.?\s*$)", re.IGNORECASE),
        200,
    ),
    (re.compile(rf"{_SENTENCE_START}(?=Published by\b)"), 200),
    (re.compile(rf"{_SENTENCE_START}(?=All rights reserved\b)", re.IGNORECASE), 60),
)
# What an export writes where a paper has no abstract; rejected as empty, never kept as one.
_PLACEHOLDER = re.compile(
    r"^[\[(]?\s*(?:no\s+abstract(?:\s+(?:is\s+)?(?:available|provided))?|abstract\s+(?:not\s+available|unavailable|"
    r"not\s+provided)|not\s+available|n/a)\s*\.?\s*[\])]?\.?$",
    re.IGNORECASE,
)


def cut_boilerplate(abstract: str) -> tuple[str, str]:
    """The abstract without the publisher boilerplate that ends it, and what was cut ("" when nothing).

    ``"We show X. © 2018 Elsevier Ltd. All rights reserved."`` → ``("We show X.", "© 2018 Elsevier
    Ltd. All rights reserved.")``. An abstract that is boilerplate only is cut to "".
    """
    if not abstract:
        return abstract, ""
    earliest = len(abstract)
    for opener, longest in _BOILERPLATE_OPENERS:
        for match in opener.finditer(abstract, max(0, len(abstract) - longest - 1)):
            if match.start() < earliest and len(abstract) - match.end() <= longest:
                earliest = match.start()
            break
    if earliest == len(abstract):
        return abstract, ""
    return abstract[:earliest].rstrip(), abstract[earliest:].strip()


def is_placeholder(abstract: str) -> bool:
    """Whether the abstract is an export's stand-in for none: "[No abstract available]", "Abstract not available"."""
    return len(abstract) < 40 and _PLACEHOLDER.match(abstract.strip()) is not None


# What PDF text extraction leaves in abstracts: glyph codes the extractor could not map to a
# character ("(cid:173)", a soft hyphen in many fonts), and the typographic ligatures of the
# Alphabetic Presentation Forms block ("ﬁ" for "fi"), which split words in two for a tokenizer.
_GLYPH_CODE = re.compile(r"\s*\(cid:\d+\)\s*")
_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}
_LIGATURE = re.compile(f"[{''.join(_LIGATURES)}]")


def _glyph_code_gap(match: re.Match) -> str:
    # 173 right after a letter is the soft hyphen of a word broken at a line's end ("net(cid:173)
    # works"): the word is joined. Another code inside a word is dropped; between words, one
    # space stays.
    whole = match.group(0)
    if "(cid:173)" in whole and not whole[:1].isspace():
        return ""
    return " " if whole[:1].isspace() or whole[-1:].isspace() else ""


def fix_extraction_artefacts(text: str) -> tuple[str, int, int]:
    """``text`` without PDF-extraction glyph codes and with ligatures folded to their letters,
    and how many of each there were: "neural net(cid:173) works on ﬁnite sets" →
    ("neural networks on finite sets", 1, 1).
    """
    codes = ligatures = 0
    if "(cid:" in text:
        text, codes = _GLYPH_CODE.subn(_glyph_code_gap, text)
    if any(ligature in text for ligature in _LIGATURES):
        text, ligatures = _LIGATURE.subn(lambda m: _LIGATURES[m.group(0)], text)
    return (collapse_whitespace(text) if codes else text), codes, ligatures


def singular(word: str) -> str:
    """A word's singular by the common English plural endings (policies → policy, graphs → graph)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_KEYWORD_TOKEN = re.compile(r"(?u)\b\w\w+\b")
# Words on either side of these are not one phrase: "networks (GNNs)" does not make "networks gnns".
PHRASE_BREAK = re.compile(r"[^\w\s'-]+")


def keyword_text(texts: list[str]) -> str:
    """Texts as the keyword vectorizer reads them (lower case, words of 2+ characters), one
    stretch between punctuation marks per line, words separated by single spaces.
    """
    stretches = (
        _KEYWORD_TOKEN.findall(stretch) for text in texts for stretch in PHRASE_BREAK.split(text.lower())
    )
    return "\n".join(" ".join(words) for words in stretches if words)
