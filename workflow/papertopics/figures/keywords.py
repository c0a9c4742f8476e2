"""Topic keywords: BERTopic's c-TF-IDF bar chart for the largest topics.

BERTopic titles each small chart with the topic's whole label on one line, wider than the chart
at the usual label lengths, so that neighbouring titles run into each other; here each title is
wrapped to its chart's width (at most three lines, the full label on hover).
"""

from __future__ import annotations

import textwrap

from papertopics.figures.text import plotly_text

_MAX_TOPICS_IN_CHART = 12
_CHART_WIDTH = 260
_COLUMNS = 4  # BERTopic's
_COLUMN_SPACING = 0.1  # BERTopic's horizontal spacing, a share of the plotting area
_TITLE_FONT_SIZE = 13
_TITLE_LINES = 3
_CHAR_WIDTH = 0.6  # of the font size: a wide average, so that titles rather wrap early than overlap


def title_lines(label: str, chars: int) -> list[str]:
    """``label`` in lines of at most ``chars`` characters, at most three, the last cut with … ."""
    lines = textwrap.wrap(label, chars, break_long_words=True) or [""]
    if len(lines) > _TITLE_LINES:
        lines = lines[:_TITLE_LINES]
        lines[-1] = lines[-1][: chars - 1] + "…"
    return lines


def keyword_barchart(model, n_topics: int, n_words: int = 8):
    """Bar charts of the largest topics' top keywords, one panel per topic, with titles that fit."""
    figure = model.visualize_barchart(
        top_n_topics=min(n_topics, _MAX_TOPICS_IN_CHART),
        n_words=n_words,
        custom_labels=True,
        title="",
        width=_CHART_WIDTH,
        height=_CHART_WIDTH,
    )
    margin = {"l": 80, "r": 80}  # plotly's defaults, made explicit: the columns' width depends on them
    plot_width = _CHART_WIDTH * _COLUMNS - margin["l"] - margin["r"]
    column_px = plot_width * (1 - _COLUMN_SPACING * (_COLUMNS - 1)) / _COLUMNS
    chars = max(8, int(column_px / (_CHAR_WIDTH * _TITLE_FONT_SIZE)))
    for title in figure.layout.annotations:
        label = title.text
        title.update(
            text="<br>".join(plotly_text(line) for line in title_lines(label, chars)),
            font={"size": _TITLE_FONT_SIZE},
            hovertext=plotly_text(label),
        )
    figure.update_layout(margin={**margin, "t": 20 + _TITLE_LINES * _TITLE_FONT_SIZE * 1.3})
    return figure
