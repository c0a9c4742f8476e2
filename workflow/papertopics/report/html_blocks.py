"""Safe embedding of data and figures into the page.

Data for scripts goes into ``<script type="application/gzip+base64">`` blocks: gzip-compressed,
then base64-encoded, so no text (an abstract holding ``</script>``, say) can close the tag;
visible text is always HTML-escaped.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re

import plotly.io


def gzip_block(block_id: str, content: str | bytes) -> str:
    """Text (UTF-8) or bytes gzip-compressed and base64-encoded (no ``<`` can occur in it); the page's
    script unpacks it with the browser's DecompressionStream. A table of abstracts shrinks to about a third.
    """
    data = content.encode("utf-8") if isinstance(content, str) else content
    packed = base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)).decode("ascii")
    return f'<script type="application/gzip+base64" id="{html.escape(block_id)}">{packed}</script>'


def packed_json_block(block_id: str, value) -> str:
    """JSON for the page's script, compressed as ``gzip_block`` (the page parses it once unpacked)."""
    return gzip_block(block_id, json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def figure_block(figure_id: str, figure, height: int | None = None) -> str:
    """A placeholder div plus the figure's JSON, compressed; the page's script draws it with plotly.js."""
    spec = json.loads(plotly.io.to_json(figure, validate=False))
    style = f' style="height:{int(height)}px"' if height else ""
    return (
        f'<div class="figure" id="{html.escape(figure_id)}" data-figure="{html.escape(figure_id)}-data"{style}></div>'
        + packed_json_block(f"{figure_id}-data", spec)
    )


def text_block(block_id: str, text: str) -> str:
    """Text the page's script reads but the browser does not run (the search worker's script).
    The text must hold no ``</script`` (``papertopics.report.bundle`` checks its modules for it).
    """
    if "</script" in text.lower():
        raise ValueError(f"text block {block_id!r} holds '</script', which would end the element")
    return f'<script type="text/plain" id="{html.escape(block_id)}">{text}</script>'


def notice(text: str) -> str:
    """A short escaped note shown in place of a chart that cannot be drawn."""
    return f'<p class="notice">{html.escape(text)}</p>'


def definition_list(items: dict) -> str:
    """Names and values as an HTML definition list, both escaped."""
    rows = "".join(
        f"<dt>{html.escape(str(key))}</dt><dd>{html.escape(str(value))}</dd>" for key, value in items.items()
    )
    return f"<dl>{rows}</dl>"


def web_link(url) -> str | None:
    """The paper's URL when it is a plain http(s) address; anything else (javascript:, data:) is dropped."""
    text = str(url or "").strip()
    return text if re.match(r"https?://[^\s<>\"']+$", text, re.IGNORECASE) else None
