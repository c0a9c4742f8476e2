"""The interactive 2-D map: one WebGL point per paper, coloured by topic, with labels in layers.

A paper HDBSCAN left out and the topics stage assigned to its nearest topic is drawn in a lighter
shade of that topic's colour; only papers without a topic are grey.

The map is not a plotly figure built in Python: at 100,000 papers its per-paper arrays are most
of what the page holds, so they go into one compressed JSON block (``map-data``) that the page's
script turns into a single ``scattergl`` trace. The script also places the
labels (topic groups zoomed out, topics zoomed in) by their measured boxes; here each label
gets its text, its place (the median of its papers) and its weight (its number of papers).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from plotly.colors import qualitative

from papertopics.figures.text import plotly_text
from papertopics.report.embedding import packed_json_block, web_link
from papertopics.topics import OUTLIER

_PALETTE = qualitative.Dark24 + qualitative.Light24
OUTLIER_COLOUR = "#b0b0b0"
# A paper HDBSCAN left out but assigned to its nearest topic: the topic's colour this far towards white.
_ASSIGNED_LIGHTNESS = 0.55
_LABEL_LINE_CHARS = 26
_LABEL_LINES = 2
_MAP_HEIGHT = 680


def topic_colour(topic: int) -> str:
    """A topic's colour in the map and charts; grey for papers without a topic."""
    return OUTLIER_COLOUR if topic == OUTLIER else _PALETTE[topic % len(_PALETTE)]


def lighter(colour: str, amount: float = _ASSIGNED_LIGHTNESS) -> str:
    """``colour`` (#rrggbb) mixed with white; ``amount`` 0 keeps it, 1 gives white."""
    channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in channels)


def map_label(text: str) -> str:
    """A label for the map: at most two short lines (plotly-escaped, joined by <br>), cut with … ."""
    lines = textwrap.wrap(text, _LABEL_LINE_CHARS, break_long_words=True) or [""]
    if len(lines) > _LABEL_LINES:
        lines = lines[:_LABEL_LINES]
        lines[-1] = lines[-1][: _LABEL_LINE_CHARS - 1] + "…"
    return "<br>".join(plotly_text(line) for line in lines)


def marker_size(n_papers: int) -> float:
    """Points shrink as papers grow in number, so that dense regions still show their structure."""
    return round(float(np.clip(30 / max(n_papers, 1) ** 0.25, 2.5, 7.0)), 2)


def _label_place(rows: pd.DataFrame) -> tuple[float, float]:
    """The median of the papers HDBSCAN put in the topic (all of its papers if it kept none)."""
    core = rows[~rows["outlier"]]
    rows = core if len(core) else rows
    return round(float(rows["x"].median()), 5), round(float(rows["y"].median()), 5)


def map_data(papers: pd.DataFrame, topic_details: list[dict], groups: list[dict], hover_chars: int) -> dict:
    """Everything the page's script needs to draw the map, show a paper and label the map.

    ``papers``: the topics stage's paper table as ``ReportInputs`` holds it (``outlier`` as booleans),
    with ``dumps`` as the text to show. The script
    writes the hover labels (name, dumps, topic, then the first ``hover_chars`` characters of the
    abstract once the abstracts are unpacked), so that no text is in the file twice.
    """
    order = [t["topic"] for t in topic_details]
    position = {topic: i for i, topic in enumerate(order)}
    topic_index = papers["topic"].map(position).astype(int).tolist()
    urls = [web_link(u) for u in papers["url"]] if "url" in papers.columns else []
    places = {topic: _label_place(rows) for topic, rows in papers.groupby("topic")}
    topic_labels = [
        {
            "text": map_label(f"{t['topic']}: {t['label']}"),
            "x": places[t["topic"]][0],
            "y": places[t["topic"]][1],
            "size": t["size"],
        }
        for t in topic_details
        if t["topic"] != OUTLIER and t["topic"] in places
    ]
    group_labels = []
    for group in groups:
        rows = papers[papers["topic"].isin(group["topics"])]
        if len(rows):
            x, y = _label_place(rows)
            group_labels.append({"text": map_label(group["label"]), "x": x, "y": y, "size": group["size"]})
    x, y = papers["x"].to_numpy(dtype=float), papers["y"].to_numpy(dtype=float)
    span = [max(np.ptp(values), 1e-9) if len(values) else 1.0 for values in (x, y)]
    ranges = [
        [round(float(values.min() - 0.03 * s), 5), round(float(values.max() + 0.03 * s), 5)]
        if len(values)
        else [0, 1]
        for values, s in zip((x, y), span, strict=True)
    ]
    return {
        "ids": papers["id"].tolist(),
        "names": papers["display_name"].tolist(),
        "dumps": papers["dumps"].tolist(),
        "topic": topic_index,
        "outlier": papers["outlier"].astype(int).tolist(),
        "urls": urls,
        "topics": [
            {
                "topic": t["topic"],
                "label": t["label"],
                "colour": topic_colour(t["topic"]),
                "assigned_colour": topic_colour(t["topic"])
                if t["topic"] == OUTLIER
                else lighter(topic_colour(t["topic"])),
            }
            for t in topic_details
        ],
        "x": papers["x"].round(5).tolist(),
        "y": papers["y"].round(5).tolist(),
        "hover_chars": hover_chars,
        "marker_size": marker_size(len(papers)),
        "ranges": ranges,
        "height": _MAP_HEIGHT,
        "labels": {"groups": group_labels, "topics": topic_labels},
    }


def document_map_block(
    papers: pd.DataFrame, topic_details: list[dict], groups: list[dict], hover_chars: int
) -> str:
    """The map's placeholder and its compressed data; the page's script draws it."""
    return (
        f'<div class="figure" id="document-map" data-map="map-data" style="height:{_MAP_HEIGHT}px"></div>'
        + packed_json_block("map-data", map_data(papers, topic_details, groups, hover_chars))
    )
