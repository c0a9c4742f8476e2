"""BERTopic's own figures of the fitted model: keyword bars, topic hierarchy, similarity heatmap.

They are drawn in the topics stage, where the model is in memory, and kept as plotly JSON
(``results/topics/figures.json``), so that the report stage neither imports BERTopic (about 8 s
per process) nor reloads the model.
"""

from __future__ import annotations

import json
import logging

from papertopics.report import structure
from papertopics.report.keywords import keyword_barchart

_LOG = logging.getLogger(__name__)


def model_figures(model, n_topics: int) -> dict[str, dict]:
    """Each figure by its id in the report: ``{"figure": plotly JSON}``, or ``{"notice": why not}``."""
    drawers = {
        "keyword-chart": ("keywords", lambda: keyword_barchart(model, n_topics)),
        "topic-hierarchy": ("hierarchy", lambda: structure.topic_hierarchy(model, n_topics)),
        "topic-heatmap": ("heatmap", lambda: structure.topic_similarity_heatmap(model, n_topics)),
    }
    figures = {}
    for figure_id, (kind, draw) in drawers.items():
        reason = structure.too_few_topics(kind, n_topics)
        if reason:
            figures[figure_id] = {"notice": reason}
            continue
        try:
            figures[figure_id] = {"figure": json.loads(draw().to_json())}
        except Exception as error:  # BERTopic's figures have edge cases of their own; the report must still render
            _LOG.warning("%s chart not drawn: %s", kind, error)
            figures[figure_id] = {"notice": f"This chart could not be drawn for this corpus ({type(error).__name__})."}
    return figures
