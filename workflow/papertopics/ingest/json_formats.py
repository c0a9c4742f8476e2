"""Read a JSON dump: ``.jsonl``, one JSON object per line, read line by line; ``.json``, a list
of such objects (or an object holding one such list, as API responses do), parsed whole (the
standard library's parser reads a document only whole). Fields nested under ``content`` and values
wrapped as ``{"value": ...}`` (OpenReview exports) are lifted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from papertopics.errors import PipelineInputError
from papertopics.ingest.formats import RawDump, Record, Source, bare_lines
from papertopics.text import normalise_text


def field_text(value) -> str | None:
    """A JSON value as one line of text: lists joined by "; ", {"value": x} unwrapped."""
    if value is None:
        return None
    if isinstance(value, dict) and set(value) == {"value"}:
        return field_text(value["value"])
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return normalise_text(str(value))
    if isinstance(value, list):
        parts = [
            field_text(item["name"]) if isinstance(item, dict) and "name" in item else field_text(item)
            for item in value
        ]
        return "; ".join(part for part in parts if part)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _object_fields(data: dict) -> dict[str, str]:
    """Every field of a JSON object as text; fields under ``content`` lifted to the top."""
    flat = {key: value for key, value in data.items() if key != "content"}
    content = data.get("content")
    if isinstance(content, dict):
        for key, value in content.items():
            flat.setdefault(key, value)
    elif content is not None:
        flat["content"] = content
    texts = {str(key): field_text(value) for key, value in flat.items()}
    return {key: text for key, text in texts.items() if text is not None}


def json_record(position: int, location: str, data) -> Record:
    """A JSON value as a record: an object's fields, anything else unparsable."""
    if isinstance(data, dict):
        return Record(position, location, _object_fields(data))
    kind = {list: "a list", str: "a string", type(None): "null"}.get(type(data), "a number")
    return Record(position, location, {}, problem=f"unparsable: {kind}, not a JSON object")


def _field_names(records: Iterable[Record]) -> list[str]:
    return list(dict.fromkeys(name for record in records for name in record.fields))


def json_lines(source: Source, path: Path) -> Iterator[tuple[int, int, object]]:
    """Each non-blank line of a JSON Lines dump as (position, line number, value); a line that is
    not JSON stops the run, named.
    """
    position = 0
    for number, line in enumerate(bare_lines(source), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise PipelineInputError(
                f"{path}: line {number} is not valid JSON ({error.msg} at column {error.colno}); "
                "each line must be one JSON object. Fix or delete that line."
            ) from None
        yield position, number, data
        position += 1


def read_json_lines(source: Source, path: Path) -> RawDump:
    """A JSON Lines dump: one JSON object per line. Read twice: first for the field names of all
    records (the abstract field is picked among them before any record is decided on), then for the
    records, so that neither read holds more than a line.
    """

    def records() -> Iterator[Record]:
        return (
            json_record(position, f"line {number}", data)
            for position, number, data in json_lines(source, path)
        )

    columns = _field_names(records())
    return RawDump(title=None, records=records(), format="jsonl", encoding="", columns=columns)


def json_list(data, path: Path) -> list:
    """The list of paper objects a parsed JSON document is, or holds as its one list."""
    if isinstance(data, dict):
        lists = [value for value in data.values() if isinstance(value, list)]
        if len(lists) != 1:
            raise PipelineInputError(
                f"{path}: expected a JSON list of paper objects (or an object holding exactly one such list); "
                f"found an object with keys {', '.join(map(str, data)) or '(none)'}."
            )
        data = lists[0]
    if not isinstance(data, list):
        raise PipelineInputError(f"{path}: expected a JSON list of paper objects, found a single JSON value.")
    return data


def read_json(source: Source, path: Path) -> RawDump:
    """A JSON dump: a list of objects, or an object holding one (e.g. ``papers``); parsed whole."""
    try:
        data = json.loads(source.text)
    except json.JSONDecodeError as error:
        raise PipelineInputError(
            f"{path}: not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}. Fix the file "
            "(or, for one object per line, name it .jsonl)."
        ) from None
    items = json_list(data, path)
    records = [json_record(position, f"record {position + 1}", item) for position, item in enumerate(items)]
    return RawDump(title=None, records=records, format="json", encoding="", columns=_field_names(records))
