"""The report escapes in one place (issue #47, item 6): every section is written by its template
(``report/templates``), whose values Jinja escapes, and no report module escapes by hand; the
one escaping function is ``report.render``'s. Read from the sources (ast): nothing is imported
but the helper itself.
"""

from __future__ import annotations

import ast

import pytest
from conftest import REPO

REPORT = REPO / "workflow" / "papertopics" / "report"
HELPER = "render.py"


def hand_escaping(source: str) -> list[str]:
    """Where ``source`` escapes HTML itself: an ``html`` or ``markupsafe`` escape function imported,
    or any ``.escape`` called (``html.escape``, ``markupsafe.escape``, ``Markup.escape``).
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(alias.name == "html" for alias in node.names):
            found.append(f"line {node.lineno}: import html")
        elif isinstance(node, ast.ImportFrom) and node.module in ("html", "markupsafe"):
            found += [
                f"line {node.lineno}: from {node.module} import escape"
                for a in node.names
                if a.name == "escape"
            ]
        elif isinstance(node, ast.Attribute) and node.attr == "escape":
            found.append(f"line {node.lineno}: .escape")
    return found


def test_no_report_module_but_the_helper_escapes_html_by_hand():
    found = {
        path.name: problems
        for path in sorted(REPORT.glob("*.py"))
        if path.name != HELPER and (problems := hand_escaping(path.read_text(encoding="utf-8")))
    }
    assert found == {}, "write the markup in a template (report/templates); render.py escapes its values"


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import html\nhtml.escape(x)\n", ["line 1: import html", "line 2: .escape"]),
        ("from markupsafe import Markup, escape\n", ["line 1: from markupsafe import escape"]),
        ("from markupsafe import Markup\nMarkup.escape(x)\n", ["line 2: .escape"]),
        ("from markupsafe import Markup\nMarkup(x)\n", []),
    ],
)
def test_hand_escaping_is_found_however_it_is_written(source, found):
    assert hand_escaping(source) == found


def test_templates_escape_as_the_page_always_has():
    from papertopics.report.html_blocks import notice

    assert (
        notice("a 'b' \"c\" <d> & e")
        == '<p class="notice">a &#x27;b&#x27; &quot;c&quot; &lt;d&gt; &amp; e</p>'
    )
