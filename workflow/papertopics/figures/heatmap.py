"""BERTopic's topic similarity heatmap, of the largest topics where there are many."""

from __future__ import annotations

from papertopics.figures.text import note_title

# Beyond this many topics the heatmap's rows would be thinner than its labels' text: it shows the largest.
MAX_HEATMAP_TOPICS = 40


def topic_similarity_heatmap(model, n_topics: int):
    """The similarity of every two topics, of the largest ``MAX_HEATMAP_TOPICS`` where there are more."""
    shown = min(n_topics, MAX_HEATMAP_TOPICS)
    side = min(900, max(400, 28 * shown))
    figure = model.visualize_heatmap(
        top_n_topics=shown if shown < n_topics else None,
        custom_labels=True,
        title="",
        width=side + 200,
        height=side,
    )
    if shown < n_topics:
        figure.update_layout(
            title=note_title(
                f"The {shown} largest of {n_topics} topics (every topic is in the hierarchy above)."
            )
        )
    return figure
