"""Topic share per dump: how each dump's papers spread over the topics."""

from __future__ import annotations

import plotly.graph_objects as go

from papertopics.figures.text import plotly_text
from papertopics.report.colours import OUTLIER_COLOUR
from papertopics.report.topic_table import DumpCounts


def dump_share_chart(
    per_dump: DumpCounts,
    topic_labels: dict[int, str],
    dump_labels: dict[str, str],
    colours: dict[int, str],
) -> go.Figure:
    """One stacked bar per dump, a segment per topic in its map colour (``colours``; the outliers
    grey), named with its count on hover.

    All segments are one trace with a colour per bar: a trace per topic costs plotly a pass over
    every trace, slow to draw at a hundred topics and more.
    """
    dumps = per_dump.dumps
    rows, values, counts, segment_colours, names = [], [], [], [], []
    for topic, label in topic_labels.items():
        for dump in dumps:
            rows.append(plotly_text(dump_labels[dump]))
            values.append(100 * per_dump.share(dump, topic))
            counts.append(f"{per_dump.count(dump, topic)} of {per_dump.totals[dump]}")
            segment_colours.append(colours.get(topic, OUTLIER_COLOUR))
            names.append(plotly_text(f"{topic}: {label}"))
    figure = go.Figure(
        go.Bar(
            y=rows,
            x=values,
            customdata=list(zip(names, counts, strict=True)),
            orientation="h",
            marker={"color": segment_colours, "line": {"width": 0}},
            hovertemplate="%{y}: %{x:.1f}% (%{customdata[1]} papers)<extra>%{customdata[0]}</extra>",
            showlegend=False,
        )
    )
    figure.update_layout(
        barmode="stack",
        height=140 + 40 * len(dumps),
        xaxis={"title": "% of the dump's papers", "range": [0, 100]},
        margin={"l": 10, "r": 10, "t": 10, "b": 40},
        yaxis={"automargin": True},
    )
    return figure
