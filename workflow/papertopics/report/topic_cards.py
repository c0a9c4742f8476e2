"""The per-topic view: keyword weights and the papers closest to the topic's centroid."""

from __future__ import annotations

import html

import pandas as pd

from papertopics.report.document_map import topic_colour
from papertopics.report.embedding import web_link


def _keyword_bars(keywords: list[list]) -> str:
    if not keywords:
        return '<p class="hint">No keywords.</p>'
    top = max(weight for _, weight in keywords) or 1.0
    rows = "".join(
        f'<div class="bar-row"><span class="bar-word">{html.escape(word)}</span>'
        f'<span class="bar" style="width:{max(2.0, 100 * weight / top):.1f}%"></span>'
        f'<span class="bar-value">{weight:.3f}</span></div>'
        for word, weight in keywords
    )
    return f'<div class="keyword-bars" role="img" aria-label="c-TF-IDF keyword weights">{rows}</div>'


def _paper(paper, index: int) -> str:
    """A representative paper, its abstract filled in by the page's script when opened (from the
    compressed paper table, so that no abstract is in the file twice).
    """
    link = web_link(getattr(paper, "url", None))
    source = (
        f' <a href="{html.escape(link)}" rel="noopener noreferrer" target="_blank">link</a>' if link else ""
    )
    return (
        f'<details class="paper" data-id="{html.escape(paper.id)}" data-index="{index}">'
        f"<summary>{html.escape(paper.display_name)}"
        f' <span class="dump">{html.escape(paper.dumps)}</span>{source}</summary><p></p></details>'
    )


def topic_cards_section(topic_details: list[dict], papers: pd.DataFrame) -> str:
    """``papers``: the topics stage's paper table, with ``dumps`` as the text to show."""
    by_id = papers.set_index("id", drop=False)
    index_of = {paper_id: i for i, paper_id in enumerate(papers["id"])}
    cards = []
    for topic in topic_details:
        examples = "".join(
            _paper(by_id.loc[paper_id], index_of[paper_id]) for paper_id in topic["representative_ids"]
        )
        # A label set in the curation file says so; a curator's note is shown under the heading.
        curated = ' <span class="size">(curated label)</span>' if topic.get("curated") else ""
        note = f'<p class="hint">Note: {html.escape(topic["note"])}</p>' if topic.get("note") else ""
        cards.append(
            f'<article class="topic-card" id="topic-{topic["topic"]}" style="border-left-color:{topic_colour(topic["topic"])}">'
            f"<h3>Topic {topic['topic']}: {html.escape(topic['label'])}{curated} "
            f'<span class="size">{topic["size"]} papers, {topic["share"]:.1%}</span></h3>{note}'
            f'<div class="card-body">{_keyword_bars(topic["keywords"])}'
            f'<div class="examples"><h4>Most representative papers</h4>{examples}</div></div></article>'
        )
    return '<section id="topic-details"><h2>Topics in detail</h2>' + "".join(cards) + "</section>"
