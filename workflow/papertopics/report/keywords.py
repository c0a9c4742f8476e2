"""Topic keywords: BERTopic's c-TF-IDF bar chart for the largest topics."""

from __future__ import annotations

_MAX_TOPICS_IN_CHART = 12


def keyword_barchart(model, n_topics: int, n_words: int = 8):
    return model.visualize_barchart(
        top_n_topics=min(n_topics, _MAX_TOPICS_IN_CHART),
        n_words=n_words,
        custom_labels=True,
        title="",
        width=260,
        height=260,
    )
