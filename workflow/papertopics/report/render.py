"""The page's templates (``report/templates``): Jinja2, every value escaped unless it is already
an HTML fragment (``Markup``): a partial rendered here, or a block ``fragment`` lets through.

This module is the page's one place of escaping: the sections compute plain values and their
templates write the markup.
"""

from __future__ import annotations

import html
from functools import cache

from markupsafe import Markup


def _escaped(value) -> Markup:
    """A template's value as the page's text, unless it is already HTML: escaped as ``html.escape``
    escapes, quotes as ``&quot;`` and ``&#x27;`` (Jinja's own escaping writes ``&#34;`` and ``&#39;``),
    so that the whole page spells them as the sections written in Python always have.
    """
    return value if hasattr(value, "__html__") else Markup(html.escape(str(value)))


@cache
def _environment():
    # The page's libraries load only in the report job.
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(
        loader=PackageLoader("papertopics.report", "templates"),
        autoescape=True,
        finalize=_escaped,
        undefined=StrictUndefined,  # a value the template names but nobody passed fails, not renders empty
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(template: str, **values) -> Markup:
    """``template`` (a file in ``report/templates``) filled in with ``values``."""
    return Markup(_environment().get_template(template).render(**values))


def macro(template: str, name: str):
    """The macro ``name`` of ``template``, to call from Python: its output is ``Markup``."""
    return getattr(_environment().get_template(template).module, name)


def fragment(html_text: str) -> Markup:
    """HTML built outside the templates (a script, a style sheet, a compressed block), placed as it is."""
    return Markup(html_text)
