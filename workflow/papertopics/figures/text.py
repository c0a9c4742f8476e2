"""Text for plotly labels."""

from __future__ import annotations

import html


def plotly_text(text: str) -> str:
    """Text for a plotly label, which reads a small HTML subset: tags escaped, quotes left as they
    are (plotly would show ``&quot;`` as it stands, and without tags quotes carry no meaning).
    """
    return html.escape(text, quote=False)


def shorten(text: str, chars: int) -> str:
    """``text`` on one line (runs of whitespace as one space) in at most ``chars`` characters: where
    longer, cut after its last whole word that fits, with an ellipsis (mid-word only where the
    first word alone is longer).
    """
    line = " ".join(text.split())
    if len(line) <= chars:
        return line
    cut = line[: chars - 1]
    if line[chars - 1] != " " and " " in cut:  # the cut falls inside a word: drop that word
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "…"


def note_title(text: str) -> dict:
    """A small grey note as a figure's title."""
    return {"text": text, "font": {"size": 13, "color": "#666"}, "x": 0.01, "xanchor": "left"}
