"""The reception tests' error rate and power on the shared metadata corpora (``python -m
bench.reception_bench``), written to bench/reception.md and bench/reception.json; how they are
simulated: :mod:`bench.reception_power`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from bench.reception_power import CORPORA, EFFECTS, SIZES, load_corpus, null_rate, power

HERE = Path(__file__).parent
SHARED = HERE.parent.parent / "shared" / "corpora"


def measure(runs: int) -> dict:
    """The null rate and the power table of each corpus present."""
    results = {}
    for name in CORPORA:
        source = SHARED / f"{name}.jsonl.gz"
        if not source.exists():
            continue
        with tempfile.TemporaryDirectory() as folder:
            corpus = load_corpus(source, Path(folder))
        rows = [
            power(corpus, kind, size, effect, runs)
            for kind, effects in EFFECTS.items()
            for effect in effects
            for size in SIZES
        ]
        results[name] = {"null": null_rate(corpus, runs), "power": [row for row in rows if row["runs"]]}
    return results


def markdown(results: dict, runs: int) -> str:
    """The tables as docs/reception.md quotes them."""
    lines = [f"# Reception tests: error rate and power ({runs} runs each)", ""]
    for name, found in results.items():
        null = found["null"]
        lines += [
            f"## {name}",
            "",
            "Shuffled within years, runs flagging some topic (significant): "
            f"decisions {null['decisions']:.1%}, ratings {null['ratings']:.1%}, citations {null['citations']:.1%} "
            f"(any of them {null['any']:.1%}).",
            "",
            "| planted | effect | papers | found | nothing else of its kind flagged | nothing else at all |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for row in found["power"]:
            effect = {
                "outcome": f"+{row['effect']:.0%} tier share",
                "rating": f"−{row['effect']} rating",
            }.get(row["kind"], "citations halved")
            lines.append(
                f"| {row['kind']} | {effect} | {row['size']} | {row['found']:.1%} | {row['clean']:.1%} "
                f"| {row['clean_any_kind']:.1%} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    runs = parser.parse_args().runs
    results = measure(runs)
    (HERE / "reception.json").write_text(
        json.dumps(results, indent=1, default=float) + "\n", encoding="utf-8"
    )
    (HERE / "reception.md").write_text(markdown(results, runs), encoding="utf-8")


if __name__ == "__main__":
    main()
