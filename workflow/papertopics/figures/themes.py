"""The thematic-evolution view of What changed: the earlier eras of the topics whose theme changed
and of the largest others on the left, their later eras on the right (red: the theme changed), each earlier era flowing to its own topic's later era and to any other
topic's later era its papers are closer to (by the cosine similarity of the eras' centroids), in
the manner of bibliometrix's thematic evolution map.
"""

from __future__ import annotations

import plotly.graph_objects as go

from papertopics.figures.sankey import Flows, SankeyStyle, flow_sankey
from papertopics.figures.text import shorten

_OWN, _CHANGED, _ELSEWHERE = "rgba(120,120,120,0.35)", "rgba(200,40,40,0.45)", "rgba(214,120,0,0.55)"
_NODE_PX = 46
_LABEL_CHARS = 32  # of a node's name, for the topic's label
_NAME_CHARS = 70


def era_span(era: dict, period_label) -> str:
    """An era's periods as a reader reads them: "1995–2006", or "2019" for one period."""
    first, last = period_label(era["first"]), period_label(era["last"])
    return first if first == last else f"{first}–{last}"


def era_name(label: str, era: dict, period_label) -> str:
    """A node's name: the topic's label (``_LABEL_CHARS`` at most), the era's span and as many of
    its keywords, whole, as ``_NAME_CHARS`` leave room for, an ellipsis where some are left out.
    """
    name = f"{shorten(label, _LABEL_CHARS)} {era_span(era, period_label)}"
    words = [" ".join(keyword.split()) for keyword in era["keywords"]]
    for count in range(len(words), 0, -1):
        listed = ", ".join(words[:count]) + ("" if count == len(words) else "…")
        if len(name) + 2 + len(listed) <= _NAME_CHARS:
            return f"{name}: {listed}"
    # Not even the first keyword fits whole: cut it after a word.
    return shorten(f"{name}: {words[0]}", _NAME_CHARS) if words else name


def thematic_evolution(themes: dict, period_label, colours: dict[int, str]) -> go.Figure | None:
    """The view of ``themes`` (``changes.json``'s ``themes``), or None where no topic was tested.
    An earlier era's papers are split over its links in proportion to their similarity.
    """
    view = themes.get("view") or {}
    if not view.get("topics"):
        return None
    by_topic = {t["topic"]: t for t in themes["topics"]}
    shown = view["topics"]
    names = [
        era_name(by_topic[topic]["label"], by_topic[topic]["eras"][side], period_label)
        for side in (0, 1)
        for topic in shown
    ]
    place = {topic: index for index, topic in enumerate(shown)}
    weights: dict[int, float] = {}
    for link in view["links"]:
        weights[link["from"]] = weights.get(link["from"], 0.0) + max(link["similarity"], 1e-6)
    flows = Flows()
    for link in view["links"]:
        early = by_topic[link["from"]]["eras"][0]["papers"]
        own = _CHANGED if by_topic[link["from"]]["changed"] else _OWN
        flows.add(
            place[link["from"]],
            len(shown) + place[link["to"]],
            round(early * max(link["similarity"], 1e-6) / weights[link["from"]], 2),
            own if link["from"] == link["to"] else _ELSEWHERE,
            f"centroid similarity {link['similarity']:.2f}",
        )
    style = SankeyStyle(
        node_hover="%{label}<extra></extra>",
        link_hover="%{source.label} → %{target.label}<br>%{customdata}<extra></extra>",
        pad=8,
        height=max(260, _NODE_PX * len(shown) + 60),
        top=30,
        title={"text": "earlier era → later era", "font": {"size": 13, "color": "#666"}, "x": 0.01},
    )
    return flow_sankey(names, [colours.get(topic, "#888") for topic in shown] * 2, flows, style)
