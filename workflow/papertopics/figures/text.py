"""Text for plotly labels."""

from __future__ import annotations

import html


def plotly_text(text: str) -> str:
    """Text for a plotly label, which reads a small HTML subset: tags escaped, quotes left as they
    are (plotly would show ``&quot;`` as it stands, and without tags quotes carry no meaning).
    """
    return html.escape(text, quote=False)


def note_title(text: str) -> dict:
    """A small grey note as a figure's title."""
    return {"text": text, "font": {"size": 13, "color": "#666"}, "x": 0.01, "xanchor": "left"}
