"""The strategic diagram, as bibliometrix's thematic map draws it: each topic a bubble (its size
the topic's papers) at its Callon centrality (x: how strongly its keywords tie to the other
topics') and density (y: how strongly they hold together), the medians splitting the plane into
the four quadrants, named; in a multi-period corpus an arrow from each topic's place among the
first period's papers to its place among the last's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from papertopics.figures.text import plotly_text, shorten

_LABEL_CHARS = 28
_QUADRANT_COLOURS = {
    "motor": "#1f5fa8",
    "niche": "#2a9d8f",
    "emerging or declining": "#9a9a9a",
    "basic": "#e07a1f",
}
# Each quadrant's corner: (x, y) in paper coordinates, and the anchors there.
_CORNERS = {
    "motor": (0.99, 0.99, "right", "top"),
    "niche": (0.01, 0.99, "left", "top"),
    "emerging or declining": (0.01, 0.01, "left", "bottom"),
    "basic": (0.99, 0.01, "right", "bottom"),
}


def strategic_diagram(table: pd.DataFrame, source: str) -> go.Figure:
    """The diagram of ``table`` (``strategic.csv``'s rows); ``source``: which keywords it counts
    (``papertopics.topics.strategic.keyword_source``), said in the axis titles' note.
    """
    figure = go.Figure()
    if "first_centrality" in table:
        first, last = table["first_period"].iloc[0], table["last_period"].iloc[0]
        xs, ys = [], []
        for row in table.itertuples():
            xs += [row.first_centrality, row.last_centrality, None]
            ys += [row.first_density, row.last_density, None]
        figure.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines+markers",
                name=plotly_text(f"move from {first} to {last}"),
                line={"color": "#bbb", "width": 1},
                marker={"symbol": "arrow", "angleref": "previous", "size": 9, "color": "#999"},
                hoverinfo="skip",
            )
        )
    sizes = np.sqrt(table["papers"].to_numpy(dtype=float))
    scale = 40 / sizes.max() if len(sizes) and sizes.max() > 0 else 1.0
    figure.add_trace(
        go.Scatter(
            x=table["centrality"],
            y=table["density"],
            mode="markers+text",
            name="topics",
            text=[plotly_text(shorten(label, _LABEL_CHARS)) for label in table["label"]],
            textposition="top center",
            textfont={"size": 10},
            marker={
                "size": np.maximum(sizes * scale, 6),
                "color": [_QUADRANT_COLOURS[q] for q in table["quadrant"]],
                "opacity": 0.6,
                "line": {"width": 1, "color": "#fff"},
            },
            hovertext=[
                f"{row.topic}: {plotly_text(row.label)}<br>{row.papers} papers; {row.quadrant}<br>"
                f"centrality {row.centrality:.2f}, density {row.density:.2f}<br>"
                f"keywords: {plotly_text(shorten(row.keywords, 120))}"
                for row in table.itertuples()
            ],
            hoverinfo="text",
        )
    )
    centre_x, centre_y = float(np.median(table["centrality"])), float(np.median(table["density"]))
    for axis, value in (("x", centre_x), ("y", centre_y)):
        line = {"type": "line", "line": {"color": "#666", "dash": "dash", "width": 1}}
        if axis == "x":
            line.update(x0=value, x1=value, y0=0, y1=1, xref="x", yref="paper")
        else:
            line.update(x0=0, x1=1, y0=value, y1=value, xref="paper", yref="y")
        figure.add_shape(line)
    for quadrant, (x, y, xanchor, yanchor) in _CORNERS.items():
        figure.add_annotation(
            text=quadrant,
            x=x,
            y=y,
            xref="paper",
            yref="paper",
            xanchor=xanchor,
            yanchor=yanchor,
            showarrow=False,
            font={"size": 13, "color": _QUADRANT_COLOURS[quadrant]},
        )
    figure.update_layout(
        height=560,
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        xaxis={
            "title": f"centrality (ties to other topics; {source})",
            "gridcolor": "#eee",
            "zeroline": False,
        },
        yaxis={"title": "density (how its keywords hold together)", "gridcolor": "#eee", "zeroline": False},
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"},
        plot_bgcolor="white",
        showlegend="first_centrality" in table,
    )
    return figure
