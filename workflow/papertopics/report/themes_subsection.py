"""Themes within a topic, in What changed: the topics whose papers of an earlier era are about
something else than those of a later one ("this topic's theme changed: 1995–2006 'kernels, svm'
(120 papers), 2012–2025 'deep networks' (310 papers)"), and the thematic-evolution view of the
largest topics (``papertopics.figures.themes``).
"""

from __future__ import annotations

import html

from papertopics.figures.themes import era_span, thematic_evolution
from papertopics.report.html_blocks import figure_block


def theme_phrase(row: dict, period_label) -> str:
    """The sentence's words after the topic's name (plain text, escaped by the caller)."""
    eras = [
        f"{era_span(era, period_label)} '{', '.join(era['keywords'])}' ({era['papers']} papers)"
        for era in row["eras"]
    ]
    return f"this topic's theme changed: {', '.join(eras)}"


def _item(row: dict, period_label) -> str:
    hover = (
        f"The two eras explain {100 * row['explained']:.1f}% of the spread of its papers' embeddings, "
        f"{100 * row['chance_explained']:.1f}% with the periods shuffled (centroid similarity {row['similarity']:.2f}); permutation test q = {row['q_value']:.2g}"
    )
    return (
        f'<li data-topic="{int(row["topic"])}"><strong><a href="#topic-{int(row["topic"])}">'
        f"{html.escape(row['label'])}</a></strong>: {html.escape(theme_phrase(row, period_label))} "
        f'<span class="grade grade-significant" title="{html.escape(hover)}">theme changed</span></li>'
    )


def themes_block(changes: dict, period_label, colours: dict[int, str]) -> str:
    """The subsection: the topics whose theme changed, then the view; "" where none was tested."""
    themes = changes.get("themes") or {}
    if not themes.get("available") or not themes.get("topics"):
        return ""
    changed = [row for row in themes["topics"] if row["changed"]]
    hint = (
        f'<p class="hint">Each topic with {themes["min_papers"]} clustered papers or more on both sides is '
        "split once in time where its earlier and later papers are furthest apart in embedding space; "
        f"its theme changed where the split beats shuffled {html.escape(themes['by'])}s (Benjamini–Hochberg "
        f"at {changes['false_discovery_rate']:g}) and explains at least {100 * themes['min_explained']:.0f} "
        f"points more of its papers' spread than with the {html.escape(themes['by'])}s shuffled. Each era is "
        "named by the words of its periods that set it apart.</p>"
    )
    if changed:
        listed = f'<ol class="trend-list" id="theme-changes">{"".join(_item(r, period_label) for r in changed)}</ol>'
    else:
        listed = (
            f'<p id="theme-changes" class="hint">No topic\'s theme changed: of {len(themes["topics"])} topics '
            "tested, none has eras further apart than its papers' drift.</p>"
        )
    figure = thematic_evolution(themes, period_label, colours)
    view = (
        '<h4>Thematic evolution of the largest topics</h4><p class="hint">Each topic\'s earlier era (left) '
        "flows to its later era (right): red where its theme changed, else grey; in orange to another "
        "topic's later era its papers are closer to. Hover a band for the similarity.</p>"
        + figure_block("theme-evolution", figure)
        if figure is not None
        else ""
    )
    return '<h3 id="themes">Themes within topics</h3>' + hint + listed + view
