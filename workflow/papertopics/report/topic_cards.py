"""The per-topic view: keyword weights, the papers closest to the topic's centroid, its wording
per period, and every one of its papers (listed a page at a time by the page's script, most
central first) with a download of them as CSV.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from markupsafe import Markup

from papertopics.mapping.cluster import OUTLIER
from papertopics.report.colours import colour_of
from papertopics.report.html_blocks import packed_json_block, web_link
from papertopics.report.render import render
from papertopics.report.sparkline import counts_phrase, counts_text, share_sparkline
from papertopics.report.stability_marks import stability_mark
from papertopics.topics.bridges import FURTHER_TOPIC_COLUMNS
from papertopics.topics.label_display import FROM_AUTHOR_KEYWORDS

# The block of each topic's paper rows, most central first (read by assets/topic-papers.js).
ORDER_BLOCK = "topic-papers-order"


def _keyword_bars(keywords: list[list]) -> list[tuple[str, str, str]]:
    """Each keyword with its bar's width (% of the largest weight, at least 2) and its weight."""
    top = max((weight for _, weight in keywords), default=0) or 1.0
    return [(word, f"{max(2.0, 100 * weight / top):.1f}", f"{weight:.3f}") for word, weight in keywords]


def _paper(paper, index: int) -> dict:
    """A representative paper, its abstract filled in by the page's script when opened (from the
    compressed paper table, so that no abstract is in the file twice).
    """
    return {
        "id": paper.id,
        "index": index,
        "name": paper.display_name,
        "dumps": paper.dumps,
        "link": web_link(getattr(paper, "url", None)),
    }


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


# The papers a card names as also about its topic, the nearest it first (its list and CSV hold its own only).
ALSO_ABOUT_SHOWN = 3


def also_about(papers: pd.DataFrame) -> dict[int, list[int]]:
    """Each topic's papers from other topics that are also about it (it is their second or third
    topic: ``papertopics.topics.bridges``), as rows of ``papers``, the heaviest weight first
    (ties by row); none where the table has no further topics.
    """
    if FURTHER_TOPIC_COLUMNS[0][0] not in papers:
        return {}
    parts = [
        pd.DataFrame(
            {
                "topic": papers[topic].to_numpy(dtype=np.int64),
                "weight": pd.to_numeric(papers[weight], errors="coerce").to_numpy(),
                "row": np.arange(len(papers)),
            }
        )
        for topic, weight in FURTHER_TOPIC_COLUMNS
    ]
    shared = pd.concat(parts)
    shared = shared[shared["topic"] != OUTLIER].sort_values(["weight", "row"], ascending=[False, True])
    return {int(topic): rows["row"].tolist() for topic, rows in shared.groupby("topic", sort=False)}


def _also(rows: list[int], papers: pd.DataFrame) -> dict | None:
    """A card's line of the papers also about its topic: how many, and the first few."""
    if not rows:
        return None
    shown = [_paper(papers.iloc[row], row) for row in rows[:ALSO_ABOUT_SHOWN]]
    return {"count": len(rows), "papers": shown}


def _wording(topic: dict, by: str, label, min_papers: int) -> dict | None:
    """The topic's keywords within each period, oldest first (BERTopic's topics over time); a
    period with fewer than ``min_papers`` of its papers is marked as too few to read, its words
    shown muted after the mark.
    """
    if not topic.get("wording"):
        return None
    rows = [
        {"period": label(w["period"]), "papers": w["papers"], "words": ", ".join(w["keywords"])}
        for w in topic["wording"]
    ]
    return {"by": by, "min_papers": min_papers, "rows": rows}


def _listed(topic: dict, clustered: int) -> str:
    """Which papers the page's script lists under the topic, in what order."""
    assigned = topic["size"] - clustered
    if int(topic["topic"]) == OUTLIER:
        return f"{topic['size']} papers that no topic holds"
    besides = f", then the {assigned} outliers assigned to it" if assigned else ""
    return f"{topic['size']} papers: {clustered} clustered, most central first{besides}"


def _share_line(series: dict | None, changes: dict, colour: str, label) -> dict | None:
    """The topic's share of clustered papers per period as a small line, with its counts
    ("2 → 14 → 31; 3 → 16 → 38 with the outliers assigned to it").
    """
    if not series or len(changes["periods"]) < 2 or changes.get("ordered") is False:
        return None  # venues have no order: no line across them (the Venues section compares them)
    periods = [label(p) for p in changes["periods"]]
    counts = counts_text(series["clustered_papers"], changes["period_papers"])
    line = share_sparkline(series["clustered_share"], periods, counts, colour)
    return {"sparkline": line, "counts": counts_phrase(series["clustered_papers"], series["papers"])}


def topic_cards_section(
    topic_details: list[dict],
    papers: pd.DataFrame,
    changes: dict | None = None,
    dump_labels: dict | None = None,
    wording_by: str = "dump",
    colours: dict[int, str] | None = None,
    people_lines: dict[int, Markup] | None = None,
    reception: dict[int, Markup] | None = None,
    stability: dict[int, dict] | None = None,
) -> Markup:
    """One card per topic, collapsed to a line (label, size, share per period with its counts) that
    opens in place on its keywords, representative papers, wording per period and all its papers.

    ``papers``: the topics stage's paper table (``outlier`` as booleans), with ``dumps`` as the
    text to show; ``changes``:
    the comparison (``changes.json``), for the shares per period, when there is one;
    ``wording_by``: the periods of the topics' wording (``dump`` or ``year``); ``colours``: the
    map's colour of each topic (``ReportInputs.topic_colours``); ``people_lines``: each topic's
    line of who works on it (``papertopics.report.people_section``), none where people are left out;
    ``reception``: each topic's reception figures, rendered
    (``papertopics.report.reception_section.card_blocks``), where there are some; ``stability``:
    each topic's (``papertopics.report.stability_marks.topic_stability``), none without replicates.
    """
    by_id = papers.set_index("id", drop=False)
    index_of = {paper_id: i for i, paper_id in enumerate(papers["id"])}
    series = {s["topic"]: s for s in changes["series"]} if changes else {}
    min_wording_papers = changes["min_wording_papers"] if changes else 0
    clustered = papers.loc[~papers["outlier"].to_numpy(dtype=bool), "topic"].value_counts()
    also = also_about(papers)

    def labeller(by: str):
        return lambda period: (dump_labels or {}).get(period, period) if by == "dump" else period

    cards = []
    for topic in topic_details:
        colour = colour_of(colours or {}, topic["topic"])
        topic_clustered = int(clustered.get(topic["topic"], 0))
        cards.append(
            {
                "topic": topic["topic"],
                "colour": colour,
                "label": topic["label"],
                # A label set in the curation file says so, as does one of the authors' own keywords
                # (they named the topic, not its text); a curator's note opens the card's body.
                "curated": topic.get("curated"),
                "from_keywords": topic.get("label_source") == FROM_AUTHOR_KEYWORDS,
                "note": topic.get("note"),
                "size": topic["size"],
                "clustered": topic_clustered,
                "share": f"{topic['share']:.1%}",
                "stability": stability_mark((stability or {}).get(topic["topic"])),
                "share_line": _share_line(
                    series.get(topic["topic"]), changes, colour, labeller(changes["by"])
                )
                if changes
                else None,
                "bars": _keyword_bars(topic["keywords"]),
                "papers": [_paper(by_id.loc[i], index_of[i]) for i in topic["representative_ids"]],
                "also": _also(also.get(topic["topic"], []), papers),
                "wording": _wording(topic, wording_by, labeller(wording_by), min_wording_papers),
                "people_line": (people_lines or {}).get(topic["topic"], ""),
                "reception": (reception or {}).get(topic["topic"], ""),
                "listed": _listed(topic, topic_clustered),
            }
        )
    return render(
        "sections/topic_cards.html",
        cards=cards,
        order_block=packed_json_block(ORDER_BLOCK, topic_paper_order(papers, topic_details)),
    )
