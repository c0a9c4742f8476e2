"""A small share-per-period line, drawn as inline SVG (no script, no chart library), and the
periods' counts in words beside it.
"""

from __future__ import annotations

from markupsafe import Markup

from papertopics.report.render import render

_WIDTH, _HEIGHT, _PAD = 84, 22, 2


def share_sparkline(
    shares: list[float], periods: list[str], counts: list[str], colour: str = "#1f5fa8"
) -> Markup:
    """A line through a topic's share in each period, scaled to its own largest share, with the
    periods and counts (``counts``: "16 of 610") as its accessible text and tooltip.
    """
    if not shares:
        return Markup()
    top = max(max(shares), 1e-9)
    step = (_WIDTH - 2 * _PAD) / max(len(shares) - 1, 1)
    points = [
        (_PAD + i * step, _HEIGHT - _PAD - (_HEIGHT - 2 * _PAD) * share / top)
        for i, share in enumerate(shares)
    ]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    described = "; ".join(
        f"{period}: {100 * share:.1f}% ({count})"
        for period, share, count in zip(periods, shares, counts, strict=True)
    )
    last_x, last_y = points[-1]
    return render(
        "sparkline.html",
        width=_WIDTH,
        height=_HEIGHT,
        described=described,
        colour=colour,
        path=path,
        last_x=f"{last_x:.1f}",
        last_y=f"{last_y:.1f}",
    )


def counts_text(papers: list[int], totals: list[int]) -> list[str]:
    """Each period's count as "n of N"."""
    return [f"{n} of {total}" for n, total in zip(papers, totals, strict=True)]


def counts_phrase(clustered: list[int], papers: list[int]) -> str:
    """The clustered counts over the periods, with all the topic's papers beside them where
    outliers were assigned to it: "2 → 31; 3 → 38 with the outliers assigned to it".
    """
    text = " → ".join(str(n) for n in clustered)
    if list(papers) != list(clustered):
        text += f"; {' → '.join(str(n) for n in papers)} with the outliers assigned to it"
    return text
