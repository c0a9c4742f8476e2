"""The page's HTML blocks: data and figures for its scripts, and notices.

Data for scripts goes into ``<script type="application/gzip+base64">`` blocks: gzip-compressed,
then base64-encoded, so no text (an abstract holding ``</script>``, say) can close the tag.
The blocks are macros of ``templates/blocks.html``, which escape their visible text.
"""

from __future__ import annotations

import base64
import gzip
import json
import re

import plotly.io
from markupsafe import Markup

from papertopics.report.render import fragment, macro


def gzip_block(block_id: str, content: str | bytes) -> Markup:
    """Text (UTF-8) or bytes gzip-compressed and base64-encoded (no ``<`` can occur in it); the page's
    script unpacks it with the browser's DecompressionStream. A table of abstracts shrinks to about a third.
    """
    data = content.encode("utf-8") if isinstance(content, str) else content
    packed = base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)).decode("ascii")
    return macro("blocks.html", "gzip")(block_id, packed)


def packed_json_block(block_id: str, value) -> Markup:
    """JSON for the page's script, compressed as ``gzip_block`` (the page parses it once unpacked)."""
    return gzip_block(block_id, json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def figure_block(figure_id: str, figure, height: int | None = None) -> Markup:
    """A placeholder div plus the figure's JSON, compressed; the page's script draws it with plotly.js."""
    spec = json.loads(plotly.io.to_json(figure, validate=False))
    data = packed_json_block(f"{figure_id}-data", spec)
    return macro("blocks.html", "figure")(figure_id, int(height) if height else None, data)


def text_block(block_id: str, text: str) -> Markup:
    """Text the page's script reads but the browser does not run (the search worker's script).
    The text must hold no ``</script`` (``papertopics.report.bundle`` checks its modules for it).
    """
    if "</script" in text.lower():
        raise ValueError(f"text block {block_id!r} holds '</script', which would end the element")
    # The text as it is: the page's script reads it back, so escaping would change it.
    return macro("blocks.html", "text")(block_id, fragment(text))


def notice(text: str) -> Markup:
    """A short note shown in place of a chart that cannot be drawn."""
    return macro("blocks.html", "notice")(text)


def web_link(url) -> str | None:
    """The paper's URL when it is a plain http(s) address; anything else (javascript:, data:) is dropped."""
    text = str(url or "").strip()
    return text if re.match(r"https?://[^\s<>\"']+$", text, re.IGNORECASE) else None
