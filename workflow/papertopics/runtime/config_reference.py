"""The configuration reference page (docs/configuration.md), rendered from the config schema.

The schema is the one description of every key that the run itself validates against, so the
page is generated from it rather than written by hand: `make docs` rewrites the page, and a test
fails while the committed page differs from what this module renders.

    PYTHONPATH=workflow python -m papertopics.runtime.config_reference --output docs/configuration.md
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Iterator
from pathlib import Path

import yaml

from papertopics import storage

SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "config.schema.yaml"
SCHEMA_NAME = "workflow/schemas/config.schema.yaml"


def yaml_text(value) -> str:
    """``value`` as it would be written in config.yaml (flow style, one line)."""
    text = yaml.safe_dump(value, default_flow_style=True, width=math.inf, allow_unicode=True)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def code(text: str) -> str:
    """A Markdown code span holding ``text``, whatever backticks it contains."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def table_cell(text: str) -> str:
    """One line of Markdown table cell: whitespace collapsed, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def resolve(spec: dict, root: dict) -> dict:
    """``spec`` with a local ``$ref`` (``#/$defs/name``) followed, as often as it chains."""
    seen = set()
    while isinstance(spec, dict) and "$ref" in spec:
        reference = spec["$ref"]
        if not reference.startswith("#/") or reference in seen:
            raise ValueError(
                f"{SCHEMA_NAME}: cannot follow $ref {reference!r}; only local references are supported"
            )
        seen.add(reference)
        target = root
        for part in reference[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        spec = {**target, **{key: value for key, value in spec.items() if key != "$ref"}}
    return spec


def number_range(kind: str, spec: dict) -> str:
    """``kind`` with its bounds: "integer from 1 to 10", "number > 0 and ≤ 1", "integer ≥ 2"."""
    low = ("≥", spec["minimum"]) if "minimum" in spec else None
    if "exclusiveMinimum" in spec:
        low = (">", spec["exclusiveMinimum"])
    high = ("≤", spec["maximum"]) if "maximum" in spec else None
    if "exclusiveMaximum" in spec:
        high = ("<", spec["exclusiveMaximum"])
    if low and high and low[0] == "≥" and high[0] == "≤":
        bounds = f"from {yaml_text(low[1])} to {yaml_text(high[1])}"
    else:
        bounds = " and ".join(f"{sign} {yaml_text(value)}" for sign, value in filter(None, (low, high)))
    text = f"{kind} {bounds}".strip()
    if "multipleOf" in spec:
        text += f", a multiple of {yaml_text(spec['multipleOf'])}"
    return text


def string_kind(spec: dict) -> str:
    """What a string key accepts, from its schema's length limits."""
    shortest = spec.get("minLength", 0)
    longest = spec.get("maxLength")
    if shortest == 1 and longest is None:
        text = "non-empty string"
    elif shortest and longest is not None:
        text = f"string of {shortest} to {longest} characters"
    elif shortest:
        text = f"string of at least {shortest} characters"
    elif longest is not None:
        text = f"string of at most {longest} characters"
    else:
        text = "string"
    if "pattern" in spec:
        text += f" matching {code(spec['pattern'])}"
    if "format" in spec:
        text += f" ({spec['format']})"
    return text


def items_count(count: int) -> str:
    """``1 item`` or ``N items``."""
    return f"{count} item" if count == 1 else f"{count} items"


def array_kind(spec: dict, root: dict) -> str:
    """What a list key accepts: its length limits and the kind of its items."""
    shortest = spec.get("minItems")
    longest = spec.get("maxItems")
    if shortest is not None and shortest == longest:
        count = f"of exactly {items_count(shortest)}"
    elif shortest and longest is not None:
        count = f"of {shortest} to {items_count(longest)}"
    elif shortest:
        count = f"of at least {items_count(shortest)}"
    elif longest is not None:
        count = f"of at most {items_count(longest)}"
    else:
        count = ""
    text = " ".join(part for part in ("list", count) if part)
    items = spec.get("items")
    if isinstance(items, dict) and items:
        text += f", each {accepted_values(items, root)}"
    if spec.get("uniqueItems"):
        text += ", no repeats"
    return text


def object_kind(spec: dict, root: dict) -> str:
    """What a mapping key accepts: the keys listed below it, or names mapped to values."""
    if spec.get("properties"):
        return "mapping of the keys below"
    values = spec.get("additionalProperties")
    if isinstance(values, dict) and values:
        return f"mapping of names to {accepted_values(values, root)}"
    return "mapping"


def single_type(kind: str, spec: dict, root: dict) -> str:
    """What a key of one JSON-schema type accepts, in words."""
    if kind in ("integer", "number"):
        return number_range(kind, spec)
    if kind == "string":
        return string_kind(spec)
    if kind == "boolean":
        return f"{code('true')} or {code('false')}"
    if kind == "null":
        return code("null")
    if kind == "array":
        return array_kind(spec, root)
    if kind == "object":
        return object_kind(spec, root)
    raise ValueError(f"{SCHEMA_NAME}: unknown type {kind!r}")


def accepted_values(spec: dict, root: dict) -> str:
    """What a key accepts, in words: its type(s) with their ranges, or its allowed values."""
    spec = resolve(spec, root)
    if "enum" in spec:
        return "one of " + ", ".join(code(yaml_text(value)) for value in spec["enum"])
    if "const" in spec:
        return code(yaml_text(spec["const"]))
    for keyword in ("oneOf", "anyOf"):
        if keyword in spec:
            # Constraints beside oneOf/anyOf (a shared type, a range) hold for every option.
            shared = {
                key: value for key, value in spec.items() if key not in (keyword, "description", "default")
            }
            return " or ".join(accepted_values({**shared, **option}, root) for option in spec[keyword])
    if "allOf" in spec:
        merged = {key: value for key, value in spec.items() if key != "allOf"}
        for part in spec["allOf"]:
            merged.update(resolve(part, root))
        return accepted_values(merged, root)
    kinds = spec.get("type")
    if kinds is None:
        return "any value"
    if isinstance(kinds, str):
        kinds = [kinds]
    return " or ".join(single_type(kind, spec, root) for kind in kinds)


def default_text(name: str, spec: dict, required: set[str]) -> str:
    """The default's cell: the value, or whether the key is required."""
    if "default" in spec:
        return code(yaml_text(spec["default"]))
    return "(required)" if name in required else "(not set)"


def nested_keys(spec: dict, root: dict, prefix: str) -> Iterator[tuple[str, dict, set[str]]]:
    """Every key below ``spec``, depth first in schema order: (dotted name, spec, the names its
    parent requires). A key holding an object is listed, then its keys; the keys of a list's
    items are named ``list[].key``.
    """
    spec = resolve(spec, root)
    items = resolve(spec["items"], root) if isinstance(spec.get("items"), dict) else {}
    if items.get("properties"):
        yield from nested_keys(items, root, f"{prefix}[]")
        return
    required = set(spec.get("required", []))
    for name, child in spec.get("properties", {}).items():
        child = resolve(child, root)
        dotted = f"{prefix}.{name}" if prefix else name
        yield dotted, child, required
        yield from nested_keys(child, root, dotted)


def key_row(dotted: str, spec: dict, required: set[str], root: dict) -> str:
    """One table row: the dotted key, its default, what it accepts and its description."""
    name = dotted.rsplit(".", 1)[-1]
    cells = [
        code(dotted),
        default_text(name, spec, required),
        accepted_values(spec, root),
        spec.get("description", ""),
    ]
    return "| " + " | ".join(table_cell(cell) for cell in cells) + " |"


TABLE_HEAD = ["| key | default | accepts | what it does |", "|---|---|---|---|"]


def render(schema: dict) -> str:
    """The whole reference page for ``schema`` (a config schema's parsed YAML)."""
    root = resolve(schema, schema)
    lines = [
        "# Configuration reference",
        "",
        f"<!-- Generated from {SCHEMA_NAME} by `make docs`; edit the schema, not this page. -->",
        "",
        f"Every key of `config.yaml`, generated from `{SCHEMA_NAME}` (run `make docs` after changing it).",
        "A key left out of `config.yaml` takes its default; a value of the wrong type or out of range",
        "stops the run before any job starts, naming the key. Defaults are written as in `config.yaml`.",
    ]
    required = set(root.get("required", []))
    for name, spec in root.get("properties", {}).items():
        spec = resolve(spec, root)
        lines += ["", f"## {name}", ""]
        # A section (an object of keys) is described above its table; any other key has a row.
        if spec.get("properties"):
            if spec.get("description"):
                lines += [" ".join(spec["description"].split()), ""]
            lines += TABLE_HEAD
        else:
            lines += TABLE_HEAD + [key_row(name, spec, required, root)]
        lines += [
            key_row(dotted, child, needed, root) for dotted, child, needed in nested_keys(spec, root, name)
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Print the page, or write it to ``--output``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schema", type=Path, default=SCHEMA, help="the config schema (YAML)")
    parser.add_argument("--output", type=Path, help="write the page here (atomically); default: print it")
    arguments = parser.parse_args(argv)
    page = render(yaml.safe_load(arguments.schema.read_text(encoding="utf-8")))
    if arguments.output:
        storage.write_text(arguments.output, page)
    else:
        print(page, end="")


if __name__ == "__main__":
    main()
