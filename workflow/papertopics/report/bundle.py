"""The report's JavaScript: ES modules in ``assets/`` joined into one script for the page.

The page is one offline file, so its script cannot load modules; and the pipeline runs no Node.
This bundles a subset of module syntax, enough for the report's code and checked rather than
assumed: ``import { a, b as c } from "./file.js";`` and ``export function|async function|const|
class``. Each module becomes a function scope returning its exports, placed after the modules it
imports (the imports become destructured constants), so that modules keep their own top-level
names; an ``export let`` (a binding an importer would see change) or any other form stops the
build with the file and line. The same files run unchanged under ``node --test``.
"""

from __future__ import annotations

import re
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

_IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"\./([\w-]+\.js)";[ \t]*$', re.MULTILINE)
_EXPORT = re.compile(
    r"^export\s+(?:async\s+function\*?|function\*?|const|class)\s+([A-Za-z_$][\w$]*)", re.MULTILINE
)
_OTHER_MODULE_SYNTAX = re.compile(r"^(?:import|export)\b", re.MULTILINE)


class BundleError(ValueError):
    """A module the bundler cannot join: unsupported syntax, a missing file or an import cycle."""


ASSETS = resources.files("papertopics.report").joinpath("assets")


def _module_source(name: str, assets: Traversable | Path) -> str:
    path = assets.joinpath(name)
    if not path.is_file():
        raise BundleError(f"assets/{name}: no such module")
    return path.read_text(encoding="utf-8")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _variable(name: str) -> str:
    return "module_" + re.sub(r"\W", "_", name.removesuffix(".js"))


def _imports(name: str, text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """(module imported, [(exported name, local name)]) for each import line of ``name``."""
    found = []
    for match in _IMPORT.finditer(text):
        bindings = []
        for item in filter(None, (part.strip() for part in match.group(1).split(","))):
            parts = item.split()
            if len(parts) == 1:
                bindings.append((parts[0], parts[0]))
            elif len(parts) == 3 and parts[1] == "as":
                bindings.append((parts[0], parts[2]))
            else:
                raise BundleError(
                    f"assets/{name}:{_line_of(text, match.start())}: cannot read import {item!r}"
                )
        found.append((match.group(2), bindings))
    return found


def _check_syntax(name: str, text: str) -> None:
    handled = {m.start() for m in _IMPORT.finditer(text)} | {m.start() for m in _EXPORT.finditer(text)}
    for match in _OTHER_MODULE_SYNTAX.finditer(text):
        if match.start() not in handled:
            line = text[match.start() :].split("\n", 1)[0]
            raise BundleError(
                f"assets/{name}:{_line_of(text, match.start())}: {line!r}: only `import {{ ... }} from "
                '"./file.js";` and `export function|async function|const|class` can be bundled'
            )
    for marker in ("</script", "<!--"):  # either changes how the browser reads a script element
        if marker in text.lower():
            raise BundleError(f"assets/{name}: holds {marker!r}, which a script element in the page cannot")


def _ordered_modules(entry: str, assets: Traversable | Path) -> list[tuple[str, str]]:
    """Every module ``entry`` needs, each after the modules it imports: (name, source)."""
    ordered: list[tuple[str, str]] = []
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in done:
            return
        if name in path:
            raise BundleError("import cycle: " + " -> ".join((*path[path.index(name) :], name)))
        text = _module_source(name, assets)
        _check_syntax(name, text)
        for imported, _ in _imports(name, text):
            visit(imported, (*path, name))
        done.add(name)
        ordered.append((name, text))

    visit(entry, ())
    return ordered


def _module_function(name: str, text: str, exports: dict[str, set[str]]) -> str:
    def import_line(match: re.Match) -> str:
        imported = match.group(2)
        pairs = _imports(name, match.group(0))[0][1]
        missing = [exported for exported, _ in pairs if exported not in exports[imported]]
        if missing:
            raise BundleError(f"assets/{name}: assets/{imported} exports no {', '.join(missing)}")
        names = ", ".join(
            exported if exported == local else f"{exported}: {local}" for exported, local in pairs
        )
        return f"const {{ {names} }} = {_variable(imported)};"

    body = _EXPORT.sub(lambda m: m.group(0).removeprefix("export").lstrip(), _IMPORT.sub(import_line, text))
    returned = ", ".join(sorted(exports[name]))
    return f"// ---- assets/{name}\nconst {_variable(name)} = (() => {{\n{body}\nreturn {{ {returned} }};\n}})();\n"


def bundle(entry: str, assets: Traversable | Path = ASSETS) -> str:
    """The script of module ``entry`` (a file in ``assets``) and every module it imports."""
    modules = _ordered_modules(entry, assets)
    exports = {name: set(_EXPORT.findall(text)) for name, text in modules}
    functions = "".join(_module_function(name, text, exports) for name, text in modules)
    return f'"use strict";\n(() => {{\n{functions}}})();\n'
