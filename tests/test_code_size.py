"""The package stays readable in pieces: no module over 450 lines, no function over 80 lines or
10 parameters (issue #32's limits), so that a stage is read one small piece at a time.
"""

from __future__ import annotations

import ast

import pytest
from conftest import REPO

PACKAGE = REPO / "workflow" / "papertopics"
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80
MAX_PARAMETERS = 10


def parameter_count(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Every parameter a caller can pass (``self``/``cls`` of a method not counted; ``*args`` and
    ``**kwargs`` one each).
    """
    arguments = function.args
    names = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    count = len(names) + (arguments.vararg is not None) + (arguments.kwarg is not None)
    return count - (bool(names) and names[0].arg in ("self", "cls"))


def oversized(source: str, name: str) -> list[str]:
    """What in one module's ``source`` is over the limits, each as 'name: what'."""
    found = []
    lines = len(source.splitlines())
    if lines > MAX_MODULE_LINES:
        found.append(f"{name}: {lines} lines")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{name}:{node.lineno} {node.name}: {length} lines")
            if parameter_count(node) > MAX_PARAMETERS:
                found.append(f"{name}:{node.lineno} {node.name}: {parameter_count(node)} parameters")
    return found


def test_the_limits_catch_a_long_function_and_many_parameters():
    long_function = "def long():\n" + "    x = 1\n" * MAX_FUNCTION_LINES
    many = (
        "class A:\n    def many(self, "
        + ", ".join(f"p{i}" for i in range(MAX_PARAMETERS))
        + ", *rest):\n        pass\n"
    )
    assert oversized(long_function, "m.py") == [f"m.py:1 long: {MAX_FUNCTION_LINES + 1} lines"]
    assert oversized(many, "m.py") == [f"m.py:2 many: {MAX_PARAMETERS + 1} parameters"]
    assert oversized("x = 1\n" * (MAX_MODULE_LINES + 1), "m.py") == [f"m.py: {MAX_MODULE_LINES + 1} lines"]
    assert oversized("def short(self, a):\n    return a\n", "m.py") == []


@pytest.mark.parametrize(
    "module", sorted(PACKAGE.rglob("*.py")), ids=lambda path: str(path.relative_to(PACKAGE))
)
def test_no_module_function_or_parameter_list_is_over_the_limits(module):
    assert oversized(module.read_text(encoding="utf-8"), str(module.relative_to(PACKAGE))) == []
