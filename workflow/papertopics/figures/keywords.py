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
from dataclasses import dataclass

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


@dataclass(frozen=True)
class _Grid:
    """Where the panels go: ``COLUMNS`` a row, each a title over ``n_words`` bars, a page menu on top."""

    n_words: int
    column: float  # pixels per panel, keywords included
    gutter: float  # pixels left of the bars for the keywords
    title_px: float
    menu_px: int
    height: int | float

    @property
    def plot_width(self) -> int:
        return WIDTH - _MARGIN["l"] - _MARGIN["r"]

    @property
    def plot_height(self) -> int | float:
        return self.height - _MARGIN["b"]

    @property
    def bars_px(self) -> int:
        return self.n_words * _BAR_HEIGHT


def _grid(topics: list[dict], longest: int, titles: list[list[str]], n_words: int, pages: int) -> _Grid:
    """The panels' sizes for keywords of ``longest`` characters and the panel ``titles``."""
    column = (WIDTH - _MARGIN["l"] - _MARGIN["r"]) / COLUMNS
    title_px = max((len(lines) for lines in titles), default=1) * _TITLE_FONT * 1.3 + 6
    rows = min(ROWS, math.ceil(len(topics) / COLUMNS)) or 1
    menu_px = _MENU_HEIGHT if pages > 1 else 0
    # Tall enough for the page menu, opened, to fit in the figure.
    height = (
        max(menu_px + rows * (title_px + n_words * _BAR_HEIGHT + _GAP), menu_px + _MENU_ITEM_HEIGHT * pages)
        + _MARGIN["b"]
    )
    gutter = _pixels(longest, _KEYWORD_FONT) + 8  # tick labels sit left of the bars
    return _Grid(n_words, column, gutter, title_px, menu_px, height)


def _axis_name(slot: int, axis: str) -> str:
    return f"{axis}axis{slot + 1 if slot else ''}"


def _suffix(slot: int) -> str:
    return f"{slot + 1 if slot else ''}"


def _panel_axes(grid: _Grid, slot: int) -> dict[str, dict]:
    """The x (scores) and y (keywords) axes of the panel in ``slot`` of a page."""
    row, col = divmod(slot, COLUMNS)
    left = (col * grid.column + grid.gutter) / grid.plot_width
    bars_width = grid.column - grid.gutter - _GAP
    top = grid.plot_height - grid.menu_px - row * (grid.title_px + grid.bars_px + _GAP) - grid.title_px
    return {
        _axis_name(slot, "x"): {
            "domain": [left, left + bars_width / grid.plot_width],
            "anchor": f"y{_suffix(slot)}",
            "showgrid": True,
            "gridcolor": "#eee",
            "zeroline": False,
            "tickfont": {"size": 10},
            "nticks": 4,
            "fixedrange": True,
        },
        _axis_name(slot, "y"): {
            "domain": [(top - grid.bars_px) / grid.plot_height, top / grid.plot_height],
            "anchor": f"x{_suffix(slot)}",
            "range": [-0.6, grid.n_words - 0.4],
            "tickmode": "array",
            "tickvals": list(range(grid.n_words)),
            "tickfont": {"size": _KEYWORD_FONT},
            "fixedrange": True,
        },
    }


def _bars(topic: dict, words: list[str], colour: str, n_words: int, index: int) -> go.Bar:
    """One topic's keyword bars, top keyword on top, in its page's panel (shown on the first page)."""
    slot = index % PER_PAGE
    scores = [score for _, score in topic["keywords"][:n_words]]
    return go.Bar(
        x=scores[::-1],
        y=list(range(n_words - len(scores), n_words)),
        orientation="h",
        marker={"color": colour, "line": {"width": 0}},
        customdata=[plotly_text(w) for w in words[::-1]],
        hovertemplate="%{customdata}: %{x:.3f}<extra></extra>",
        xaxis=f"x{_suffix(slot)}",
        yaxis=f"y{_suffix(slot)}",
        visible=index < PER_PAGE,
    )


def _title_annotation(lines: list[str], axes: dict[str, dict], slot: int) -> dict:
    """A panel's title, centred over its bars."""
    x_domain = axes[_axis_name(slot, "x")]["domain"]
    return {
        "text": "<br>".join(plotly_text(line) for line in lines),
        "x": (x_domain[0] + x_domain[1]) / 2,
        "y": axes[_axis_name(slot, "y")]["domain"][1],
        "xref": "paper",
        "yref": "paper",
        "xanchor": "center",
        "yanchor": "bottom",
        "yshift": 2,
        "showarrow": False,
        "font": {"size": _TITLE_FONT},
    }


def _page_layout(
    number: int, words: list[list[str]], titles: list[list[str]], axes: dict, n_words: int
) -> dict:
    """What changes from page to page: the titles, each panel's keywords, empty panels hidden."""
    changes: dict = {"annotations": []}
    for slot in range(min(PER_PAGE, len(words))):
        index = number * PER_PAGE + slot
        shown = index < len(words)
        changes[f"{_axis_name(slot, 'x')}.visible"] = shown
        changes[f"{_axis_name(slot, 'y')}.visible"] = shown
        padded = [""] * (n_words - len(words[index])) + words[index][::-1] if shown else [""] * n_words
        changes[f"{_axis_name(slot, 'y')}.ticktext"] = [
            "<br>".join(plotly_text(line) for line in keyword_lines(w)) if w else "" for w in padded
        ]
        if shown:
            changes["annotations"].append(_title_annotation(titles[index], axes, slot))
    return changes


def _page_menu(pages: list[list[dict]], page_layouts: list[dict]) -> dict:
    """The dropdown that shows one page's bars and applies its layout."""
    total = sum(len(page) for page in pages)
    return {
        "type": "dropdown",
        "direction": "down",
        "x": 0,
        "y": 1,
        "xanchor": "left",
        "yanchor": "top",
        "showactive": True,
        "buttons": [
            {
                "label": f"Topics {number * PER_PAGE + 1}–{number * PER_PAGE + len(page)} of {total}",
                "method": "update",
                "args": [
                    {"visible": [index // PER_PAGE == number for index in range(total)]},
                    page_layouts[number],
                ],
            }
            for number, page in enumerate(pages)
        ],
    }


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
    column = (WIDTH - _MARGIN["l"] - _MARGIN["r"]) / COLUMNS
    title_chars = max(8, int((column - _GAP) / (_CHAR_WIDTH * _TITLE_FONT)))
    titles = [title_lines(f"{t['topic']}: {t['label']}", title_chars) for t in topics]
    grid = _grid(topics, longest, titles, n_words, len(pages))
    axes: dict = {}
    for slot in range(min(PER_PAGE, len(topics))):
        axes.update(_panel_axes(grid, slot))
    layout: dict = {
        "width": WIDTH,
        "height": grid.height,
        "margin": {**_MARGIN, "t": 0},
        "showlegend": False,
        "plot_bgcolor": "white",
        "hovermode": "closest",
        "dragmode": False,
        **axes,
    }
    traces = [
        _bars(topic, topic_words, colours.get(topic["topic"], "#888"), n_words, index)
        for index, (topic, topic_words) in enumerate(zip(topics, words, strict=True))
    ]
    # The first page's layout is the figure's own; with no topics, an empty page.
    page_layouts = [
        _page_layout(number, words, titles, axes, n_words) for number in range(max(1, len(pages)))
    ]
    for key, value in page_layouts[0].items():
        if key == "annotations":
            layout["annotations"] = value
        else:
            axis, attribute = key.split(".")
            layout[axis][attribute] = value
    if len(pages) > 1:
        layout["updatemenus"] = [_page_menu(pages, page_layouts)]
    return go.Figure(data=traces, layout=layout)
