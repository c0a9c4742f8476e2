"""Themes within a topic, in What changed: the topics whose papers of an earlier era are about
something else than those of a later one ("this topic's theme changed: 1995–2006 'kernels, svm'
(120 papers), 2012–2025 'deep networks' (310 papers)"), and the thematic-evolution view of the
largest topics (``papertopics.figures.themes``).
"""

from __future__ import annotations

from markupsafe import Markup

from papertopics.figures.themes import era_span, thematic_evolution
from papertopics.report.html_blocks import figure_block
from papertopics.report.render import render


def theme_phrase(row: dict, period_label) -> str:
    """The sentence's words after the topic's name (plain text: the template escapes it)."""
    eras = [
        f"{era_span(era, period_label)} '{', '.join(era['keywords'])}' ({era['papers']} papers)"
        for era in row["eras"]
    ]
    return f"this topic's theme changed: {', '.join(eras)}"


def _item(row: dict, period_label) -> dict:
    """A topic whose theme changed, as ``templates/sections/themes.html`` lists it."""
    hover = (
        f"The two eras explain {100 * row['explained']:.1f}% of the spread of its papers' embeddings, "
        f"{100 * row['chance_explained']:.1f}% with the periods shuffled (centroid similarity {row['similarity']:.2f}); permutation test q = {row['q_value']:.2g}"
    )
    return {
        "topic": int(row["topic"]),
        "label": row["label"],
        "phrase": theme_phrase(row, period_label),
        "hover": hover,
    }


def themes_block(changes: dict, period_label, colours: dict[int, str]) -> Markup:
    """The subsection: the topics whose theme changed, then the view; nothing where none was tested."""
    themes = changes.get("themes") or {}
    if not themes.get("available") or not themes.get("topics"):
        return Markup()
    figure = thematic_evolution(themes, period_label, colours)
    return render(
        "sections/themes.html",
        min_papers=themes["min_papers"],
        by=themes["by"],
        false_discovery_rate=f"{changes['false_discovery_rate']:g}",
        min_explained=f"{100 * themes['min_explained']:.0f}",
        changed=[_item(row, period_label) for row in themes["topics"] if row["changed"]],
        tested=len(themes["topics"]),
        figure=figure_block("theme-evolution", figure) if figure is not None else None,
    )
