"""The report's colours: each topic's, chosen so that topics side by side on the map differ, and
each period's (dump or year), in order along a sequential scale.

A palette handed out by topic id gives neighbouring topics similar colours as often as not (35
topics drew many similar pinks). Here topics take colours largest first, each the least used
palette colour that differs by at least ``_MIN_CONTRAST`` (CIE76 distance in Lab) from the
colours of the topics nearest it on the map, or the most different one where none does.
"""

from __future__ import annotations

import numpy as np
from plotly.colors import qualitative, sample_colorscale

OUTLIER_COLOUR = "#b0b0b0"
# A paper HDBSCAN left out but assigned to its nearest topic: the topic's colour this far towards white.
ASSIGNED_LIGHTNESS = 0.55
# How many of a topic's nearest topics (by their places on the map) must get other colours.
_NEIGHBOURS = 6
_MIN_CONTRAST = 30.0
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


def nearest_topics(places: dict[int, tuple[float, float]], count: int = _NEIGHBOURS) -> dict[int, set[int]]:
    """Each topic's nearest topics on the map, both ways (b is a's neighbour when a is b's)."""
    topics = list(places)
    points = np.array([places[t] for t in topics], dtype=float).reshape(-1, 2)
    near: dict[int, set[int]] = {t: set() for t in topics}
    if len(topics) < 2:
        return near
    distances = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    np.fill_diagonal(distances, np.inf)
    for i, topic in enumerate(topics):
        for j in np.argsort(distances[i], kind="stable")[: min(count, len(topics) - 1)]:
            near[topic].add(topics[j])
            near[topics[j]].add(topic)
    return near


def topic_colours(places: dict[int, tuple[float, float]], sizes: dict[int, int]) -> dict[int, str]:
    """A colour per topic in ``places`` (its label's place on the map), so that topics near each
    other differ; deterministic. ``sizes`` orders the choice (largest first).
    """
    palette_lab = lab(PALETTE)
    near = nearest_topics(places)
    chosen: dict[int, int] = {}
    used = np.zeros(len(PALETTE), dtype=int)
    for topic in sorted(places, key=lambda t: (-sizes.get(t, 0), t)):
        taken = [chosen[n] for n in near[topic] if n in chosen]
        if taken:
            contrast = np.linalg.norm(palette_lab[:, None, :] - palette_lab[taken][None, :, :], axis=2).min(
                axis=1
            )
        else:
            contrast = np.full(len(PALETTE), np.inf)
        enough = np.flatnonzero(contrast >= _MIN_CONTRAST)
        pick = int(enough[np.argmin(used[enough])]) if len(enough) else int(np.argmax(contrast))
        chosen[topic] = pick
        used[pick] += 1
    return {topic: PALETTE[index] for topic, index in chosen.items()}


def period_colours(count: int) -> list[str]:
    """Colours of ``count`` periods, oldest first, along a sequential scale (dark to light)."""
    if count == 0:
        return []
    points = [0.0] if count == 1 else list(np.linspace(0, _PERIOD_SCALE_END, count))
    return [_hex(c) for c in sample_colorscale(_PERIOD_SCALE, points)]


def colour_of(colours: dict[int, str], topic: int) -> str:
    """A topic's colour in the map's scheme (``topic_colours``); grey for a topic it does not have
    (the outliers, or a topic of an earlier run that is gone).
    """
    return colours.get(topic, OUTLIER_COLOUR)
