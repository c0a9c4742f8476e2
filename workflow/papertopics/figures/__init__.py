"""The topics stage's figures (the topic hierarchy of the topic groups, BERTopic's similarity
heatmap), one module per figure as in ``bertopic/plotting``, and the keyword bars the report draws
from the topics' keywords.

They are drawn in the topics stage, where the model is in memory, and kept as plotly JSON
(``results/topics/figures.json``), so that the report stage neither imports BERTopic (seconds per
process) nor reloads the model; this package imports nothing of the report's.
"""

from __future__ import annotations

import json
import logging

from papertopics.figures.heatmap import topic_similarity_heatmap
from papertopics.figures.hierarchy import GroupedTopics, topic_hierarchy

_LOG = logging.getLogger(__name__)
# Fewest non-outlier topics each figure can be drawn from.
MIN_TOPICS = {"intertopic": 2, "hierarchy": 2, "heatmap": 2}


def too_few_topics(kind: str, n_topics: int) -> str | None:
    """Why a figure of ``kind`` cannot be drawn from ``n_topics`` topics, or None if it can."""
    needed = MIN_TOPICS[kind]
    return (
        f"This chart needs at least {needed} topics; this corpus has {n_topics}."
        if n_topics < needed
        else None
    )


def model_figures(model, grouped: GroupedTopics) -> dict[str, dict]:
    """Each figure by its id in the report: ``{"figure": plotly JSON}``, or ``{"notice": why not}``;
    the hierarchy drawn from the topics and their groups, the heatmap from the model.
    """
    n_topics = len(grouped.labels)
    drawers = {
        "topic-hierarchy": ("hierarchy", lambda: topic_hierarchy(grouped)),
        "topic-heatmap": ("heatmap", lambda: topic_similarity_heatmap(model, n_topics)),
    }
    figures = {}
    for figure_id, (kind, draw) in drawers.items():
        reason = too_few_topics(kind, n_topics)
        if reason:
            figures[figure_id] = {"notice": reason}
            continue
        try:
            figures[figure_id] = {"figure": json.loads(draw().to_json())}
        except (
            Exception
        ) as error:  # BERTopic's figures have edge cases of their own; the report must still render
            _LOG.warning("%s chart not drawn: %s", kind, error)
            figures[figure_id] = {
                "notice": f"This chart could not be drawn for this corpus ({type(error).__name__})."
            }
    return figures
