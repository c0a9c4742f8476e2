"""The per-topic view: keyword weights, the papers closest to the topic's centroid, its wording
per period, and every one of its papers (listed a page at a time by the page's script, most
central first) with a download of them as CSV.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from papertopics.mapping.cluster import OUTLIER
from papertopics.report.colours import colour_of
from papertopics.report.embedding import packed_json_block, web_link
from papertopics.report.sparkline import counts_phrase, counts_text, share_sparkline
from papertopics.topics.label_source import FROM_AUTHOR_KEYWORDS

# The block of each topic's paper rows, most central first (read by assets/topic-papers.js).
ORDER_BLOCK = "topic-papers-order"


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


def topic_paper_order(papers: pd.DataFrame, topic_details: list[dict]) -> dict[int, list[int]]:
    """Each topic's papers as rows of ``papers``, most central first: its representative papers
    (nearest its centroid in the embedding space, in their order), then its other clustered
    papers, then the outliers assigned to it, each of the two by distance on the map from the
    middle (median) of its clustered papers.

    ``papers``: the topics stage's paper table (``id``, ``topic``, ``outlier`` as booleans, ``x``, ``y``).
    """
    row_of = {paper_id: row for row, paper_id in enumerate(papers["id"])}
    topic = papers["topic"].to_numpy()
    outlier = papers["outlier"].to_numpy(dtype=bool)
    where = papers[["x", "y"]].to_numpy(dtype=np.float64)
    order = {}
    for record in topic_details:
        rows = np.flatnonzero(topic == record["topic"])
        core = rows[~outlier[rows]]
        middle = np.median(where[core if len(core) else rows], axis=0) if len(rows) else np.zeros(2)
        distance = np.linalg.norm(where[rows] - middle, axis=1)
        first = [row_of[i] for i in record["representative_ids"] if i in row_of]
        ranked = rows[np.lexsort((rows, distance, outlier[rows]))]
        chosen = set(first)
        order[int(record["topic"])] = first + [int(r) for r in ranked if r not in chosen]
    return order


def _wording(topic: dict, by: str, label, min_papers: int) -> str:
    """The topic's keywords within each period, oldest first (BERTopic's topics over time); a
    period with fewer than ``min_papers`` of its papers is marked as too few to read, its words
    shown muted after the mark.
    """
    if not topic.get("wording"):
        return ""
    rows = []
    for w in topic["wording"]:
        words = html.escape(", ".join(w["keywords"]))
        if w["papers"] < min_papers:
            words = (
                f'<span class="too-few">too few papers to read (fewer than {min_papers})</span> '
                f'<span class="too-few-words">{words}</span>'
            )
        rows.append(f"<dt>{html.escape(label(w['period']))} ({w['papers']} papers)</dt><dd>{words}</dd>")
    return f'<div class="wording"><h4>Its wording by {html.escape(by)}</h4><dl>{"".join(rows)}</dl></div>'


def _paper_list(topic: dict, clustered: int) -> str:
    """Where the page's script lists all the topic's papers, and the link to download them."""
    topic_id = int(topic["topic"])
    assigned = topic["size"] - clustered
    if topic_id == OUTLIER:
        listed = f"{topic['size']} papers that no topic holds"
    else:
        besides = f", then the {assigned} outliers assigned to it" if assigned else ""
        listed = f"{topic['size']} papers: {clustered} clustered, most central first{besides}"
    return (
        f'<div class="topic-papers" data-topic="{topic_id}"><h4>All its papers</h4>'
        f'<p class="hint">{html.escape(listed)}. '
        f'<a class="topic-csv" href="#" download="topic-{topic_id}-papers.csv">Download its '
        f"{topic['size']} papers as CSV</a> (every column of papers.csv).</p>"
        '<ol class="paper-list"></ol><div class="pager"></div></div>'
    )


def _share_line(series: dict | None, changes: dict, colour: str, label) -> str:
    """The topic's share of clustered papers per period as a small line, with its counts
    ("2 → 14 → 31; 3 → 16 → 38 with the outliers assigned to it").
    """
    if not series or len(changes["periods"]) < 2 or changes.get("ordered") is False:
        return ""  # venues have no order: no line across them (the Venues section compares them)
    periods = [label(p) for p in changes["periods"]]
    counts = counts_text(series["clustered_papers"], changes["period_papers"])
    line = share_sparkline(series["clustered_share"], periods, counts, colour)
    text = counts_phrase(series["clustered_papers"], series["papers"])
    return f'{line} <span class="counts">{html.escape(text)}</span>'


def topic_cards_section(
    topic_details: list[dict],
    papers: pd.DataFrame,
    changes: dict | None = None,
    dump_labels: dict | None = None,
    wording_by: str = "dump",
    colours: dict[int, str] | None = None,
    people_lines: dict[int, str] | None = None,
    reception: dict[int, str] | None = None,
) -> str:
    """One card per topic, collapsed to a line (label, size, share per period with its counts) that
    opens in place on its keywords, representative papers, wording per period and all its papers.

    ``papers``: the topics stage's paper table (``outlier`` as booleans), with ``dumps`` as the
    text to show; ``changes``:
    the comparison (``changes.json``), for the shares per period, when there is one;
    ``wording_by``: the periods of the topics' wording (``dump`` or ``year``); ``colours``: the
    map's colour of each topic (``ReportInputs.topic_colours``); ``people_lines``: each topic's
    line of who works on it (``papertopics.report.people``), none where people are left out;
    ``reception``: each topic's reception figures as HTML
    (``papertopics.report.reception.card_blocks``), where there are some.
    """
    by_id = papers.set_index("id", drop=False)
    index_of = {paper_id: i for i, paper_id in enumerate(papers["id"])}
    series = {s["topic"]: s for s in changes["series"]} if changes else {}
    min_wording_papers = changes["min_wording_papers"] if changes else 0
    clustered = papers.loc[~papers["outlier"].to_numpy(dtype=bool), "topic"].value_counts()

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
        # A label set in the curation file says so, as does one of the authors' own keywords (they
        # named the topic, not its text); a curator's note opens the card's body.
        origin = ' <span class="size">(curated label)</span>' if topic.get("curated") else ""
        if topic.get("label_source") == FROM_AUTHOR_KEYWORDS:
            origin = ' <span class="size">(the authors\' keywords)</span>'
        note = f'<p class="hint">Note: {html.escape(topic["note"])}</p>' if topic.get("note") else ""
        cards.append(
            f'<details class="topic-card" id="topic-{topic["topic"]}" style="border-left-color:{colour}">'
            f'<summary><span class="card-title">Topic {topic["topic"]}: {html.escape(topic["label"])}</span>{origin} '
            f'<span class="size">{topic["size"]} papers ({int(clustered.get(topic["topic"], 0))} clustered), '
            f"{topic['share']:.1%}</span> {share_line}</summary>"
            f'{note}<div class="card-body">{_keyword_bars(topic["keywords"])}'
            f'<div class="examples"><h4>Most representative papers</h4>{examples}'
            f"{_wording(topic, wording_by, labeller(wording_by), min_wording_papers)}"
            f"{(people_lines or {}).get(topic['topic'], '')}</div></div>"
            f"{(reception or {}).get(topic['topic'], '')}"
            f"{_paper_list(topic, int(clustered.get(topic['topic'], 0)))}</details>"
        )
    return (
        '<section id="topic-details"><h2>Topics in detail</h2><p class="hint">Each line opens on the topic\'s '
        "keywords, its most representative papers, its wording in each period and all its papers, "
        "to read or download.</p>"
        + "".join(cards)
        + packed_json_block(ORDER_BLOCK, topic_paper_order(papers, topic_details))
        + "</section>"
    )
