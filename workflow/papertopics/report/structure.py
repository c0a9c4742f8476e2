"""Topic structure: BERTopic's intertopic distance map, hierarchy and similarity heatmap."""

from __future__ import annotations

# Fewest non-outlier topics each BERTopic figure can be drawn from.
MIN_TOPICS = {"intertopic": 3, "hierarchy": 2, "heatmap": 2}


def intertopic_distance_map(model):
    return model.visualize_topics(custom_labels=True, title="", width=700, height=600)


def topic_hierarchy(model, n_topics: int):
    return model.visualize_hierarchy(custom_labels=True, title="", width=900, height=max(300, 30 * n_topics))


def topic_similarity_heatmap(model, n_topics: int):
    side = min(900, max(400, 28 * n_topics))
    return model.visualize_heatmap(custom_labels=True, title="", width=side + 200, height=side)
