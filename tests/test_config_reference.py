"""docs/configuration.md is what the config schema renders, and lists every key of it."""

import yaml
from conftest import REPO
from papertopics.runtime import config_reference

SCHEMA_PATH = REPO / "workflow" / "schemas" / "config.schema.yaml"
PAGE_PATH = REPO / "docs" / "configuration.md"


def schema():
    return yaml.safe_load(SCHEMA_PATH.read_text(encoding="utf-8"))


def dotted_keys(spec, prefix=""):
    """Every key of a schema, walked here independently of the generator."""
    for name, child in spec.get("properties", {}).items():
        dotted = f"{prefix}.{name}" if prefix else name
        yield dotted
        yield from dotted_keys(child, dotted)


def rows(page):
    """Table rows of a rendered page by key: the cells after the key."""
    found = {}
    for line in page.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip("|").split(" | ")]
            found[cells[0].strip("`")] = cells[1:]
    return found


def test_committed_page_is_what_the_schema_renders():
    committed = PAGE_PATH.read_text(encoding="utf-8")
    assert committed == config_reference.render(schema()), (
        "docs/configuration.md differs from the schema; regenerate it with `make docs`"
    )


def test_page_has_a_row_for_every_schema_key_with_its_default():
    page = PAGE_PATH.read_text(encoding="utf-8")
    page_rows = rows(page)
    sections = [name for name, spec in schema()["properties"].items() if spec.get("properties")]
    keys = [key for key in dotted_keys(schema()) if key not in sections]
    for section in sections:  # a section is a heading; its keys are the rows under it
        assert f"\n## {section}\n" in page
    # The keys the hand-written table once lacked, among all the others.
    for key in (
        "embedding.threads",
        "embedding.shard_size",
        "embedding.cache_dir",
        "embedding.model_cache_dir",
        "umap.fit_sample_size",
    ):
        assert key in keys
    assert sorted(page_rows) == sorted(keys)
    assert page_rows["embedding.shard_size"][0] == "`10000`"
    assert page_rows["hdbscan.min_samples"][:2] == ["`null`", "integer ≥ 1 or `null`"]
    assert page_rows["umap.n_neighbors"][:2] == ["`auto`", "integer from 2 to 200 or `auto`"]


SYNTHETIC = yaml.safe_load(r"""
$defs:
  share: {type: number, minimum: 0, maximum: 1}
type: object
required: [name]
properties:
  name:
    description: A name | with a pipe.
    type: string
    pattern: "^[a-z]+$"
  compare:
    description: A section with a nested object.
    type: object
    default: {}
    properties:
      against:
        description: Runs to compare with.
        type: array
        items: {enum: [previous, first]}
        uniqueItems: true
        default: [previous]
      baseline:
        description: A nested object.
        type: object
        default: {}
        required: [path]
        properties:
          path:
            description: Where the baseline lives.
            anyOf: [{type: string, minLength: 1}, {type: "null"}]
          weight:
            description: A referenced range.
            $ref: "#/$defs/share"
            default: 0.5
      limit:
        description: One of two kinds.
        oneOf: [{type: integer, exclusiveMinimum: 0}, {const: "null"}]
        default: null
      level: {description: An open range., type: number, exclusiveMinimum: 0.5, exclusiveMaximum: 1, default: 0.95}
      share:
        description: A half-open range.
        type: number
        exclusiveMinimum: 0.5
        maximum: 1
        multipleOf: 0.05
        default: 0.9
      labels:
        description: Names to colours.
        type: object
        additionalProperties: {type: string}
        default: {}
      runs:
        description: Earlier runs, each a mapping.
        type: [array, "null"]
        items:
          type: object
          required: [path]
          properties:
            path: {description: Its results folder., type: string}
            seed: {description: Its seed., type: integer, minimum: 0, default: 42}
        default: null
  lineage:
    description: A top-level list of mappings.
    type: array
    items:
      type: object
      properties:
        dump: {description: A dump name., type: string, default: ""}
    default: []
""")


def test_render_handles_nesting_arrays_enums_unions_references_and_null_defaults():
    page = config_reference.render(SYNTHETIC)
    page_rows = rows(page)
    assert list(page_rows) == [
        "name",
        "compare.against",
        "compare.baseline",
        "compare.baseline.path",
        "compare.baseline.weight",
        "compare.limit",
        "compare.level",
        "compare.share",
        "compare.labels",
        "compare.runs",
        "compare.runs[].path",
        "compare.runs[].seed",
        "lineage",
        "lineage[].dump",
    ]
    assert page_rows["name"] == ["(required)", r"string matching `^[a-z]+$`", r"A name \| with a pipe."]
    assert page_rows["compare.against"][:2] == [
        "`[previous]`",
        "list, each one of `previous`, `first`, no repeats",
    ]
    assert page_rows["compare.baseline"][:2] == ["`{}`", "mapping of the keys below"]
    assert page_rows["compare.baseline.path"][:2] == ["(required)", "non-empty string or `null`"]
    assert page_rows["compare.baseline.weight"][:2] == ["`0.5`", "number from 0 to 1"]
    # The string "null" is quoted, as config.yaml must write it; the null default is bare.
    assert page_rows["compare.limit"][:2] == ["`null`", "integer > 0 or `'null'`"]
    assert page_rows["compare.level"][:2] == ["`0.95`", "number > 0.5 and < 1"]
    assert page_rows["compare.share"][:2] == ["`0.9`", "number > 0.5 and ≤ 1, a multiple of 0.05"]
    assert page_rows["compare.labels"][:2] == ["`{}`", "mapping of names to string"]
    assert page_rows["compare.runs"][:2] == ["`null`", "list, each mapping of the keys below or `null`"]
    assert page_rows["compare.runs[].path"][:2] == ["(required)", "string"]
    assert page_rows["compare.runs[].seed"][:2] == ["`42`", "integer ≥ 0"]
    assert page_rows["lineage"][:2] == ["`[]`", "list, each mapping of the keys below"]
    assert page_rows["lineage[].dump"][:2] == ["`''`", "string"]
    assert "## compare\n\nA section with a nested object.\n" in page
    assert "## lineage\n\n| key |" in page


def test_command_line_writes_the_page(tmp_path):
    schema_file = tmp_path / "schema.yaml"
    schema_file.write_text(yaml.safe_dump(SYNTHETIC, sort_keys=False), encoding="utf-8")
    output = tmp_path / "docs" / "configuration.md"
    config_reference.main(["--schema", str(schema_file), "--output", str(output)])
    assert output.read_text(encoding="utf-8") == config_reference.render(SYNTHETIC)
