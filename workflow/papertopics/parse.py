"""Parse one abstract dump into paper records and an accounting summary.

The ``.txt`` dump format: the first non-blank line is the dump's title (any language);
then one abstract per paragraph, paragraphs separated by one or more blank lines, line
breaks inside a paragraph joined. UTF-8 with or without a byte-order mark; LF, CRLF or CR.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from papertopics.errors import PipelineInputError
from papertopics.text import clean_for_keywords, collapse_whitespace, display_name, paper_id

_BLANK_LINES = re.compile(r"\n[ \t\f\v]*\n\s*")


@dataclass
class ParsedDump:
    name: str
    title: str
    papers: list[dict]
    records_read: int
    duplicates: int = 0
    rejected: list[dict] = field(default_factory=list)

    def summary(self) -> dict:
        return {
            "dump": self.name,
            "title": self.title,
            "records_read": self.records_read,
            "kept": len(self.papers),
            "duplicates": self.duplicates,
            "rejected": len(self.rejected),
            "rejections": self.rejected,
        }


def dump_name(path: str | Path) -> str:
    """A dump's name is its file name without the format extension."""
    return Path(path).name.split(".", 1)[0]


def decode_dump(raw: bytes, path: Path) -> str:
    if not raw.strip():
        raise PipelineInputError(f"{path}: the file is empty; put one abstract per paragraph in it or remove it.")
    if b"\x00" in raw[:8192]:
        raise PipelineInputError(f"{path}: this looks like a binary file (it contains NUL bytes), not a text dump.")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise PipelineInputError(
            f"{path}: line {line} is not valid UTF-8 ({error.reason}); save the file as UTF-8."
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_title_and_paragraphs(text: str) -> tuple[str, list[str]]:
    lines = text.strip().split("\n")
    title = collapse_whitespace(lines[0])
    body = "\n".join(lines[1:]).strip()
    paragraphs = [collapse_whitespace(p) for p in _BLANK_LINES.split(body)] if body else []
    return title, [p for p in paragraphs if p]


def parse_text_dump(path: str | Path, min_abstract_chars: int) -> ParsedDump:
    path = Path(path)
    title, paragraphs = split_title_and_paragraphs(decode_dump(path.read_bytes(), path))
    parsed = ParsedDump(name=dump_name(path), title=title, papers=[], records_read=len(paragraphs))
    seen_ids: set[str] = set()
    for position, abstract in enumerate(paragraphs):
        if len(abstract) < min_abstract_chars:
            parsed.rejected.append(
                {"position": position, "reason": f"shorter than {min_abstract_chars} characters"}
            )
            continue
        identifier = paper_id(abstract)
        if identifier in seen_ids:
            parsed.duplicates += 1
            continue
        seen_ids.add(identifier)
        cleaned = clean_for_keywords(abstract)
        parsed.papers.append(
            {
                "id": identifier,
                "dump": parsed.name,
                "dump_title": title,
                "position": position,
                "display_name": display_name(cleaned),
                "abstract": abstract,
                "text": cleaned,
            }
        )
    if not parsed.papers:
        raise PipelineInputError(
            f"{path}: no abstracts found after the title line; separate abstracts by blank lines."
        )
    return parsed
