"""Which correction suits the venue cells' "found, and nothing else" claim (``make bench-venue-families``).

The venues stage tests every topic × venue cell and corrects with Benjamini–Hochberg across all
cells. Here the same cell tests (``venues.cell_tests``) are corrected three ways: BH across all
cells (the stage's), Holm across all cells (the chance of any false cell), and a per-topic family
(each topic's 2 × venues chi-square first, BH across topics, then the selected topics' cells with
BH at the level scaled by the share of topics selected: Benjamini and Bogomolov's). On IJCAI
2020-2024's 16 area labels as stand-in topics (as ``tests/test_venues.py``), papers split at random
into three venues: the null (no planted cell), one planted area (40 copies of "Search" papers in
venue a) and four planted at once. Reported per correction: null runs with no significant cell,
planted cells found, and runs where nothing else is significant. Writes bench/venue-families.md
and .json.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np
from papertopics.changes.venues import cell_tests
from papertopics.stats import benjamini_hochberg

from bench.common import BENCH, IJCAI

LEVEL = 0.05
SINGLE = [("Search", 0)]
SEVERAL = [("Search", 0), ("Uncertainty in AI", 1), ("Humans and AI", 2), ("Robotics", 0)]


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's adjusted p-values, in the input's order."""
    flat = np.asarray(p_values, dtype=np.float64).ravel()
    order = np.argsort(flat, kind="stable")
    adjusted = np.minimum(np.maximum.accumulate((len(flat) - np.arange(len(flat))) * flat[order]), 1.0)
    out = np.empty_like(flat)
    out[order] = adjusted
    return out.reshape(np.shape(p_values))


def per_topic(counts: np.ndarray, totals: np.ndarray, p_values: np.ndarray) -> np.ndarray:
    """Significant cells under the per-topic family (Benjamini and Bogomolov)."""
    from scipy.stats import chi2_contingency

    rows = []
    for row in counts:
        table = np.vstack([row, totals - row])
        rows.append(chi2_contingency(table, correction=False)[1] if row.sum() > 0 else 1.0)
    selected = benjamini_hochberg(np.array(rows)) < LEVEL
    found = np.zeros(p_values.shape, dtype=bool)
    for i in np.flatnonzero(selected):
        found[i] = benjamini_hochberg(p_values[i]) < LEVEL * selected.sum() / len(counts)
    return found


def significant(
    topic: np.ndarray, venue: np.ndarray, topics: int, method: str
) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's flag under ``method`` and the cells' residuals."""
    counts = np.zeros((topics, 3))
    np.add.at(counts, (topic, venue), 1)
    totals = counts.sum(axis=0)
    tests = cell_tests(counts, totals)
    if method == "bh":
        found = benjamini_hochberg(tests.p_value.ravel()).reshape(tests.p_value.shape) < LEVEL
    elif method == "holm":
        found = holm(tests.p_value) < LEVEL
    else:
        found = per_topic(counts, totals, tests.p_value)
    return found, tests.residual


def simulate(topic, names, plants, copies: int, runs: int, seed: int, method: str) -> dict:
    rng = np.random.default_rng(seed)
    planted = [(names.index(name), venue) for name, venue in plants]
    found = alone = 0
    for _ in range(runs):
        venue = rng.integers(0, 3, len(topic))
        extra = [rng.choice(np.flatnonzero(topic == t), copies) for t, _ in planted]
        topics = np.concatenate([topic, *(topic[e] for e in extra)])
        venues = np.concatenate([venue, *(np.full(copies, v) for _, v in planted)])
        flags, residual = significant(topics, venues, len(names), method)
        found += sum(bool(flags[t, v] and residual[t, v] > 0) for t, v in planted)
        others = np.ones(len(names), dtype=bool)
        others[[t for t, _ in planted]] = False
        alone += not flags[others].any()
    return {"found": found / (runs * max(len(planted), 1)), "nothing_else": alone / runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seeds", type=int, nargs="+", default=[2030, 1, 2, 3, 4])
    parser.add_argument("--results", type=Path, default=BENCH)
    args = parser.parse_args()
    with gzip.open(IJCAI, "rt", encoding="utf-8") as lines:
        areas = [json.loads(line)["label"] for line in lines]
    names = sorted(set(areas))
    topic = np.array([names.index(a) for a in areas])
    rows = []
    for method in ("bh", "holm", "per-topic"):
        for case, plants, copies in (("null", [], 0), ("one planted, 40 copies", SINGLE, 40)):
            figures = [simulate(topic, names, plants, copies, args.runs, s, method) for s in args.seeds]
            rows.append(
                {"method": method, "case": case, "seeds": args.seeds, "runs": args.runs, "figures": figures}
            )
        for copies in (25, 40):
            figures = [simulate(topic, names, SEVERAL, copies, args.runs, 7, method)]
            rows.append(
                {
                    "method": method,
                    "case": f"four planted, {copies} copies",
                    "seeds": [7],
                    "runs": args.runs,
                    "figures": figures,
                }
            )
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "venue-families.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")

    def spread(values: list[float]) -> str:
        low, high = 100 * min(values), 100 * max(values)
        return f"{low:.1f}%" if low == high else f"{low:.1f}-{high:.1f}%"

    lines = [
        '# Venue cells: which correction for "found, and nothing else"',
        "",
        f"`python -m bench.venue_families`: {args.runs} runs per seed on IJCAI 2020-2024's 16 areas as "
        "topics, three random venues (see the module's account). Null: share of runs without a "
        "significant cell; planted: planted cells found over-represented, runs with no other topic's "
        "cell significant. Ranges over seeds.",
        "",
        "| correction | case | seeds | found | nothing else |",
        "|---|---|---|---:|---:|",
    ]
    for row in rows:
        found = spread([f["found"] for f in row["figures"]]) if row["case"] != "null" else ""
        lines.append(
            f"| {row['method']} | {row['case']} | {', '.join(map(str, row['seeds']))} | {found} | "
            f"{spread([f['nothing_else'] for f in row['figures']])} |"
        )
    (args.results / "venue-families.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
