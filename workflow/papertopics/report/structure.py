"""Topic structure: the intertopic map (BERTopic's hierarchy and heatmap are drawn by the topics
stage, ``papertopics.figures``).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from papertopics.figures.text import plotly_text
from papertopics.mapping.cluster import OUTLIER

_LARGEST_BUBBLE_PX = 70


def intertopic_map(papers: pd.DataFrame, topic_details: list[dict], colours: dict[int, str]) -> go.Figure:
    """Each topic a circle at the centre of its papers on the 2-d map, its area their number, in
    its colour on the map (``colours``).

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
                "color": [colours[t["topic"]] for t in topics],
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
