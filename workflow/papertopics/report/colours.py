"""The report's colours: each topic's, chosen so that topics that touch on the map differ, and
each period's (dump or year), in order along a sequential scale.

A palette handed out by topic id gives neighbouring topics similar colours as often as not (35
topics drew many similar pinks), and so did choosing by the distance of the topics' middles: two
topics whose middles are far apart can still share a long border (#fb0d0d beside #f6222e). Here
two topics touch where enough of their papers are among each other's nearest papers on the map,
and topics take colours largest first, each the least used palette colour that differs by at
least ``_WANTED_CONTRAST`` (CIEDE2000) from the colours of the topics it touches, or the most
different one where none does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from plotly.colors import qualitative, sample_colorscale
from scipy.spatial import cKDTree

from papertopics.mapping.cluster import OUTLIER

OUTLIER_COLOUR = "#b0b0b0"
# A paper HDBSCAN left out but assigned to its nearest topic: the topic's colour this far towards white.
ASSIGNED_LIGHTNESS = 0.55
# Two topics touch where at least _MIN_CONTACTS of their papers have a paper of the other among
# their _NEIGHBOURS nearest papers on the map.
_NEIGHBOURS = 5
_MIN_CONTACTS = 3
# The CIEDE2000 difference sought between touching topics (10 is "clearly different"; more where
# the palette allows, so that the lighter shades of assigned papers differ too).
_WANTED_CONTRAST = 25.0
# Colours too pale or too grey to tell apart on white, or from the outliers' grey, are left out.
_MAX_LIGHTNESS = 85.0
_MIN_CHROMA = 25.0
_PERIOD_SCALE = "Viridis"
_PERIOD_SCALE_END = 0.85  # Viridis's last yellows are hard to see on white


def lighter(colour: str, amount: float = ASSIGNED_LIGHTNESS) -> str:
    """``colour`` (#rrggbb) mixed with white; ``amount`` 0 keeps it, 1 gives white."""
    channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in channels)


def _hex(colour: str) -> str:
    """#rrggbb of a plotly colour given as #rrggbb or rgb(r, g, b)."""
    if colour.startswith("#"):
        return colour.lower()
    channels = [int(float(c)) for c in colour[colour.index("(") + 1 : colour.index(")")].split(",")]
    return "#" + "".join(f"{c:02x}" for c in channels)


def lab(colours: list[str]) -> np.ndarray:
    """CIE Lab (D65) of #rrggbb colours, one row each."""
    rgb = np.array([[int(c[i : i + 2], 16) / 255 for i in (1, 3, 5)] for c in colours])
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = (
        linear
        @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]).T
        / np.array([0.95047, 1.0, 1.08883])
    )
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.column_stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])])


def _palette() -> list[str]:
    colours = list(
        dict.fromkeys(_hex(c) for c in qualitative.Dark24 + qualitative.Alphabet + qualitative.Light24)
    )
    values = lab(colours)
    chroma = np.hypot(values[:, 1], values[:, 2])
    return [
        c
        for c, (light, _, _), ch in zip(colours, values, chroma, strict=True)
        if light <= _MAX_LIGHTNESS and ch >= _MIN_CHROMA
    ]


PALETTE = _palette()


def ciede2000(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The CIEDE2000 colour difference (Sharma, Wu and Dalal 2005) between Lab colours, row by row
    (the arrays broadcast: shape (..., 3)).
    """
    l1, a1, b1 = np.moveaxis(np.asarray(first, dtype=float), -1, 0)
    l2, a2, b2 = np.moveaxis(np.asarray(second, dtype=float), -1, 0)
    mean_chroma7 = ((np.hypot(a1, b1) + np.hypot(a2, b2)) / 2) ** 7
    g = 0.5 * (1 - np.sqrt(mean_chroma7 / (mean_chroma7 + 25.0**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    h1, h2 = np.degrees(np.arctan2(b1, a1)) % 360, np.degrees(np.arctan2(b2, a2)) % 360
    grey = c1 * c2 == 0
    dh = h2 - h1
    dh = np.where(grey, 0.0, np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh)))
    d_hue = 2 * np.sqrt(c1 * c2) * np.sin(np.radians(dh / 2))
    mean_l, mean_c, hue_sum = (l1 + l2) / 2, (c1 + c2) / 2, h1 + h2
    mean_h = np.where(
        grey,
        hue_sum,
        np.where(
            np.abs(h1 - h2) <= 180, hue_sum / 2, np.where(hue_sum < 360, hue_sum + 360, hue_sum - 360) / 2
        ),
    )
    t = (
        1
        - 0.17 * np.cos(np.radians(mean_h - 30))
        + 0.24 * np.cos(np.radians(2 * mean_h))
        + 0.32 * np.cos(np.radians(3 * mean_h + 6))
        - 0.20 * np.cos(np.radians(4 * mean_h - 63))
    )
    rotation = (
        -np.sin(np.radians(60 * np.exp(-(((mean_h - 275) / 25) ** 2))))
        * 2
        * np.sqrt(mean_c**7 / (mean_c**7 + 25.0**7))
    )
    lightness = (l2 - l1) / (1 + 0.015 * (mean_l - 50) ** 2 / np.sqrt(20 + (mean_l - 50) ** 2))
    chroma = (c2 - c1) / (1 + 0.045 * mean_c)
    hue = d_hue / (1 + 0.015 * mean_c * t)
    return np.sqrt(lightness**2 + chroma**2 + hue**2 + rotation * chroma * hue)


def touching_topics(
    papers: pd.DataFrame, neighbours: int = _NEIGHBOURS, min_contacts: int = _MIN_CONTACTS
) -> dict[int, set[int]]:
    """Each topic's (``papers["topic"]``, the outliers' group left out) topics that touch it on the
    map (``x``, ``y``): at least ``min_contacts`` papers of one have a paper of the other among their
    ``neighbours`` nearest papers (every paper counts as a neighbour, the topic-less too).
    """
    topic = papers["topic"].to_numpy(dtype=int)
    touching: dict[int, set[int]] = {int(t): set() for t in np.unique(topic) if t != OUTLIER}
    count = min(neighbours, len(papers) - 1)
    if count < 1:
        return touching
    points = papers[["x", "y"]].to_numpy(dtype=float)
    _, nearest = cKDTree(points).query(points, k=count + 1)
    own = np.repeat(topic, count)
    other = topic[nearest[:, 1:].ravel()]
    keep = (own != other) & (own != OUTLIER) & (other != OUTLIER)
    pairs = np.sort(np.column_stack([own[keep], other[keep]]), axis=1)
    found, contacts = np.unique(pairs, axis=0, return_counts=True)
    for a, b in found[contacts >= min_contacts].tolist():
        touching[a].add(b)
        touching[b].add(a)
    return touching


def topic_colours(touching: dict[int, set[int]], sizes: dict[int, int]) -> dict[int, str]:
    """A colour per topic in ``touching`` (``touching_topics``), so that topics that touch differ;
    deterministic. ``sizes`` orders the choice (largest first).
    """
    palette_lab = lab(PALETTE)
    chosen: dict[int, int] = {}
    used = np.zeros(len(PALETTE), dtype=int)
    for topic in sorted(touching, key=lambda t: (-sizes.get(t, 0), t)):
        taken = [chosen[n] for n in sorted(touching[topic]) if n in chosen]
        if taken:
            contrast = ciede2000(palette_lab[:, None, :], palette_lab[taken][None, :, :]).min(axis=1)
        else:
            contrast = np.full(len(PALETTE), np.inf)
        enough = np.flatnonzero(contrast >= _WANTED_CONTRAST)
        pick = int(enough[np.argmin(used[enough])]) if len(enough) else int(np.argmax(contrast))
        chosen[topic] = pick
        used[pick] += 1
    return {topic: PALETTE[index] for topic, index in chosen.items()}


# More periods than this are coloured along a sequential scale with a colour bar (thirty years
# as thirty categories cannot be told apart); this many or fewer as categories, one hue each.
MANY_PERIODS = 8
# Okabe and Ito's colour-blind-safe categories (their yellow, hard to see on white, left out).
_PERIOD_CATEGORIES = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#000000", "#999999"]


def periods_are_sequential(count: int) -> bool:
    """Whether ``count`` periods are coloured along a scale (else as categories)."""
    return count > MANY_PERIODS


def period_colours(count: int) -> list[str]:
    """Colours of ``count`` periods, oldest first: along a sequential scale (dark to light) for
    many periods, else one category each.
    """
    if count == 0:
        return []
    if not periods_are_sequential(count):
        return category_colours(count)
    return scale_colours(count)


def category_colours(count: int) -> list[str]:
    """Up to eight colour-blind-safe colours for unordered categories (periods, decisions)."""
    return _PERIOD_CATEGORIES[:count]


def scale_colours(count: int) -> list[str]:
    """``count`` colours along the sequential scale, low (dark) to high (light)."""
    points = list(np.linspace(0, _PERIOD_SCALE_END, count))
    return [_hex(c) for c in sample_colorscale(_PERIOD_SCALE, points)]


def colour_of(colours: dict[int, str], topic: int) -> str:
    """A topic's colour in the map's scheme (``topic_colours``); grey for a topic it does not have
    (the outliers, or a topic of an earlier run that is gone).
    """
    return colours.get(topic, OUTLIER_COLOUR)
