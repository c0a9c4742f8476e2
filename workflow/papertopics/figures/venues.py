"""The topic × venue heatmap of the Venues section: each cell the topic's share of the venue's
papers, coloured by the cell's adjusted residual (red: the venue holds more of the topic than the
others do, blue: fewer), graded cells marked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

# Residuals beyond this are drawn in the strongest colour.
_RESIDUAL_RANGE = 4.0
_MARKS = {"significant": "●", "suggestive": "○"}


def venue_heatmap(cells: pd.DataFrame, venue_names: dict[str, str] | None = None) -> go.Figure:
    """The heatmap of ``cells`` (rows of ``venues.csv``: venue, topic, label, papers, share, low,
    high, residual, q, grade); ``venue_names``: what readers see for a venue.
    """
    venues = list(dict.fromkeys(cells["venue"].tolist()))
    topics = list(dict.fromkeys(cells["topic"].tolist()))
    table = cells.set_index(["topic", "venue"])
    labels = cells.groupby("topic", sort=False)["label"].first()
    shown = [(venue_names or {}).get(v, v) for v in venues]
    rows = [f"{t}: {labels[t]}"[:48] for t in topics]

    def grid(column: str) -> np.ndarray:
        return np.array([[table.loc[(t, v), column] for v in venues] for t in topics])

    residual, share, grade = grid("residual").astype(float), grid("share").astype(float), grid("grade")
    low, high, papers, q = grid("low"), grid("high"), grid("papers"), grid("q")
    hover = [
        [
            f"{rows[i]}<br>{shown[j]}: {100 * share[i, j]:.1f}% ({papers[i, j]} papers, "
            f"{100 * low[i, j]:.1f}–{100 * high[i, j]:.1f}%)<br>residual {residual[i, j]:+.2f}, "
            f"q = {float(q[i, j]):.2g}: {grade[i, j]}"
            for j in range(len(venues))
        ]
        for i in range(len(topics))
    ]
    text = [
        [f"{100 * share[i, j]:.1f}%{_MARKS.get(grade[i, j], '')}" for j in range(len(venues))]
        for i in range(len(topics))
    ]
    figure = go.Figure(
        go.Heatmap(
            z=np.clip(residual, -_RESIDUAL_RANGE, _RESIDUAL_RANGE),
            x=shown,
            y=rows,
            text=text,
            texttemplate="%{text}",
            hovertext=hover,
            hoverinfo="text",
            zmid=0,
            zmin=-_RESIDUAL_RANGE,
            zmax=_RESIDUAL_RANGE,
            colorscale="RdBu_r",
            colorbar={"title": {"text": "residual"}},
        )
    )
    figure.update_layout(
        height=max(320, 26 * len(topics) + 140),
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        yaxis={"autorange": "reversed", "automargin": True},
        xaxis={"side": "top", "automargin": True},
    )
    return figure
