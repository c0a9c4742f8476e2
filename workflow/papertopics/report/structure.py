"""Topic structure: the intertopic map, and BERTopic's hierarchy and similarity heatmap."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from papertopics.report.document_map import topic_colour
from papertopics.report.embedding import plotly_text
from papertopics.topics import OUTLIER

# Fewest non-outlier topics each figure can be drawn from.
MIN_TOPICS = {"keywords": 1, "intertopic": 2, "hierarchy": 2, "heatmap": 2}
_LARGEST_BUBBLE_PX = 70
# Beyond this many topics the heatmap's rows would be thinner than its labels' text: it shows the largest.
MAX_HEATMAP_TOPICS = 40
_HIERARCHY_ROW_PX = 30


def too_few_topics(kind: str, n_topics: int) -> str | None:
    """Why a figure of ``kind`` cannot be drawn from ``n_topics`` topics, or None if it can."""
    needed = MIN_TOPICS[kind]
    return f"This chart needs at least {needed} topics; this corpus has {n_topics}." if n_topics < needed else None


def intertopic_map(papers: pd.DataFrame, topic_details: list[dict]) -> go.Figure:
    """Each topic a circle at the centre of its papers on the 2-d map, its area their number.

    BERTopic's intertopic distance map runs UMAP again on the c-TF-IDF vectors (a fresh numba
    compilation per process); this one reuses the paper map's layout, so the two read together.
    """
    topics = [t for t in topic_details if t["topic"] != OUTLIER]
    centres = papers[papers["topic"] != OUTLIER].groupby("topic")[["x", "y"]].mean()
    sizes = [t["size"] for t in topics]
    figure = go.Figure(
        go.Scatter(
            x=[centres.at[t["topic"], "x"] for t in topics],
            y=[centres.at[t["topic"], "y"] for t in topics],
            mode="markers+text",
            text=[str(t["topic"]) for t in topics],
            textfont={"size": 11, "color": "#222"},
            marker={
                "size": sizes,
                "sizemode": "area",
                "sizeref": 2 * max(sizes) / _LARGEST_BUBBLE_PX**2,
                "sizemin": 4,
                "color": [topic_colour(t["topic"]) for t in topics],
                "opacity": 0.55,
                "line": {"width": 1, "color": "#555"},
            },
            hovertext=[plotly_text(f"{t['topic']}: {t['label']} · {t['size']} papers") for t in topics],
            hovertemplate="%{hovertext}<extra></extra>",
        )
    )
    figure.update_layout(
        width=700,
        height=600,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis={"visible": False},
        yaxis={"visible": False, "scaleanchor": "x"},
        plot_bgcolor="white",
        showlegend=False,
    )
    return figure


def _note(text: str) -> dict:
    return {"text": text, "font": {"size": 13, "color": "#666"}, "x": 0.01, "xanchor": "left"}


def merged_line_traces(figure: go.Figure) -> go.Figure:
    """The figure with its plain line traces of one colour merged into one trace (gaps between
    them): BERTopic draws each link of the dendrogram as a trace of its own, which plotly lays out
    one by one (about 1.4 s at 150 topics); a trace per colour draws the same picture."""
    groups: dict[tuple, list] = {}
    others = []
    for trace in figure.data:
        if trace.type == "scatter" and trace.mode == "lines" and trace.hovertext is None and trace.text is None:
            groups.setdefault((trace.marker.color, trace.line.color, trace.xaxis, trace.yaxis), []).append(trace)
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
    (report.css), and says so."""
    figure = merged_line_traces(
        model.visualize_hierarchy(custom_labels=True, title="", width=900, height=max(300, _HIERARCHY_ROW_PX * n_topics))
    )
    if n_topics > 25:
        figure.update_layout(title=_note(f"All {n_topics} topics: scroll within the chart to see them."))
    return figure


def topic_similarity_heatmap(model, n_topics: int):
    """The similarity of every two topics, of the largest ``MAX_HEATMAP_TOPICS`` where there are more."""
    shown = min(n_topics, MAX_HEATMAP_TOPICS)
    side = min(900, max(400, 28 * shown))
    figure = model.visualize_heatmap(
        top_n_topics=shown if shown < n_topics else None,
        custom_labels=True,
        title="",
        width=side + 200,
        height=side,
    )
    if shown < n_topics:
        figure.update_layout(
            title=_note(f"The {shown} largest of {n_topics} topics (every topic is in the hierarchy above).")
        )
    return figure
