"""The interactive 2-D map: one point per paper, coloured by topic, outliers grey."""

from __future__ import annotations

import math
import textwrap

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from papertopics.report.embedding import plotly_text
from papertopics.topics import OUTLIER

_PALETTE = qualitative.Dark24 + qualitative.Light24
OUTLIER_COLOUR = "#b0b0b0"
_MAP_HEIGHT = 620
_LEGEND_COLUMNS = 3
_LEGEND_ROW_HEIGHT = 22


def topic_colour(topic: int) -> str:
    return OUTLIER_COLOUR if topic == OUTLIER else _PALETTE[topic % len(_PALETTE)]


def hover_text(name: str, dumps: str, topic_label: str, abstract: str, hover_chars: int) -> str:
    """Hover label; its texts escaped for plotly, which reads them as a small HTML subset."""
    snippet = abstract if len(abstract) <= hover_chars else abstract[:hover_chars].rsplit(" ", 1)[0] + "…"
    lines = textwrap.wrap(snippet, 70) if hover_chars else []
    parts = [f"<b>{plotly_text(name)}</b>", plotly_text(f"{dumps} · {topic_label}")]
    return "<br>".join(parts + [plotly_text(line) for line in lines])


def _trace(rows: pd.DataFrame, name: str, colour: str, hover_chars: int, symbol: str = "circle") -> go.Scatter:
    return go.Scatter(
        x=rows["x"],
        y=rows["y"],
        mode="markers",
        name=plotly_text(name),
        marker={"color": colour, "size": 7, "symbol": symbol, "line": {"width": 0}},
        customdata=rows[["id"]].to_numpy(),
        hovertext=[
            hover_text(r.display_name, r.dumps, r.topic_label, r.abstract, hover_chars) for r in rows.itertuples()
        ],
        hovertemplate="%{hovertext}<extra></extra>",
        selected={"marker": {"size": 11, "opacity": 1.0}},
        unselected={"marker": {"opacity": 0.12}},
    )


def document_map(papers: pd.DataFrame, topic_labels: dict[int, str], hover_chars: int) -> go.Figure:
    """``papers``: the topics stage's paper table, with ``dumps`` as the text to show."""
    is_outlier = papers["outlier"].astype(str).str.lower().eq("true")
    figure = go.Figure()
    if is_outlier.any():
        figure.add_trace(_trace(papers[is_outlier], "Outliers", OUTLIER_COLOUR, hover_chars))
    clustered = papers[~is_outlier]
    for topic in sorted(clustered["topic"].unique()):
        members = clustered[clustered["topic"] == topic]
        figure.add_trace(
            _trace(members, f"{topic}: {topic_labels[topic]}", topic_colour(topic), hover_chars)
        )
        figure.add_annotation(
            x=members["x"].mean(),
            y=members["y"].mean(),
            text=plotly_text(f"{topic}: {topic_labels[topic]}"),
            showarrow=False,
            font={"size": 12, "color": "#222"},
            bgcolor="rgba(255,255,255,0.7)",
        )
    # The legend sits below the map (beside it, it would cover points); it grows with the topics.
    legend_rows = math.ceil(len(figure.data) / _LEGEND_COLUMNS)
    figure.update_layout(
        height=_MAP_HEIGHT + _LEGEND_ROW_HEIGHT * legend_rows,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis={"visible": False},
        yaxis={"visible": False, "scaleanchor": "x"},
        legend={
            "itemsizing": "constant",
            "font": {"size": 11},
            "orientation": "h",
            "x": 0,
            "y": 0,
            "yanchor": "top",
            "entrywidth": 1 / _LEGEND_COLUMNS,
            "entrywidthmode": "fraction",
        },
        plot_bgcolor="white",
        hovermode="closest",
        clickmode="event",
        dragmode="pan",
    )
    return figure
