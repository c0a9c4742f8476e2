"""A Sankey of flows between two columns of nodes, as the report draws them: the themes view of
What changed (``figures.themes``) and the topics since the previous run (``report.lineage_flow``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import plotly.graph_objects as go

from papertopics.figures.text import plotly_text


@dataclass
class Flows:
    """The links of a Sankey, added one at a time: node indices, a size, a colour, and a hover
    text of their own where the caller gives one.
    """

    sources: list[int] = field(default_factory=list)
    targets: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    colours: list[str] = field(default_factory=list)
    hovers: list[str] = field(default_factory=list)

    def add(self, source: int, target: int, value: float, colour: str, hover: str | None = None) -> None:
        """One link: ``value`` from node ``source`` to node ``target``."""
        self.sources.append(source)
        self.targets.append(target)
        self.values.append(value)
        self.colours.append(colour)
        if hover is not None:
            self.hovers.append(hover)


@dataclass(frozen=True)
class SankeyStyle:
    """How a Sankey reads: its nodes' and links' hover texts (plotly templates), the space between
    nodes, the figure's height and top margin, and a title where it has one.
    """

    node_hover: str
    link_hover: str
    pad: int
    height: int
    top: int = 10
    title: dict | None = None


def flow_sankey(names: list[str], node_colours: list[str], flows: Flows, style: SankeyStyle) -> go.Figure:
    """The nodes (``names``, escaped for plotly, in ``node_colours``) joined by ``flows``."""
    link = {
        "source": flows.sources,
        "target": flows.targets,
        "value": flows.values,
        "color": flows.colours,
        **({"customdata": flows.hovers} if flows.hovers else {}),
        "hovertemplate": style.link_hover,
    }
    figure = go.Figure(
        go.Sankey(
            arrangement="snap",
            node={
                "label": [plotly_text(name) for name in names],
                "color": node_colours,
                "pad": style.pad,
                "thickness": 12,
                "hovertemplate": style.node_hover,
            },
            link=link,
        )
    )
    figure.update_layout(
        height=style.height,
        margin={"l": 10, "r": 10, "t": style.top, "b": 10},
        font={"size": 11},
        **({"title": style.title} if style.title else {}),
    )
    return figure
