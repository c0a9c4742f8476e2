"""The package's subpackages are layers in the pipeline's order (issue #32): a module imports from
its own layer and those below it, never from a later one, not even inside a function, so that no
two subpackages import each other. Read from the sources (ast): the package is not imported.
"""

from __future__ import annotations

import ast

import pytest
from conftest import REPO

PACKAGE = REPO / "workflow" / "papertopics"
# Lowest first. The modules directly in papertopics/ (errors, settings, storage, text) are below
# them all. figures/ draws plotly figures for the topics stage (from the fitted model) and the
# report, and imports none of the stages' packages, so it sits below topics.
LAYERS = ("ingest", "embed", "groups", "mapping", "figures", "topics", "changes", "report", "runtime")
SHARED = "the shared modules"


def layer_of(name: str) -> str | None:
    """The layer of a dotted module (or imported object) name: its subpackage, ``SHARED`` for the
    package's own modules, None outside the package.
    """
    parts = name.split(".")
    if parts[0] != "papertopics":
        return None
    return parts[1] if len(parts) > 1 and (PACKAGE / parts[1] / "__init__.py").exists() else SHARED


def rank(layer: str) -> int:
    """A layer's place: the shared modules lowest, then ``LAYERS`` in order."""
    return -1 if layer == SHARED else LAYERS.index(layer)


def imported_names(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every module ``module`` imports, with its line: local imports inside functions and relative
    imports included; ``from papertopics import storage`` imports ``papertopics.storage``.
    """
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{parent}.{base}".rstrip(".")
            named = base == "papertopics" or not node.module
            found += (
                [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
                if named
                else [(node.lineno, base)]
            )
    return found


def later_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """What ``module`` imports from a later layer than its own, each as 'module:line imports name'."""
    own = layer_of(module)
    return sorted(
        {
            f"{module}:{line} imports {name} ({layer_of(name)}, a later layer than {own})"
            for line, name in imported_names(source, module, is_package)
            if layer_of(name) is not None and rank(layer_of(name)) > rank(own)
        }
    )


def modules():
    """Each module of the package: its dotted name, its file, and whether it is an ``__init__``."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        yield ".".join(parts[:-1] if is_package else parts), path, is_package


def test_every_subpackage_has_its_place_among_the_layers():
    subpackages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert subpackages == set(LAYERS), "place a new subpackage in LAYERS, or drop a gone one"


def test_no_module_imports_a_later_layer():
    found = [
        problem
        for module, path, is_package in modules()
        for problem in later_imports(path.read_text(encoding="utf-8"), module, is_package)
    ]
    assert found == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        (
            "papertopics.mapping.stages",
            "def cluster():\n    from papertopics.topics.fit import OUTLIER\n",
            [
                "papertopics.mapping.stages:2 imports papertopics.topics.fit (topics, a later layer than mapping)"
            ],
        ),
        (
            "papertopics.storage",
            "from papertopics import report\n",
            [
                "papertopics.storage:1 imports papertopics.report (report, a later layer than the shared modules)"
            ],
        ),
        ("papertopics.topics.run", "from ..mapping.cluster import OUTLIER\nfrom . import ids\n", []),
        (
            "papertopics.ingest.parse",
            "from ..topics import fit\nimport papertopics.ingest.formats\n",
            ["papertopics.ingest.parse:1 imports papertopics.topics (topics, a later layer than ingest)"],
        ),
    ],
)
def test_the_check_finds_a_later_layers_import_even_a_local_or_relative_one(module, source, expected):
    assert later_imports(source, module) == expected
