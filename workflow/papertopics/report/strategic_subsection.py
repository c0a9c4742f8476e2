"""The strategic diagram (the topics stage's ``strategic.csv``: Callon's centrality and density,
as bibliometrix's thematic map), part of the Topic structure section: the figure, what its
quadrants mean, and the topics of each.
"""

from __future__ import annotations

from markupsafe import Markup

from papertopics.figures.strategic import strategic_diagram
from papertopics.report.html_blocks import figure_block
from papertopics.report.inputs import ReportInputs
from papertopics.report.render import render

QUADRANT_MEANING = {
    "motor": "central and well developed: the field's driving themes",
    "niche": "well developed but tied little to the rest: specialised themes",
    "emerging or declining": "weakly developed and marginal: themes appearing or fading",
    "basic": "central but not developed: general themes the others build on",
}


def strategic_subsection(inputs: ReportInputs) -> Markup:
    """The diagram with its quadrants' meaning and each quadrant's topics, largest first."""
    table = inputs.strategic
    source = inputs.topic_settings.get("strategic_keywords") or "topic keywords"
    quadrants = [
        {
            "name": name,
            "meaning": meaning,
            "topics": [
                (int(row.topic), row.label)
                for row in table[table["quadrant"] == name]
                .sort_values("papers", ascending=False)
                .itertuples()
            ],
        }
        for name, meaning in QUADRANT_MEANING.items()
    ]
    moved = "first_period" in table and len(table)
    return render(
        "sections/strategic.html",
        figure=figure_block("strategic-diagram", strategic_diagram(table, source)),
        source=source,
        quadrants=quadrants,
        moved=(table["first_period"].iloc[0], table["last_period"].iloc[0]) if moved else None,
    )
