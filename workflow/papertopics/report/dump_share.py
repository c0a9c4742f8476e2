"""Topic share per dump: how each dump's papers spread over the topics."""

from __future__ import annotations

import plotly.graph_objects as go

from papertopics.figures.text import plotly_text
from papertopics.report.document_map import topic_colour


def dump_share_chart(
    shares: dict[str, dict[int, float]], topic_labels: dict[int, str], dump_labels: dict[str, str]
) -> go.Figure:
    """Each topic's share of each dump, as stacked horizontal bars, one bar per dump."""
    dumps = sorted(shares)
    rows = [plotly_text(dump_labels[d]) for d in dumps]
    figure = go.Figure()
    for topic, label in topic_labels.items():
        name = plotly_text(f"{topic}: {label}")
        figure.add_trace(
            go.Bar(
                y=rows,
                x=[100 * shares[d].get(topic, 0.0) for d in dumps],
                name=name,
                orientation="h",
                marker_color=topic_colour(topic),
                hovertemplate="%{y}: %{x:.1f}%<extra>" + name + "</extra>",
            )
        )
    figure.update_layout(
        barmode="stack",
        height=140 + 40 * len(dumps),
        xaxis={"title": "% of the dump's papers", "range": [0, 100]},
        margin={"l": 10, "r": 10, "t": 10, "b": 40},
        yaxis={"automargin": True},
        legend={"font": {"size": 10}},
    )
    return figure
