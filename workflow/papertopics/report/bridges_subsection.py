"""Bridges: the pairs of topics that share most papers (the topics stage's ``bridges.csv``), part
of the Topic structure section.
"""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

from papertopics.report.render import render

# The pairs the report lists; bridges.csv, a download, holds them all.
BRIDGES_SHOWN = 10


def bridges_subsection(bridges: pd.DataFrame, min_weight: float | None) -> Markup:
    """The topic pairs that share most papers, each topic a link to its card, with how many of
    each one's papers are also about the other; ``min_weight``: ``topics.further_topic_min_weight``,
    as the topics stage recorded it.
    """
    rows = [
        {
            "a": (int(row.topic_a), row.label_a),
            "b": (int(row.topic_b), row.label_b),
            "papers": int(row.papers),
            "a_about_b": int(row.a_papers_about_b),
            "b_about_a": int(row.b_papers_about_a),
        }
        for row in bridges.head(BRIDGES_SHOWN).itertuples()
    ]
    return render("sections/bridges.html", rows=rows, pairs=len(bridges), min_weight=min_weight)
