"""A forest plot of one reception measure (acceptance, mean rating, citations for their year), as
bibliometric and clinical reports draw a value per group: one row per tested topic, sorted by its
value, the value with its interval, the rest's value beside it as a tick, significant and
suggestive topics marked as the venues' heatmap and the trends mark them (● and ○).
"""

from __future__ import annotations

import plotly.graph_objects as go

from papertopics.figures.text import plotly_text, shorten

MARKS = {"significant": "●", "suggestive": "○"}
_ROW_PX = 20
_LABEL_CHARS = 44
_COLOURS = {"significant": "#1f5fa8", "suggestive": "#6f9bd1"}
_OTHER = "#8a8a8a"
# How each measure's values are drawn and said: axis title, scale, hover format.
_AXES = {
    "acceptance": ("% accepted", 100.0, "{:.0f}%"),
    "rating": ("mean rating", 1.0, "{:.2f}"),
    "citations": ("citations over their year's mean (1 = the mean)", 1.0, "{:.2f}×"),
}


def forest_rows(rows: list[dict], measure: str) -> list[dict]:
    """The rows of ``measure`` (reception.json's ``topics``) that were tested and have a value,
    sorted by value, highest first (ties by topic).
    """
    tested = [
        row
        for row in rows
        if row["measure"] == measure and row["value"] is not None and row["evidence"] != "not tested"
    ]
    return sorted(tested, key=lambda row: (-row["value"], row["topic"]))


def forest_plot(rows: list[dict], measure: str) -> go.Figure:
    """The forest plot of ``measure`` over ``forest_rows``: each topic's value and interval (blue
    where significant or suggestive, grey otherwise), the rest's value as a tick on its row.
    """
    shown = forest_rows(rows, measure)
    title, scale, number = _AXES[measure]
    # Plotly draws the first category at the bottom: the highest value goes last, to the top.
    drawn = list(reversed(shown))
    names = [
        plotly_text(
            f"{MARKS.get(row['evidence'], '')}{' ' if row['evidence'] in MARKS else ''}"
            f"{row['topic']}: {shorten(row['label'], _LABEL_CHARS)}"
        )
        for row in drawn
    ]
    values = [scale * row["value"] for row in drawn]
    low = [scale * (row["low"] if row["low"] is not None else row["value"]) for row in drawn]
    high = [scale * (row["high"] if row["high"] is not None else row["value"]) for row in drawn]
    hover = [
        f"{row['topic']}: {plotly_text(row['label'])}<br>{number.format(scale * row['value'])} "
        f"({number.format(low_value)}–{number.format(high_value)}) of {row['papers']} papers; "
        f"elsewhere {number.format(scale * row['rest'])}<br>q = {row['q_value']:.2g}: {row['evidence']}"
        f"{', ' + row['direction'] if row['direction'] else ''}"
        for row, low_value, high_value in zip(drawn, low, high, strict=True)
    ]
    figure = go.Figure()
    figure.add_trace(
        go.Scatter(
            x=[scale * row["rest"] for row in drawn],
            y=names,
            mode="markers",
            name="the rest (elsewhere)",
            marker={"symbol": "line-ns-open", "size": 14, "color": "#222", "line": {"width": 2}},
            hoverinfo="skip",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=values,
            y=names,
            mode="markers",
            name="the topic, with its 95% interval",
            marker={
                "color": [_COLOURS.get(row["evidence"], _OTHER) for row in drawn],
                "size": 8,
                "symbol": ["circle" if row["evidence"] != "suggestive" else "circle-open" for row in drawn],
                "line": {"width": 2, "color": [_COLOURS.get(row["evidence"], _OTHER) for row in drawn]},
            },
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [h - v for h, v in zip(high, values, strict=True)],
                "arrayminus": [v - lo for v, lo in zip(values, low, strict=True)],
                "color": "#555",
                "thickness": 1.2,
                "width": 3,
            },
            hovertext=hover,
            hoverinfo="text",
        )
    )
    figure.update_layout(
        height=110 + _ROW_PX * len(drawn),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        xaxis={"title": title, "gridcolor": "#eee", "zeroline": False},
        yaxis={"automargin": True, "tickfont": {"size": 11}},
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"},
        plot_bgcolor="white",
    )
    return figure
