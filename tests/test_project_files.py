"""The project's own files agree with each other: pins, environment.yml, config, schema and the documentation."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO, default_config
from snakemake.utils import validate

# The environment's own tools (ruff and snakefmt are pinned in requirements-test.txt).
BIN = Path(sys.executable).parent

# conda-forge names that differ from the PyPI ones.
CONDA_NAMES = {"torch": "pytorch"}


def pip_pins(path):
    pins = {}
    for line in (REPO / path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.lower()] = version
    return pins


def test_environment_yml_lists_the_same_pinned_packages_as_requirements():
    environment = yaml.safe_load((REPO / "environment.yml").read_text())
    conda = {}
    pip = {}
    for entry in environment["dependencies"]:
        if isinstance(entry, dict):
            pip.update(dict(item.split("==") for item in entry["pip"]))
        else:
            match = re.fullmatch(r"([\w.-]+)=([\w.]+)", entry)
            if match and match.group(1) != "python":
                conda[match.group(1)] = match.group(2)
    requirements = pip_pins("requirements.txt")
    expected_conda = {
        CONDA_NAMES.get(name, name): version for name, version in requirements.items() if name not in pip
    }
    assert conda == expected_conda
    assert pip == {name: requirements[name] for name in pip}


def test_constraints_pin_every_requirement_at_the_same_version():
    constraints = pip_pins("constraints.txt")
    for path in ("requirements.txt", "requirements-test.txt"):
        for name, version in pip_pins(path).items():
            assert constraints.get(name) == version, (path, name)


def test_config_yaml_is_valid_and_equals_the_schema_defaults():
    schema = str(REPO / "workflow" / "schemas" / "config.schema.yaml")
    filled = {}
    validate(filled, schema)  # fills in every default
    config = default_config()
    validate(config, schema)
    assert config == filled


def test_every_schema_key_has_a_description_and_a_default():
    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    for section, spec in schema["properties"].items():
        assert spec.get("description") and "default" in spec, section
        for key, value in spec.get("properties", {}).items():
            assert value.get("description") and "default" in value, f"{section}.{key}"


# The README stays short and sends readers to docs/; the links between the pages must resolve.
README = REPO / "README.md"
README_LIMIT_BYTES = 12 * 1024
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def documentation_pages():
    return [
        README,
        REPO / "CHANGELOG.md",
        *sorted((REPO / "docs").glob("*.md")),
        *sorted((REPO / "bench").glob("*.md")),
    ]


def local_links(page):
    """(target path, anchor) of every link and image of a Markdown page that is not a web address."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        yield (page.parent / path).resolve() if path else page, anchor


def heading_anchors(page):
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    anchors = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", text, re.MULTILINE):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-"))
    return anchors


def test_no_tracked_file_holds_a_merge_conflict_marker():
    # A merge resolved in haste once committed its markers into CHANGELOG.md; ruff sees only Python.
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    marker = re.compile(rb"^(?:<{7}|>{7}) ", re.MULTILINE)
    found = [
        name for name in tracked.decode().split("\0") if name and marker.search((REPO / name).read_bytes())
    ]
    assert found == []


def test_readme_is_short():
    assert len(README.read_bytes()) <= README_LIMIT_BYTES


def test_every_local_link_in_the_documentation_resolves():
    checked = 0
    for page in documentation_pages():
        for target, anchor in local_links(page):
            assert target.exists(), f"{page.relative_to(REPO)} links to missing {target}"
            if anchor:
                assert target.suffix == ".md" and anchor in heading_anchors(target), (
                    f"{page.relative_to(REPO)} links to #{anchor}, no heading of {target.name}"
                )
            checked += 1
    assert checked > 20  # the pages do link to each other


def test_readme_links_every_docs_page_and_shows_the_screenshot():
    linked = {target for target, _ in local_links(README)}
    for page in (REPO / "docs").glob("*.md"):
        assert page.resolve() in linked, f"README does not link docs/{page.name}"
    assert (REPO / "docs" / "report.png").resolve() in linked
    assert (REPO / "CHANGELOG.md").resolve() in linked


def test_benchmarks_page_links_every_benchmark_file():
    linked = {target for target, _ in local_links(REPO / "docs" / "benchmarks.md")}
    for figures in (REPO / "bench").glob("*.md"):
        assert figures.resolve() in linked, f"docs/benchmarks.md does not link bench/{figures.name}"


def test_readme_set_up_commands_are_makefile_targets():
    readme = README.read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+):", (REPO / "Makefile").read_text(encoding="utf-8"), re.MULTILINE))
    for command in re.findall(r"`make ([\w-]+)", readme):
        assert command in targets, f"README names `make {command}`, which the Makefile lacks"
    assert {"run", "test"} <= set(re.findall(r"^make ([\w-]+) ", readme, re.MULTILINE))


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "format", "--check", "."],
        ["ruff", "check", "."],
        ["snakefmt", "--check", "Snakefile", "workflow/rules"],
    ],
    ids=["ruff-format", "ruff-check", "snakefmt"],
)
def test_code_is_formatted_and_lint_clean(command):
    # The same checks as `make lint` (settings in pyproject.toml); `make format` fixes most findings.
    result = subprocess.run([str(BIN / command[0]), *command[1:]], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout[-4000:]}{result.stderr[-4000:]}"
