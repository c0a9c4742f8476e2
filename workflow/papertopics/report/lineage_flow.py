"""Topics since the previous run: how this run's topics continue the previous run's (ids kept,
merges, splits, new and gone), drawn as a Sankey of the papers they share. Renumbering after a
rerun, not new research: that is what the trends and the "new in" lists are for.
"""

from __future__ import annotations

import plotly.graph_objects as go
from markupsafe import Markup

from papertopics.figures.sankey import Flows, SankeyStyle, flow_sankey
from papertopics.report.colours import colour_of
from papertopics.report.html_blocks import figure_block
from papertopics.report.render import render

_NODE_PX = 18
_KEPT, _MOVED, _ADDED, _REMOVED = (
    "rgba(120,120,120,0.35)",
    "rgba(214,120,0,0.55)",
    "rgba(40,150,70,0.45)",
    "rgba(200,40,40,0.45)",
)


def _labels(lineage: dict) -> tuple[dict[int, str], dict[int, str]]:
    """The previous run's topic labels and this run's, by id, from the lineage's events."""
    before = {t["id"]: t["label"] for t in lineage["kept"] + lineage["gone"]}
    now = {t["id"]: t["label"] for t in lineage["kept"] + lineage["new"]}
    for merge in lineage["merged"]:
        before.update({t["id"]: t["label"] for t in merge["from"]})
        now[merge["into"]["id"]] = merge["into"]["label"]
    for split in lineage["split"]:
        before[split["from"]["id"]] = split["from"]["label"]
        now.update({t["id"]: t["label"] for t in split["into"]})
    before.update({r["id"]: r["from"] for r in lineage["relabelled"]})
    return before, now


def lineage_sankey(lineage: dict, colours: dict[int, str]) -> go.Figure:
    """The previous run's topics (left) to this run's (right), each link the papers they share;
    papers new to the corpus come in from one node, papers no longer in it leave to another.
    """
    shared = lineage["flows"]
    before, now = _labels(lineage)
    left = sorted({link["from"] for link in shared["links"]} | {r["from"] for r in shared["removed_papers"]})
    right = sorted({link["to"] for link in shared["links"]} | {n["to"] for n in shared["new_papers"]})
    names = [f"run {lineage['previous_run']} · {t}: {before.get(t, '')}" for t in left]
    names += ["papers new to the corpus"]
    names += [f"{t}: {now.get(t, '')}" for t in right]
    names += ["papers no longer in the corpus"]
    index_left = {t: i for i, t in enumerate(left)}
    added = len(left)
    index_right = {t: added + 1 + i for i, t in enumerate(right)}
    removed = added + 1 + len(right)
    flows = Flows()
    for link in shared["links"]:
        colour = _KEPT if link["from"] == link["to"] else _MOVED
        flows.add(index_left[link["from"]], index_right[link["to"]], link["papers"], colour)
    for entry in shared["new_papers"]:
        flows.add(added, index_right[entry["to"]], entry["papers"], _ADDED)
    for entry in shared["removed_papers"]:
        flows.add(index_left[entry["from"]], removed, entry["papers"], _REMOVED)
    node_colours = (
        [colour_of(colours, t) for t in left]
        + ["#289646"]
        + [colour_of(colours, t) for t in right]
        + ["#c82828"]
    )
    style = SankeyStyle(
        node_hover="%{label}: %{value} papers<extra></extra>",
        link_hover="%{source.label} → %{target.label}: %{value} papers<extra></extra>",
        pad=6,
        height=max(360, _NODE_PX * max(len(left), len(right)) + 80),
    )
    return flow_sankey(names, node_colours, flows, style)


def lineage_section(lineage: dict | None, colours: dict[int, str]) -> Markup:
    """The "Topics since the previous run" section: a first-run sentence, or the Sankey and the
    lists of new, gone, merged, split and relabelled topic ids.
    """
    if lineage is None:
        return Markup()
    if lineage.get("first_run", True):
        return render("sections/lineage.html", first_run=True)

    def named(topic: dict) -> str:
        return f"{topic['id']}: {topic['label']}"

    summary = (
        f"Of the previous run's {lineage['previous_topics']} topics, {len(lineage['kept'])} kept their id; "
        f"{len(lineage['merged'])} merges, {len(lineage['split'])} splits, {len(lineage['gone'])} ids gone and "
        f"{len(lineage['new'])} new ids. Papers: {lineage['papers_in_both_runs']} in both runs, "
        f"{lineage['papers_new']} new, {lineage['papers_removed']} removed."
    )
    parts = [
        ("New ids", [named(t) for t in lineage["new"]]),
        ("Gone ids", [named(t) for t in lineage["gone"]]),
        (
            "Merged",
            [f"{', '.join(named(t) for t in m['from'])} → {named(m['into'])}" for m in lineage["merged"]],
        ),
        (
            "Split",
            [f"{named(s['from'])} → {', '.join(named(t) for t in s['into'])}" for s in lineage["split"]],
        ),
        ("Relabelled", [f"{r['id']}: {r['from']} → {r['to']}" for r in lineage["relabelled"]]),
    ]
    flows = lineage.get("flows", {})
    flow = (
        figure_block("lineage-sankey", lineage_sankey(lineage, colours))
        if flows.get("links") or flows.get("new_papers")
        else None
    )
    return render("sections/lineage.html", first_run=False, summary=summary, flow=flow, lists=parts)
