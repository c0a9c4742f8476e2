"""The per-topic view: keyword weights and the papers closest to the topic's centroid."""

from __future__ import annotations

import html

import pandas as pd

from papertopics.report.colours import colour_of
from papertopics.report.embedding import web_link
from papertopics.report.sparkline import counts_text, share_sparkline


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


def _wording(topic: dict, by: str, label) -> str:
    """The topic's keywords within each period, oldest first (BERTopic's topics over time)."""
    if not topic.get("wording"):
        return ""
    rows = "".join(
        f"<dt>{html.escape(label(w['period']))} ({w['papers']} papers)</dt><dd>{html.escape(', '.join(w['keywords']))}</dd>"
        for w in topic["wording"]
    )
    return f'<div class="wording"><h4>Its wording by {html.escape(by)}</h4><dl>{rows}</dl></div>'


def _share_line(series: dict | None, changes: dict, colour: str, label) -> str:
    """The topic's share per period as a small line, with its counts ("3 → 16 → 38 papers")."""
    if not series or len(changes["periods"]) < 2:
        return ""
    periods = [label(p) for p in changes["periods"]]
    counts = counts_text(series["papers"], changes["period_papers"])
    line = share_sparkline(series["share"], periods, counts, colour)
    return f'{line} <span class="counts">{html.escape(" → ".join(str(n) for n in series["papers"]))}</span>'


def topic_cards_section(
    topic_details: list[dict],
    papers: pd.DataFrame,
    changes: dict | None = None,
    dump_labels: dict | None = None,
    wording_by: str = "dump",
    colours: dict[int, str] | None = None,
) -> str:
    """One card per topic, collapsed to a line (label, size, share per period with its counts) that
    opens in place on its keywords, representative papers and wording per period.

    ``papers``: the topics stage's paper table, with ``dumps`` as the text to show; ``changes``:
    the comparison (``changes.json``), for the shares per period, when there is one;
    ``wording_by``: the periods of the topics' wording (``dump`` or ``year``); ``colours``: the
    map's colour of each topic (``ReportInputs.topic_colours``).
    """
    by_id = papers.set_index("id", drop=False)
    index_of = {paper_id: i for i, paper_id in enumerate(papers["id"])}
    series = {s["topic"]: s for s in changes["series"]} if changes else {}

    def labeller(by: str):
        return lambda period: (dump_labels or {}).get(period, period) if by == "dump" else period

    cards = []
    for topic in topic_details:
        colour = colour_of(colours or {}, topic["topic"])
        examples = "".join(
            _paper(by_id.loc[paper_id], index_of[paper_id]) for paper_id in topic["representative_ids"]
        )
        share_line = (
            _share_line(series.get(topic["topic"]), changes, colour, labeller(changes["by"]))
            if changes
            else ""
        )
        # A label set in the curation file says so; a curator's note opens the card's body.
        curated = ' <span class="size">(curated label)</span>' if topic.get("curated") else ""
        note = f'<p class="hint">Note: {html.escape(topic["note"])}</p>' if topic.get("note") else ""
        cards.append(
            f'<details class="topic-card" id="topic-{topic["topic"]}" style="border-left-color:{colour}">'
            f'<summary><span class="card-title">Topic {topic["topic"]}: {html.escape(topic["label"])}</span>{curated} '
            f'<span class="size">{topic["size"]} papers, {topic["share"]:.1%}</span> {share_line}</summary>'
            f'{note}<div class="card-body">{_keyword_bars(topic["keywords"])}'
            f'<div class="examples"><h4>Most representative papers</h4>{examples}'
            f"{_wording(topic, wording_by, labeller(wording_by))}</div></div></details>"
        )
    return (
        '<section id="topic-details"><h2>Topics in detail</h2><p class="hint">Each line opens on the topic\'s '
        "keywords, its most representative papers and its wording in each period.</p>"
        + "".join(cards)
        + "</section>"
    )
