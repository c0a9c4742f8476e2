"""BERTopic's topic hierarchy, every topic a row of readable height."""

from __future__ import annotations

import plotly.graph_objects as go

from papertopics.figures.text import note_title

_HIERARCHY_ROW_PX = 30
_SCROLLS_BEYOND = 25


def merged_line_traces(figure: go.Figure) -> go.Figure:
    """The figure with its plain line traces of one colour merged into one trace (gaps between
    them): BERTopic draws each link of the dendrogram as a trace of its own, which plotly lays out
    one by one, slowly at a hundred topics and more; a trace per colour draws the same picture.
    """
    groups: dict[tuple, list] = {}
    others = []
    for trace in figure.data:
        if (
            trace.type == "scatter"
            and trace.mode == "lines"
            and trace.hovertext is None
            and trace.text is None
        ):
            groups.setdefault((trace.marker.color, trace.line.color, trace.xaxis, trace.yaxis), []).append(
                trace
            )
        else:
            others.append(trace)
    merged = []
    for traces in groups.values():
        x, y = [], []
        for trace in traces:
            x += [*trace.x, None]
            y += [*trace.y, None]
        merged.append(traces[0].update(x=x, y=y))
    figure.data = tuple(merged + others)
    return figure


def topic_hierarchy(model, n_topics: int):
    """Every topic a row of readable height; past about 25 topics the chart scrolls in its frame
    (report.css), and says so.
    """
    figure = merged_line_traces(
        model.visualize_hierarchy(
            custom_labels=True, title="", width=900, height=max(300, _HIERARCHY_ROW_PX * n_topics)
        )
    )
    if n_topics > _SCROLLS_BEYOND:
        figure.update_layout(title=note_title(f"All {n_topics} topics: scroll within the chart to see them."))
    return figure
