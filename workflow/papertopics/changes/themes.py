"""Themes within a topic: whether a topic's papers of an early era are about something else than
its papers of a later one (connectionist vision in 1990, ImageNet-era CNNs in 2016, one topic).

A topic's periods (years or dumps, in order; never unordered venues) are split once in time, into
an earlier and a later era, at the split that best separates its papers' embeddings: the one where
the era explains the largest share of the topic's spread (``explained``: the between-era sum of
squares over the total, about the centroids, as PERMANOVA's R²; for unit vectors a squared
distance is twice the cosine distance). Each era needs ``min_papers`` clustered papers. Whether the
split is more than chance is a permutation test: the topic's papers keep their vectors, their
periods are shuffled among them (every period keeps its number of papers), and the best split is
searched again in each shuffle, so the test pays for having picked the split from the data.
Benjamini–Hochberg runs across the topics tested. A topic drifts in any long series, and with many
papers a small drift is significant, so a theme *changed* only where the eras also explain at least
``min_explained`` of the spread beyond what the best split explains by chance (the shuffles' mean,
which is larger for a small topic: a minimum effect, as the trends have a minimum move).

Each era's wording comes from the topics stage's wording per period (``topic_details.json``): a
phrase scores the share of the era's papers whose period's wording holds it, and the era is named
by the phrases it scores higher than the other era does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from papertopics.mapping.cluster import OUTLIER
from papertopics.periods.assign import Periods
from papertopics.stats import benjamini_hochberg

THEME_TEST = (
    "best single split of the topic's periods into two eras by the share of its embedding spread the eras "
    "explain; permutation test with the papers' periods shuffled, Benjamini-Hochberg across topics"
)
# Phrases naming an era in the sentence and the view.
ERA_WORDS = 3
# Topics drawn in the thematic-evolution view: the largest tested ones.
VIEW_TOPICS = 8
_CHUNK = 64  # shuffles per array product (memory: chunk × splits × dimensions)


@dataclass(frozen=True)
class Split:
    """A topic's best split into two eras: how many of its (period-sorted) papers are in the earlier
    era, the share of its spread the eras explain, and the cosine similarity of the eras' centroids.
    """

    early_papers: int
    explained: float
    similarity: float


@dataclass(frozen=True)
class Era:
    """One era of a topic: its first and last period, its clustered papers, its wording."""

    first: str
    last: str
    papers: int
    keywords: tuple[str, ...]


def _explained(early_sums, early_counts, total: np.ndarray, papers: int, ss_total: float) -> np.ndarray:
    """The share of the spread each split explains: its between-era sum of squares over the total.
    ``early_sums``: (... × splits × dimensions) the earlier era's vector sums, ``early_counts`` its
    papers per split, ``total`` all ``papers``' vector sum, ``ss_total`` their sum of squares.
    """
    late_sums = total - early_sums
    late_counts = papers - early_counts
    between = (
        np.einsum("...d,...d->...", early_sums, early_sums) / early_counts
        + np.einsum("...d,...d->...", late_sums, late_sums) / late_counts
        - total @ total / papers
    )
    return between / ss_total if ss_total > 0 else np.zeros_like(between)


def _split_sizes(period_counts: np.ndarray, min_papers: int) -> np.ndarray:
    """The earlier era's size at each split between two periods where both eras have
    ``min_papers`` papers (a period without papers adds no split of its own).
    """
    cumulative = np.cumsum(period_counts)[:-1]
    papers = int(np.sum(period_counts))
    return np.unique(cumulative[(cumulative >= min_papers) & (papers - cumulative >= min_papers)])


def _sum_of_squares(vectors: np.ndarray, total: np.ndarray) -> float:
    return float(np.einsum("ij,ij->", vectors, vectors) - total @ total / len(vectors))


def best_split(vectors: np.ndarray, period_counts, min_papers: int) -> Split | None:
    """The split of a topic's papers (``vectors``, sorted by period; ``period_counts`` papers in
    each period, in order) into two eras that explains most of their spread; None where no split
    leaves ``min_papers`` in both eras.
    """
    sizes = _split_sizes(np.asarray(period_counts), min_papers)
    if not sizes.size:
        return None
    cumulative = np.cumsum(vectors, axis=0)
    total = cumulative[-1]
    explained = _explained(cumulative[sizes - 1], sizes, total, len(vectors), _sum_of_squares(vectors, total))
    best = int(np.argmax(explained))
    early = cumulative[sizes[best] - 1]
    late = total - early
    similarity = float(early @ late / max(np.linalg.norm(early) * np.linalg.norm(late), 1e-12))
    return Split(int(sizes[best]), float(explained[best]), similarity)


def split_pvalue(
    vectors: np.ndarray, period_counts, min_papers: int, observed: float, permutations: int, seed: int = 0
) -> tuple[float, float]:
    """The permutation p-value of a best split explaining ``observed``, and the share the best
    split explains by chance (its mean over the shuffles): the papers' periods are shuffled among
    them (each period keeps its count) and the best split searched again.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    import scipy.sparse as sp

    sizes = _split_sizes(np.asarray(period_counts), min_papers)
    papers, splits = len(vectors), len(sizes)
    total = vectors.sum(axis=0)
    ss_total = _sum_of_squares(vectors, total)
    # Each shuffle's place of every paper in the period order (a uniform random permutation).
    places = np.argsort(np.random.default_rng(seed).random((permutations, papers)), axis=1)
    as_large, by_chance = 0, 0.0
    for start in range(0, permutations, _CHUNK):
        chunk = places[start : start + _CHUNK]
        # A paper is in split s's earlier era where its place is below sizes[s], so in every split
        # from the number of sizes its place reaches: its vector summed once into that bin, the
        # bins' running sums are the earlier eras' (papers × dimensions per shuffle, not × splits).
        bins = np.searchsorted(sizes, chunk, side="right") + (splits + 1) * np.arange(len(chunk))[:, None]
        binned = sp.csr_matrix(
            (np.ones(chunk.size), (bins.ravel(), np.tile(np.arange(papers), len(chunk)))),
            shape=((splits + 1) * len(chunk), papers),
        )
        early = np.cumsum((binned @ vectors).reshape(len(chunk), splits + 1, -1), axis=1)[:, :splits]
        null = _explained(early, sizes, total, papers, ss_total).max(axis=-1)
        as_large += int(np.sum(null >= observed - 1e-12))
        by_chance += float(null.sum())
    return (1 + as_large) / (1 + permutations), by_chance / permutations


def era_keywords(wording: list[dict], era: list[str], other: list[str], count: int = ERA_WORDS) -> tuple:
    """The phrases naming an era from the topic's wording per period (``{"period", "papers",
    "keywords"}``): each phrase scores the share of the era's papers whose period's wording holds
    it; those scoring higher than in the ``other`` era come first, most distinctive first.
    """

    def scores(names: list[str]) -> dict[str, float]:
        entries = [w for w in wording if w["period"] in set(names)]
        papers = sum(w["papers"] for w in entries) or 1
        scored: dict[str, float] = {}
        for entry in entries:
            for phrase in entry["keywords"]:
                scored[phrase] = scored.get(phrase, 0.0) + entry["papers"] / papers
        return scored

    own, theirs = scores(era), scores(other)
    first_seen = {phrase: place for place, phrase in enumerate(own)}
    distinct = [p for p in own if own[p] > theirs.get(p, 0.0)]
    ranked = sorted(distinct, key=lambda p: (-(own[p] - theirs.get(p, 0.0)), -own[p], first_seen[p]))
    return tuple((ranked or sorted(own, key=lambda p: (-own[p], first_seen[p])))[:count])


@dataclass(frozen=True)
class _Tested:
    """A topic's papers over the tested periods and its best split, as the record and view need them."""

    topic: int
    vectors: np.ndarray  # its clustered papers' embeddings, sorted by period
    places: np.ndarray  # each paper's period (an index into the tested periods)
    split: Split
    p_value: float
    chance: float  # the share the best split explains with the periods shuffled (its mean)

    def centroids(self) -> tuple[np.ndarray, np.ndarray]:
        """The earlier and the later era's mean direction (unit vectors)."""
        early = self.vectors[: self.split.early_papers].sum(axis=0)
        late = self.vectors[self.split.early_papers :].sum(axis=0)
        return early / max(np.linalg.norm(early), 1e-12), late / max(np.linalg.norm(late), 1e-12)


def _topic_papers(papers: pd.DataFrame, periods: Periods, tested: list[str]):
    """Each (paper, tested period) pair of a clustered paper: its row, its period's index, its topic."""
    place = {name: index for index, name in enumerate(tested)}
    topics = papers["topic"].to_numpy()[periods.rows]
    clustered = ~papers["outlier"].to_numpy(dtype=bool)[periods.rows]
    in_tested = np.array([name in place for name in periods.period], dtype=bool)
    keep = clustered & in_tested & (topics != OUTLIER)
    return periods.rows[keep], np.array([place[n] for n in periods.period[keep]], dtype=int), topics[keep]


def _eras(found: _Tested, tested: list[str], wording: list[dict]) -> list[Era]:
    cut = found.split.early_papers
    spans = [(found.places[0], found.places[cut - 1]), (found.places[cut], found.places[-1])]
    names = [tested[first : last + 1] for first, last in spans]
    return [
        Era(tested[first], tested[last], papers, era_keywords(wording, names[side], names[1 - side]))
        for side, ((first, last), papers) in enumerate(
            zip(spans, (cut, len(found.places) - cut), strict=True)
        )
    ]


def _view(found: list[_Tested], changed: set[int]) -> dict:
    """The thematic-evolution view of the topics whose theme changed and the largest other tested
    ones (``VIEW_TOPICS`` in all), largest first: each one's earlier era leads to its own later era
    and to any other topic's later era its papers are closer to.
    """
    chosen = sorted(found, key=lambda f: (f.topic not in changed, -len(f.places), f.topic))[:VIEW_TOPICS]
    largest = sorted(chosen, key=lambda f: (-len(f.places), f.topic))
    early, late = zip(*(f.centroids() for f in largest), strict=True)
    similarity = np.array(early) @ np.array(late).T
    links = [
        {"from": int(a.topic), "to": int(b.topic), "similarity": round(float(similarity[i, j]), 4)}
        for i, a in enumerate(largest)
        for j, b in enumerate(largest)
        if i == j or similarity[i, j] > similarity[i, i]
    ]
    return {"topics": [int(f.topic) for f in largest], "links": links}


def topic_themes(
    papers: pd.DataFrame, vectors: np.ndarray, periods: Periods, tested: list[str], topic_details, settings
) -> dict:
    """Each topic's best split into two eras, tested (``changes.json``'s ``themes``): its eras (first
    and last period, clustered papers, wording), the share of its spread they explain, the eras'
    centroid similarity, p and q, and whether its theme ``changed``; and the thematic-evolution view.

    ``papers``: the topics stage's paper table (``topic``, ``outlier`` as booleans), ``vectors`` its
    embeddings in the same order; ``tested``: the periods that take part in the tests, in order;
    ``settings``: the ``compare`` knobs (``theme_min_papers``, ``theme_min_explained``,
    ``theme_permutations``, ``false_discovery_rate``).
    """
    if not periods.ordered:
        return {"available": False, "reason": f"compare.by is {periods.by!r}, whose groups have no order"}
    if len(tested) < 2:
        return {
            "available": False,
            "reason": f"two eras need 2 or more {periods.by}s with {settings.min_period_papers} papers or more",
        }
    rows, places, topics = _topic_papers(papers, periods, tested)
    found = []
    for topic in sorted(set(topics.tolist())):
        order = np.argsort(places[topics == topic], kind="stable")
        own_places = places[topics == topic][order]
        own = vectors[rows[topics == topic][order]].astype(np.float64)
        counts = np.bincount(own_places, minlength=len(tested))
        split = best_split(own, counts, settings.theme_min_papers)
        if split is not None:
            p, chance = split_pvalue(
                own, counts, settings.theme_min_papers, split.explained, settings.theme_permutations
            )
            found.append(_Tested(int(topic), own, own_places, split, p, chance))
    q_values = benjamini_hochberg([f.p_value for f in found])
    details = {t["topic"]: t for t in topic_details}
    listed = []
    for f, q in zip(found, q_values, strict=True):
        beyond = f.split.explained - f.chance
        changed = bool(q < settings.false_discovery_rate and beyond >= settings.theme_min_explained)
        eras = _eras(f, tested, details.get(f.topic, {}).get("wording", []))
        listed.append(
            {
                "topic": f.topic,
                "label": details.get(f.topic, {}).get("label", str(f.topic)),
                "papers": len(f.places),
                "eras": [{**vars(e), "keywords": list(e.keywords)} for e in eras],
                "explained": round(f.split.explained, 6),
                "chance_explained": round(f.chance, 6),
                "beyond_chance": round(beyond, 6),
                "similarity": round(f.split.similarity, 6),
                "p_value": f.p_value,
                "q_value": float(q),
                "changed": changed,
            }
        )
    listed.sort(key=lambda t: (not t["changed"], -t["beyond_chance"], t["topic"]))
    return {
        "available": True,
        "test": THEME_TEST,
        "by": periods.by,
        "tested_on": "clustered",
        "min_papers": settings.theme_min_papers,
        "min_explained": settings.theme_min_explained,
        "permutations": settings.theme_permutations,
        "topics": listed,
        "view": _view(found, {t["topic"] for t in listed if t["changed"]})
        if found
        else {"topics": [], "links": []},
    }


THEME_COLUMNS = ["topic", "label", "papers", "changed", "explained", "chance_explained", "beyond_chance"]
THEME_COLUMNS += ["similarity", "p_value", "q_value"]
ERA_COLUMNS = ["first", "last", "papers", "keywords"]


def theme_table(themes: dict) -> pd.DataFrame:
    """``themes.csv``: one row per topic tested, as in ``changes.json``'s ``themes``, each era's
    first and last period, papers and keywords (``; ``-separated) in ``early_…`` and ``late_…``
    columns; only the header where none was tested.
    """
    columns = THEME_COLUMNS + [f"{side}_{c}" for side in ("early", "late") for c in ERA_COLUMNS]
    rows = []
    for row in themes.get("topics", []):
        eras = {
            f"{side}_{c}": "; ".join(era[c]) if c == "keywords" else era[c]
            for side, era in zip(("early", "late"), row["eras"], strict=True)
            for c in ERA_COLUMNS
        }
        rows.append({**{c: row[c] for c in THEME_COLUMNS}, **eras})
    return pd.DataFrame(rows, columns=columns)
