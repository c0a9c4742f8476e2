"""The strategic diagram, as bibliometrix's thematic map draws it: each topic a bubble (its size
the topic's papers) placed by the rank of its Callon centrality (x: how strongly its keywords tie
to the other topics') and of its density (y: how strongly they hold together), as percentiles
among the topics, so that the topics spread over the plane rather than crowd where most values
lie (bibliometrix plots the ranks too); the medians split the plane into the four quadrants,
named. In a multi-period corpus an arrow goes from each topic's place among the first period's
papers to its place among the last's, for the topics with enough papers in both.
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
# Each quadrant's corner: (x, y) in paper coordinates, and the anchors there (the top two just
# above the plot, clear of the labels of the topics highest up).
_CORNERS = {
    "motor": (0.99, 1.0, "right", "bottom"),
    "niche": (0.01, 1.0, "left", "bottom"),
    "emerging or declining": (0.01, 0.01, "left", "bottom"),
    "basic": (0.99, 0.01, "right", "bottom"),
}


# The fewest papers a topic needs in each of the first and last periods for its arrow.
ARROW_MIN_PAPERS = 10


def percentile_ranks(values: pd.Series) -> np.ndarray:
    """Each value's rank among ``values`` as a percentile (the middle of its rank, ties averaged)."""
    return (100 * (values.rank(method="average") - 0.5) / len(values)).to_numpy()


def placed_among(values: pd.Series, reference: pd.Series) -> np.ndarray:
    """``values`` on the percentile scale of ``reference`` (``percentile_ranks``), interpolated
    between its topics' values and held at its ends: a period's value drawn on the diagram's axis.
    """
    order = np.argsort(reference.to_numpy(), kind="stable")
    return np.interp(values.to_numpy(), reference.to_numpy()[order], percentile_ranks(reference)[order])


def _moves(table: pd.DataFrame) -> pd.DataFrame:
    """The topics whose move from the first to the last period is drawn: those with
    ``ARROW_MIN_PAPERS`` papers or more in both (none in a one-period corpus).
    """
    if "first_centrality" not in table:
        return table.iloc[:0]
    return table[(table["first_papers"] >= ARROW_MIN_PAPERS) & (table["last_papers"] >= ARROW_MIN_PAPERS)]


def _move_trace(table: pd.DataFrame, moving: pd.DataFrame) -> go.Scatter:
    """An arrow per topic of ``moving`` from its first period's place to its last's, on the
    diagram's percentile scale.
    """
    first, last = table["first_period"].iloc[0], table["last_period"].iloc[0]
    ends = {
        side: (
            placed_among(moving[f"{side}_centrality"], table["centrality"]),
            placed_among(moving[f"{side}_density"], table["density"]),
        )
        for side in ("first", "last")
    }
    xs, ys, hover = [], [], []
    for i, row in enumerate(moving.itertuples()):
        xs += [ends["first"][0][i], ends["last"][0][i], None]
        ys += [ends["first"][1][i], ends["last"][1][i], None]
        said = f"{row.topic}: {plotly_text(row.label)}"
        hover += [
            f"{said} in {first} ({row.first_papers} papers)",
            f"{said} in {last} ({row.last_papers} papers)",
            "",
        ]
    return go.Scatter(
        x=xs,
        y=ys,
        mode="lines+markers",
        name=plotly_text(f"move from {first} to {last} (topics with {ARROW_MIN_PAPERS}+ papers in both)"),
        line={"color": "#c8c8c8", "width": 1},
        marker={"symbol": "arrow", "angleref": "previous", "size": 9, "color": "#aaa"},
        hovertext=hover,
        hoverinfo="text",
    )


def _topic_trace(table: pd.DataFrame) -> go.Scatter:
    """A bubble per topic at its centrality's and density's percentile, sized by its papers and
    coloured by its quadrant.
    """
    sizes = np.sqrt(table["papers"].to_numpy(dtype=float))
    scale = 40 / sizes.max() if len(sizes) and sizes.max() > 0 else 1.0
    return go.Scatter(
        x=percentile_ranks(table["centrality"]),
        y=percentile_ranks(table["density"]),
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


def _add_quadrants(figure: go.Figure) -> None:
    """The medians' dashed lines and each quadrant's name in its corner."""
    dashed = {"type": "line", "line": {"color": "#666", "dash": "dash", "width": 1}}
    figure.add_shape({**dashed, "x0": 50, "x1": 50, "y0": 0, "y1": 1, "xref": "x", "yref": "paper"})
    figure.add_shape({**dashed, "x0": 0, "x1": 1, "y0": 50, "y1": 50, "xref": "paper", "yref": "y"})
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


def strategic_diagram(table: pd.DataFrame, source: str) -> go.Figure:
    """The diagram of ``table`` (``strategic.csv``'s rows); ``source``: which keywords it counts
    (``papertopics.topics.strategic.keyword_source``), said in the axis title.
    """
    figure = go.Figure()
    moving = _moves(table)
    if len(moving) >= 2:
        figure.add_trace(_move_trace(table, moving))
    figure.add_trace(_topic_trace(table))
    _add_quadrants(figure)
    axis = {"range": [-4, 108], "gridcolor": "#eee", "zeroline": False}
    figure.update_layout(
        height=600,
        margin={"l": 10, "r": 10, "t": 30, "b": 70},
        xaxis={**axis, "title": f"centrality, percentile among the topics (ties to the others; {source})"},
        yaxis={**axis, "title": "density, percentile (how its keywords hold together)"},
        legend={"orientation": "h", "x": 0, "y": -0.1, "yanchor": "top"},  # the quadrants' names above
        plot_bgcolor="white",
        showlegend=len(moving) >= 2,
    )
    return figure
