"""The map of papers: its section (search box, filters, colouring, legends, panels) and its data.

One WebGL point per paper, coloured by topic (a paper HDBSCAN left out and the topics stage
assigned to its nearest topic in a lighter shade of that topic's colour, papers without a topic
grey) or by period (dump or year). The map is not a plotly figure built in Python: at 100,000
papers its per-paper arrays are most of what the page holds, so they go into one compressed JSON
block (``map-data``) that the page's script turns into a single ``scattergl`` trace, and each
paper's similar papers into a block of integers (``similar-papers``). The script places the
labels (topic groups zoomed out, topics zoomed in), each over its own papers in view
(assets/labels.js); here each label gets its whole text in short lines and its topics.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
import pandas as pd
from markupsafe import Markup

from papertopics.mapping.cluster import OUTLIER
from papertopics.periods.assign import Periods
from papertopics.report.colours import OUTLIER_COLOUR, lighter, period_colours, periods_are_sequential
from papertopics.report.html_blocks import gzip_block, packed_json_block, web_link
from papertopics.report.render import render
from papertopics.topics.bridges import FURTHER_TOPIC_COLUMNS
from papertopics.topics.label_display import GROUP_LABEL_LINE_CHARS

_MAP_HEIGHT = 680
_SEARCH_TEXT_KEYWORDS = 10  # a topic's label and this many keywords are searched as the topic's words


def label_lines(text: str) -> list[str]:
    """A map label's text in short lines, whole: never cut."""
    return textwrap.wrap(text, GROUP_LABEL_LINE_CHARS, break_long_words=True) or [""]


def marker_size(n_papers: int) -> float:
    """Points shrink as papers grow in number, so that dense regions still show their structure."""
    return round(float(np.clip(30 / max(n_papers, 1) ** 0.25, 2.5, 7.0)), 2)


@dataclass
class MapPeriods:
    """The papers' periods (dumps or years) for the map's colouring and filter."""

    by: str  # "dump", "year", or the field of unordered groups (venue)
    names: list[str]  # as readers see them, oldest first
    of_paper: list[int]  # each paper's first period (index into names), -1 for none
    more: dict[int, list[int]]  # a paper's further periods, for papers in more than one dump


def map_periods(periods: Periods, n_papers: int, dump_labels: dict[str, str]) -> MapPeriods:
    """The periods as the "What changed" section counts them (the periods stage's, ``compare.by``),
    for the ``n_papers`` papers of the table their rows index.
    """
    index = {name: i for i, name in enumerate(periods.names)}
    listed: dict[int, list[int]] = {}
    for row, period in zip(periods.rows.tolist(), periods.period.tolist(), strict=True):
        listed.setdefault(row, []).append(index[period])
    of_paper, more = [], {}
    for row in range(n_papers):
        found = sorted(set(listed.get(row, [])))
        of_paper.append(found[0] if found else -1)
        if len(found) > 1:
            more[row] = found[1:]
    names = [dump_labels.get(d, d) for d in periods.names] if periods.by == "dump" else periods.names
    return MapPeriods(periods.by, names, of_paper, more)


def similar_rows(ids: list[str], similar: dict | None) -> tuple[np.ndarray, int]:
    """Each paper's similar papers as rows of the paper table (-1 where fewer), and how many per paper.

    ``similar``: the similar-papers stage's arrays (``ids`` in corpus order, ``indices`` into them).
    """
    if similar is None or similar["indices"].size == 0:
        return np.zeros(0, dtype="<i4"), 0
    row_of = {paper: row for row, paper in enumerate(ids)}
    rows_of_index = np.array([row_of.get(paper, -1) for paper in similar["ids"].tolist()], dtype=np.int64)
    count = similar["indices"].shape[1]
    table = np.full((len(ids), count), -1, dtype="<i4")
    stage_rows = rows_of_index >= 0
    table[rows_of_index[stage_rows]] = np.where(
        similar["indices"][stage_rows] >= 0, rows_of_index[similar["indices"][stage_rows]], -1
    )
    return table.ravel(), count


def map_data(
    papers: pd.DataFrame,
    topic_details: list[dict],
    groups: list[dict],
    hover_chars: int,
    colours: dict[int, str],
    periods: MapPeriods,
    similar_count: int,
) -> dict:
    """Everything the page's script needs to draw the map, show a paper and label the map.

    ``papers``: the topics stage's paper table as ``ReportInputs`` holds it (``outlier`` as booleans),
    with ``dumps`` as the text to show. The script writes the hover labels (name, period or
    dumps, topic, then the first ``hover_chars`` characters of the abstract once the abstracts are
    unpacked), so that no text is in the file twice. ``colours``: each topic's (``topic_colours``).
    """
    position = {t["topic"]: i for i, t in enumerate(topic_details)}
    on_map = set(papers["topic"].tolist()) - {OUTLIER}
    topic_labels = [
        {"lines": label_lines(f"{t['topic']}: {t['label']}"), "topic": position[t["topic"]]}
        for t in topic_details
        if t["topic"] in on_map
    ]
    group_labels = [
        {
            "lines": label_lines(group["label"]),
            "topics": [position[t] for t in group["topics"] if t in position and t in on_map],
        }
        for group in groups
        if on_map.intersection(group["topics"])
    ]
    x, y = papers["x"].to_numpy(dtype=float), papers["y"].to_numpy(dtype=float)
    span = [max(np.ptp(values), 1e-9) if len(values) else 1.0 for values in (x, y)]
    ranges = [
        [round(float(values.min() - 0.03 * s), 5), round(float(values.max() + 0.03 * s), 5)]
        if len(values)
        else [0, 1]
        for values, s in zip((x, y), span, strict=True)
    ]
    return {
        "ids": papers["id"].tolist(),
        "names": papers["display_name"].tolist(),
        "dumps": papers["dumps"].tolist(),
        "topic": papers["topic"].map(position).astype(int).tolist(),
        "outlier": papers["outlier"].astype(int).tolist(),
        "urls": [web_link(u) for u in papers["url"]] if "url" in papers.columns else [],
        "topics": [_topic_entry(t, colours) for t in topic_details],
        "periods": {
            "by": periods.by,
            "names": periods.names,
            "colours": period_colours(len(periods.names)),
            "scale": "sequential" if periods_are_sequential(len(periods.names)) else "categories",
            "none_colour": OUTLIER_COLOUR,
            "of_paper": periods.of_paper,
            "more": {str(row): found for row, found in periods.more.items()},
        },
        "further": _further_topics(papers, position),
        "x": papers["x"].round(5).tolist(),
        "y": papers["y"].round(5).tolist(),
        "hover_chars": hover_chars,
        "marker_size": marker_size(len(papers)),
        "ranges": ranges,
        "height": _MAP_HEIGHT,
        "labels": {"groups": group_labels, "topics": topic_labels},
        "similar_count": similar_count,
    }


def _further_topics(papers: pd.DataFrame, position: dict[int, int]) -> dict[str, list[int]]:
    """The topics each paper is also about (``second_topic``, ``third_topic``), as positions in
    the map's topics, for the papers that have some (by row, as text: a JSON object's keys).
    """
    columns = [topic for topic, _ in FURTHER_TOPIC_COLUMNS if topic in papers]
    further = {}
    for row, topics in enumerate(papers[columns].to_numpy(dtype=np.int64).tolist()):
        shown = [position[t] for t in topics if t != OUTLIER]
        if shown:
            further[str(row)] = shown
    return further


def _topic_entry(topic: dict, colours: dict[int, str]) -> dict:
    colour = colours.get(topic["topic"], OUTLIER_COLOUR)
    words = [topic["label"]] + [word for word, _ in topic.get("keywords", [])[:_SEARCH_TEXT_KEYWORDS]]
    return {
        "topic": topic["topic"],
        "label": topic["label"],
        "colour": colour,
        "assigned_colour": colour if topic["topic"] == OUTLIER else lighter(colour),
        # What the search matches as the topic's words: none for the papers without a topic.
        "search_text": "" if topic["topic"] == OUTLIER else " ".join(words),
    }


def _period_controls(periods: MapPeriods) -> dict | None:
    """With two periods or more, the colouring by period and the period filter: each period with its
    colour, and for many periods the sequential scale as a bar from the first to the last.
    """
    if len(periods.names) < 2:
        return None
    colours = period_colours(len(periods.names))
    bar = None
    if periods_are_sequential(len(periods.names)):
        names = periods.names
        stops = ", ".join(f"{c} {100 * i / (len(colours) - 1):.1f}%" for i, c in enumerate(colours))
        bar = {"first": names[0], "middle": names[len(names) // 2], "last": names[-1], "stops": stops}
    return {
        "kind": {"year": "Years", "dump": "Dumps"}.get(periods.by, f"{periods.by.capitalize()}s"),
        "boxes": list(zip(periods.names, colours, strict=True)),
        "bar": bar,
    }


def map_section(
    data: dict,
    topic_details: list[dict],
    colours: dict[int, str],
    periods: MapPeriods,
    people_filter: Markup | None = None,
) -> Markup:
    """The map's section: search, filters, colouring, the map's placeholder and its compressed
    data (``map_data``). The legend is under the map, whole; beside it (under it on a narrow
    screen) the search's results, the selection and the paper shown, in view while one types or selects.
    ``people_filter``: the control that keeps a country's or institution's papers (``report.people_section``).
    """
    topics = [
        {"topic": t["topic"], "label": t["label"], "colour": colours.get(t["topic"], OUTLIER_COLOUR)}
        for t in topic_details
    ]
    return render(
        "sections/map.html",
        topics=topics,
        periods=_period_controls(periods),
        colourings=data.get("colourings") or [],
        people_filter=people_filter,
        height=_MAP_HEIGHT,
        data=packed_json_block("map-data", data),
    )


def similar_block(similar: np.ndarray) -> Markup:
    """The papers' similar papers (``similar_rows``) as little-endian 32-bit integers, compressed."""
    return gzip_block("similar-papers", similar.astype("<i4").tobytes())
