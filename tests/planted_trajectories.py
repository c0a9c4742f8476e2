"""Planted trajectories on real period sizes: the simulation tests/test_trajectories.py asserts on
and bench/trajectories_bench.py tabulates (the benchmark imports it from here).
"""

from __future__ import annotations

import numpy as np
from papertopics.changes.trajectories import find_shapes, planted_shares

# Papers per year of the AISTATS dump in ../shared/corpora (23 years, 1995-2025, counted once
# from the corpus and written here as data, so that the test needs no corpus).
AISTATS_YEARS = [1995, 1997, 1999, 2001, 2003, 2007, 2009, 2010, 2011, 2012, 2013, 2014]
AISTATS_YEARS += [2015, 2016, 2017, 2018, 2019, 2020, 2021, 2022, 2023, 2024, 2025]
AISTATS_PAPERS = [59, 55, 20, 46, 44, 84, 84, 125, 99, 157, 71, 121, 125, 163, 167, 216, 359]
AISTATS_PAPERS += [423, 455, 489, 496, 547, 583]
PLANTED = ["peaked", "returned", "rising", "falling", "steady"]
STEADY_SHARE = 0.05
# The test's settings in every simulation: compare's defaults (q 0.05, a move of at least 1 point,
# 95% intervals).
TESTED_AT = {"false_discovery_rate": 0.05, "min_effect": 1.0, "confidence": 0.95}


def simulate_shapes(
    years: list[int], sizes: list[int], runs: int, low: float, high: float, permutations: int, seed: int
) -> np.ndarray:
    """The shape named for each planted topic and its steady neighbour: per shape of ``PLANTED``,
    ``runs`` runs of a topic of that shape from ``low`` to ``high`` and a steady one at 5% (the
    rest of the papers in a third, untested topic), each run corrected on its own; an array of
    shape names, shapes x runs x 2 topics.
    """
    rng = np.random.default_rng(seed)
    count = len(sizes)
    blocks = []
    for shape in PLANTED:
        planted = planted_shares(shape, count, low, high)
        shares = np.column_stack([planted, np.full(count, STEADY_SHARE), 1 - planted - STEADY_SHARE])
        drawn = np.stack([rng.multinomial(n, s, size=runs) for n, s in zip(sizes, shares, strict=True)], -1)
        blocks.append(drawn[:, :2])
    found = find_shapes(
        np.stack(blocks).reshape(-1, count),
        np.array(sizes),
        np.array(years),
        permutations=permutations,
        groups=len(PLANTED) * runs,
        **TESTED_AT,
    )
    return np.array([t.shape for t in found.trajectories]).reshape(len(PLANTED), runs, 2)
