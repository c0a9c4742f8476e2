"""Topic keywords: every topic's top c-TF-IDF keywords as small bar charts, a page of them at a time.

BERTopic's bar chart shows the few largest topics, with each title on one line and the keywords
as tick labels that run into the panel to their left. Here every topic is on a page (a menu picks
the page), drawn from the topics' keywords as the topics stage describes them (stable ids, labels,
the map's colours); each panel leaves room on its left for its longest keyword, long keywords
break onto two lines, and titles are wrapped, whole, to their panel's width.
"""

from __future__ import annotations

import math
import textwrap

import plotly.graph_objects as go

from papertopics.figures.text import plotly_text

COLUMNS = 4
ROWS = 3
PER_PAGE = COLUMNS * ROWS
WIDTH = 1200  # pixels: the figure has a fixed width, so that room for the keywords is known
_MARGIN = {"l": 10, "r": 10, "b": 10}
_GAP = 16  # pixels between a panel's bars and the next panel's keywords
_KEYWORD_FONT = 12
_TITLE_FONT = 13
_CHAR_WIDTH = 0.6  # of the font size: a wide average, so that text rather has too much room than too little
_KEYWORD_LINE_CHARS = 18
_BAR_HEIGHT = 22
_MENU_HEIGHT = 40
_MENU_ITEM_HEIGHT = 36  # pixels: plotly's dropdown items (about 32), with a little to spare


def keyword_lines(word: str) -> list[str]:
    """A keyword as a tick label: one line, or two where it is long (never cut)."""
    return textwrap.wrap(word, _KEYWORD_LINE_CHARS, break_long_words=True) or [""]


def title_lines(label: str, chars: int) -> list[str]:
    """A panel's title in lines of at most ``chars`` characters, whole."""
    return textwrap.wrap(label, chars, break_long_words=True) or [""]


def _pixels(chars: int, font: int) -> float:
    return chars * _CHAR_WIDTH * font


def keyword_barchart(topics: list[dict], colours: dict[int, str], n_words: int = 8) -> go.Figure:
    """The keyword bars of ``topics`` (the topic details, outliers' group left out, in the order
    shown) in their ``colours``, ``PER_PAGE`` topics a page, a menu choosing the page.
    """
    n_words = max(1, min(n_words, max((len(t["keywords"]) for t in topics), default=1)))
    pages = [topics[start : start + PER_PAGE] for start in range(0, len(topics), PER_PAGE)]
    words = [[word for word, _ in topic["keywords"][:n_words]] for topic in topics]
    longest = max(
        (len(line) for topic_words in words for w in topic_words for line in keyword_lines(w)), default=1
    )
    plot_width = WIDTH - _MARGIN["l"] - _MARGIN["r"]
    column = plot_width / COLUMNS
    gutter = _pixels(longest, _KEYWORD_FONT) + 8  # tick labels sit left of the bars
    bars_width = column - gutter - _GAP
    title_chars = max(8, int((column - _GAP) / (_CHAR_WIDTH * _TITLE_FONT)))
    titles = [title_lines(f"{t['topic']}: {t['label']}", title_chars) for t in topics]
    title_px = max((len(lines) for lines in titles), default=1) * _TITLE_FONT * 1.3 + 6
    bars_px = n_words * _BAR_HEIGHT
    rows = min(ROWS, math.ceil(len(topics) / COLUMNS)) or 1
    menu_px = _MENU_HEIGHT if len(pages) > 1 else 0
    # Tall enough for the page menu, opened, to fit in the figure.
    height = (
        max(menu_px + rows * (title_px + bars_px + _GAP), menu_px + _MENU_ITEM_HEIGHT * len(pages))
        + _MARGIN["b"]
    )
    plot_height = height - _MARGIN["b"]

    def axis_name(slot: int, axis: str) -> str:
        return f"{axis}axis{slot + 1 if slot else ''}"

    layout: dict = {
        "width": WIDTH,
        "height": height,
        "margin": {**_MARGIN, "t": 0},
        "showlegend": False,
        "plot_bgcolor": "white",
        "hovermode": "closest",
        "dragmode": False,
    }
    for slot in range(min(PER_PAGE, len(topics))):
        row, col = divmod(slot, COLUMNS)
        left = (col * column + gutter) / plot_width
        top = plot_height - menu_px - row * (title_px + bars_px + _GAP) - title_px
        layout[axis_name(slot, "x")] = {
            "domain": [left, left + bars_width / plot_width],
            "anchor": f"y{slot + 1 if slot else ''}",
            "showgrid": True,
            "gridcolor": "#eee",
            "zeroline": False,
            "tickfont": {"size": 10},
            "nticks": 4,
            "fixedrange": True,
        }
        layout[axis_name(slot, "y")] = {
            "domain": [(top - bars_px) / plot_height, top / plot_height],
            "anchor": f"x{slot + 1 if slot else ''}",
            "range": [-0.6, n_words - 0.4],
            "tickmode": "array",
            "tickvals": list(range(n_words)),
            "tickfont": {"size": _KEYWORD_FONT},
            "fixedrange": True,
        }

    traces = []
    for index, (topic, topic_words) in enumerate(zip(topics, words, strict=True)):
        slot = index % PER_PAGE
        scores = [score for _, score in topic["keywords"][:n_words]]
        traces.append(
            go.Bar(
                x=scores[::-1],
                y=list(range(n_words - len(scores), n_words)),
                orientation="h",
                marker={"color": colours.get(topic["topic"], "#888"), "line": {"width": 0}},
                customdata=[plotly_text(w) for w in topic_words[::-1]],
                hovertemplate="%{customdata}: %{x:.3f}<extra></extra>",
                xaxis=f"x{slot + 1 if slot else ''}",
                yaxis=f"y{slot + 1 if slot else ''}",
                visible=index < PER_PAGE,
            )
        )

    def page_layout(number: int) -> dict:
        """What changes from page to page: the titles, each panel's keywords, empty panels hidden."""
        changes: dict = {"annotations": []}
        for slot in range(min(PER_PAGE, len(topics))):
            index = number * PER_PAGE + slot
            shown = index < len(topics)
            changes[f"{axis_name(slot, 'x')}.visible"] = shown
            changes[f"{axis_name(slot, 'y')}.visible"] = shown
            padded = [""] * (n_words - len(words[index])) + words[index][::-1] if shown else [""] * n_words
            changes[f"{axis_name(slot, 'y')}.ticktext"] = [
                "<br>".join(plotly_text(line) for line in keyword_lines(w)) if w else "" for w in padded
            ]
            if shown:
                x_domain = layout[axis_name(slot, "x")]["domain"]
                y_domain = layout[axis_name(slot, "y")]["domain"]
                changes["annotations"].append(
                    {
                        "text": "<br>".join(plotly_text(line) for line in titles[index]),
                        "x": (x_domain[0] + x_domain[1]) / 2,
                        "y": y_domain[1],
                        "xref": "paper",
                        "yref": "paper",
                        "xanchor": "center",
                        "yanchor": "bottom",
                        "yshift": 2,
                        "showarrow": False,
                        "font": {"size": _TITLE_FONT},
                    }
                )
        return changes

    first = page_layout(0)
    for key, value in first.items():
        if key == "annotations":
            layout["annotations"] = value
        else:
            axis, attribute = key.split(".")
            layout[axis][attribute] = value
    if len(pages) > 1:
        layout["updatemenus"] = [
            {
                "type": "dropdown",
                "direction": "down",
                "x": 0,
                "y": 1,
                "xanchor": "left",
                "yanchor": "top",
                "showactive": True,
                "buttons": [
                    {
                        "label": f"Topics {number * PER_PAGE + 1}–{number * PER_PAGE + len(page)} of {len(topics)}",
                        "method": "update",
                        "args": [
                            {"visible": [index // PER_PAGE == number for index in range(len(topics))]},
                            page_layout(number),
                        ],
                    }
                    for number, page in enumerate(pages)
                ],
            }
        ]
    return go.Figure(data=traces, layout=layout)
