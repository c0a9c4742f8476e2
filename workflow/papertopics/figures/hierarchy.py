"""The topic hierarchy: the coarse topic groups the map shows zoomed out and the report lists
(``papertopics.topics.topic_groups``), each under its name, and within each group the tree of its
topics, every topic a row of readable height.

BERTopic's own hierarchy (Ward linkage of the topics' c-TF-IDF) was a second clustering, whose
branches did not match the groups the map and the report name: a reader saw two hierarchies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

from papertopics.figures.text import note_title, plotly_text

_HIERARCHY_ROW_PX = 30
_SCROLLS_BEYOND = 25


@dataclass(frozen=True)
class GroupedTopics:
    """The topics as the report groups them.

    Attributes:
        labels: each topic's label (outliers left out).
        sizes: each topic's papers.
        centroids: each topic's centroid in the embedding space (unit length).
        groups: the coarse groups (``topic_groups``' records with their ``label``), largest first;
            none where the run has no coarse layer.
    """

    labels: dict[int, str]
    sizes: dict[int, int]
    centroids: dict[int, np.ndarray]
    groups: list[dict]


@dataclass(frozen=True)
class Branch:
    """One group's rows: its name (None where the run has no groups), its topics top to bottom,
    and its tree's links, each four (distance, row) points of a dendrogram's bracket.
    """

    label: str | None
    topics: list[int]
    links: list[tuple[list[float], list[float]]]


def group_branches(grouped: GroupedTopics) -> list[Branch]:
    """Each group's branch, largest group first; one unnamed branch of all topics where there are no
    groups. Within a group, its topics are joined by average linkage of their centroids (cosine):
    which of its topics are nearest each other.
    """
    # SciPy loads only in the job that draws the figures.
    from scipy.cluster.hierarchy import dendrogram, linkage

    groups = grouped.groups or [
        {"label": None, "topics": sorted(grouped.labels, key=lambda t: (-grouped.sizes[t], t))}
    ]
    branches = []
    for group in groups:
        topics = list(group["topics"])
        if len(topics) < 2:
            branches.append(Branch(group["label"], topics, []))
            continue
        centroids = np.stack([grouped.centroids[t] for t in topics]).astype(np.float64)
        tree = dendrogram(
            linkage(centroids, method="average", metric="cosine", optimal_ordering=True), no_plot=True
        )
        # SciPy places leaf i at 5 + 10 i; here leaf i is row i of the group.
        links = [
            (list(distances), [(position - 5) / 10 for position in positions])
            for positions, distances in zip(tree["icoord"], tree["dcoord"], strict=True)
        ]
        branches.append(Branch(group["label"], [topics[leaf] for leaf in tree["leaves"]], links))
    return branches


def topic_hierarchy(grouped: GroupedTopics) -> go.Figure:
    """The groups top to bottom, largest first, each its name in bold (in its colour) over its
    topics and their tree (``group_branches``); past about 25 topics the chart scrolls in its
    frame (report.css), and says so.
    """
    colours = qualitative.D3
    figure = go.Figure()
    ticks: list[tuple[float, str]] = []
    row = 0
    for number, branch in enumerate(group_branches(grouped)):
        colour = colours[number % len(colours)]
        if branch.label is not None:
            size = sum(grouped.sizes[t] for t in branch.topics)
            ticks.append((-row, f'<span style="color:{colour}"><b>{plotly_text(branch.label)}</b></span>'))
            figure.add_trace(
                _marker([row], colour, [f"{branch.label}: {len(branch.topics)} topics, {size:,} papers"], 9)
            )
            row += 1
        first = row
        if branch.links:  # a group of one topic has none
            figure.add_trace(_links(branch.links, first, colour))
        for topic in branch.topics:
            ticks.append((-row, plotly_text(grouped.labels[topic])))
            row += 1
        hovers = [f"{grouped.labels[t]}: {grouped.sizes[t]:,} papers" for t in branch.topics]
        figure.add_trace(_marker(list(range(first, row)), colour, hovers, 6))
    n_topics = len(grouped.labels)
    figure.update_layout(
        width=900,
        height=max(300, _HIERARCHY_ROW_PX * row),
        showlegend=False,
        plot_bgcolor="white",
        margin={"t": 40},
        xaxis={"title": "cosine distance between the topics' centroids", "rangemode": "tozero"},
        yaxis={
            "tickmode": "array",
            "tickvals": [value for value, _ in ticks],
            "ticktext": [text for _, text in ticks],
            "range": [-row + 0.5, 0.5],
            "showgrid": False,
            "zeroline": False,
        },
    )
    if n_topics > _SCROLLS_BEYOND:
        figure.update_layout(title=note_title(f"All {n_topics} topics: scroll within the chart to see them."))
    return figure


def _links(links: list[tuple[list[float], list[float]]], first: int, colour: str) -> go.Scatter:
    """A branch's links as one trace (gaps between them), its rows from ``first`` down: plotly lays
    out a trace at a time, slowly at a hundred traces and more.
    """
    x: list[float | None] = []
    y: list[float | None] = []
    for distances, rows in links:
        x += [*distances, None]
        y += [-(first + r) for r in rows] + [None]
    return go.Scatter(x=x, y=y, mode="lines", line={"color": colour}, hoverinfo="skip")


def _marker(rows: list[int], colour: str, hovers: list[str], size: int) -> go.Scatter:
    """Marks at the rows' leaf end (a group's name or its topics), which name them on hover."""
    return go.Scatter(
        x=[0.0] * len(rows),
        y=[-r for r in rows],
        mode="markers",
        marker={"color": colour, "size": size},
        hovertext=[plotly_text(hover) for hover in hovers],
        hoverinfo="text",
        cliponaxis=False,  # at the axis's edge: drawn whole
    )
