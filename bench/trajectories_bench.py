"""How well the trajectory test names a topic's shape over many periods (``make bench-trajectories``).

Per shape (peaked, returned, rising, falling, and steady: the null), ``--runs`` simulated runs on
real period sizes: the papers per year of ../shared/corpora's AISTATS 1995-2025 (23 years, 20 to
583 papers a year; a fixed list of the same sizes where the corpus is absent). Each run has the
planted topic, a steady one at 5% beside it, and the rest of the papers in a third topic left
untested; the two are tested together (Benjamini-Hochberg at 5%, ``compare.min_effect_points``
1), as the changes stage tests a run's topics. Reported: how often the planted shape is named,
what else is named, and how often some shape is named in a run without any (the null). Also the
test's cost on 50 topics over the same years. Writes bench/trajectories.md and .json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np
from papertopics.changes.trajectories import SHAPES, STEADY, find_shapes, planted_shares

from bench.common import BENCH, CORPORA
from tests.planted_trajectories import AISTATS_PAPERS, AISTATS_YEARS, PLANTED, TESTED_AT, simulate_shapes

AISTATS = CORPORA / "aistats_1995_2025.jsonl.gz"


def period_sizes() -> tuple[list[int], list[int], str]:
    """The years and papers per year of the AISTATS corpus, or the fallback list."""
    if not AISTATS.exists():
        return AISTATS_YEARS, AISTATS_PAPERS, "fixed list (AISTATS's sizes; the corpus is absent)"
    with gzip.open(AISTATS, "rt", encoding="utf-8") as lines:
        years = Counter(int(json.loads(line)["year"]) for line in lines)
    ordered = sorted(years)
    return ordered, [years[y] for y in ordered], f"counted from {AISTATS.name}"


def simulate(years, sizes, runs: int, low: float, high: float, permutations: int, seed: int) -> dict:
    started = time.perf_counter()
    named = simulate_shapes(years, sizes, runs, low, high, permutations, seed)
    seconds = time.perf_counter() - started
    rows = {}
    for index, shape in enumerate(PLANTED):
        planted = Counter(named[index, :, 0].tolist())
        rows[shape] = {
            "named": {s: planted.get(s, 0) / runs for s in SHAPES},
            "found": planted.get(shape, 0) / runs,
            "any_shape": float((named[index] != STEADY).any(axis=1).mean()),
            "steady_neighbour_named": float((named[index, :, 1] != STEADY).mean()),
        }
    return {"low": low, "high": high, "runs": runs, "seconds": seconds, "shapes": rows}


def cost(years, sizes, permutations: int) -> dict:
    """Seconds of the test on 50 topics at 2% each over the years (no shape: every topic goes
    through the first shuffles only) and with every topic peaked (all go through all shuffles).
    """
    rng = np.random.default_rng(1)
    result = {}
    for name, shape in (("null", STEADY), ("all peaked", "peaked")):
        shares = planted_shares(shape, len(sizes), 0.02, 0.10 if shape != STEADY else 0.02)
        counts = np.stack([rng.binomial(n, shares[i], size=50) for i, n in enumerate(sizes)], -1)
        started = time.perf_counter()
        find_shapes(counts, np.array(sizes), np.array(years), permutations=permutations, **TESTED_AT)
        result[name] = time.perf_counter() - started
    return result


def markdown(results: dict) -> str:
    lines = [
        "# Trajectories: the shape named per planted shape (simulated)",
        "",
        f"`make bench-trajectories`; {results['runs']} runs per shape, {len(results['sizes'])} periods with "
        f"real sizes ({min(results['sizes'])} to {max(results['sizes'])} papers; {results['sizes_from']}), "
        f"{results['permutations']} shuffles, Benjamini-Hochberg at 5% over the run's two tested topics, "
        "min_effect_points 1. A peak rises over the first third of the periods, stays level over the "
        "middle third and falls back over the last; a trough likewise; rising and falling are straight.",
        "",
    ]
    for sim in results["simulations"]:
        lines += [
            f"## {100 * sim['low']:g}% to {100 * sim['high']:g}% of the papers ({sim['seconds']:.0f} s)",
            "",
            "| planted | found | " + " | ".join(f"named {s}" for s in SHAPES) + " | any shape in the run |",
            "|---|---:|" + "---:|" * len(SHAPES) + "---:|",
        ]
        for shape, row in sim["shapes"].items():
            named = " | ".join(f"{100 * row['named'][s]:.1f}%" for s in SHAPES)
            found = f"{100 * row['found']:.1f}%" if shape != STEADY else "–"
            lines.append(f"| {shape} | {found} | {named} | {100 * row['any_shape']:.1f}% |")
        lines.append("")
    lines += [
        "The steady row is the null: its *any shape in the run* is the share of runs with no shape at all "
        "in which some shape was named (5% expected from Benjamini-Hochberg's family-wise level under the "
        "global null; 200 runs carry a Monte Carlo error of about 1.5 points).",
        "",
        f"Cost on 50 topics over these periods: {results['cost']['null']:.1f} s with no shape anywhere, "
        f"{results['cost']['all peaked']:.1f} s with every topic peaked (each goes on to all the shuffles).",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--permutations", type=int, default=999)
    parser.add_argument("--results", type=Path, default=BENCH)
    args = parser.parse_args()
    years, sizes, source = period_sizes()
    results = {
        "runs": args.runs,
        "permutations": args.permutations,
        "years": years,
        "sizes": sizes,
        "sizes_from": source,
        "simulations": [
            simulate(years, sizes, args.runs, low, high, args.permutations, seed=7)
            for low, high in ((0.02, 0.08), (0.02, 0.10))
        ],
        "cost": cost(years, sizes, args.permutations),
    }
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "trajectories.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (args.results / "trajectories.md").write_text(markdown(results), encoding="utf-8")
    print(markdown(results))


if __name__ == "__main__":
    main()
