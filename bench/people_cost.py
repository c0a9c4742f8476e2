"""What the people stage costs at 10,000 abstracts (``make bench-people``).

The shared metadata corpora's papers (OpenReview and ACL, with their authors, affiliations and
countries) repeated to the size asked, each copy its own papers, spread over five years and 60
stand-in topics (2% assigned outliers), written as the topics and groups stages write them; then
the people stage's function runs on those files, in a fresh process (imports included, as a job
pays them), timed three times. Compared with the cold end-to-end run at 10,000 abstracts that
bench/results.json holds. Writes bench/people-cost.md and .json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bench.common import BENCH, CORPORA, REPO

TOPICS = 60
RUN = """
import sys
from papertopics.people.stages import PeopleOutputs, people
folder = sys.argv[1]
outputs = PeopleOutputs(**{name: f"{folder}/{name}.out" for name in ("top", "experts", "rising", "topics", "periods", "record")})
people(f"{folder}/papers.csv", f"{folder}/details.json", f"{folder}/periods.csv", f"{folder}/periods.json", outputs,
       {"in_report": True, "top": 10, "experts": 20, "min_papers": 5, "affiliation_column": None, "country_column": None},
       {"confidence": 0.95, "false_discovery_rate": 0.05, "suggestive_q": 0.25})
"""


def write_inputs(folder: Path, size: int) -> None:
    """The topics stage's paper table and details and the periods stage's files, for ``size`` papers."""
    from papertopics import storage
    from papertopics.periods.stages import groups

    records = []
    for name in ("openreview_metadata.jsonl.gz", "acl_2021_2022_metadata.jsonl.gz"):
        with gzip.open(CORPORA / name, "rt", encoding="utf-8") as lines:
            records += [json.loads(line) for line in lines]
    rng = np.random.default_rng(0)
    rows = []
    for i in range(size):
        r = records[i % len(records)]
        rows.append(
            {
                "id": f"{r['id']}-{i // len(records)}",
                "dump": "corpus",
                "dumps": ["corpus"],
                "year": str(2021 + i % 5),
                "authors": "; ".join(r["authors"]),
                "extra": {
                    "affiliations": "; ".join(a for a in r["affiliations"] or [] if a),
                    "countries": "; ".join(c for c in r["countries"] or [] if c),
                },
            }
        )
    storage.write_jsonl(folder / "corpus.jsonl", rows)
    groups(
        str(folder / "corpus.jsonl"),
        str(folder / "periods.csv"),
        str(folder / "periods.json"),
        "year",
        ["corpus"],
    )
    topic = rng.integers(0, TOPICS, size)
    table = pd.DataFrame(
        {
            "id": [row["id"] for row in rows],
            "topic": topic,
            "outlier": rng.random(size) < 0.02,
            "year": [row["year"] for row in rows],
            "authors": [row["authors"] for row in rows],
            "affiliations": [row["extra"]["affiliations"] for row in rows],
            "countries": [row["extra"]["countries"] for row in rows],
        }
    )
    table.to_csv(folder / "papers.csv", index=False)
    storage.write_json(
        folder / "details.json", {"topics": [{"topic": t, "label": f"topic {t}"} for t in range(TOPICS)]}
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _load() -> tuple[float, float, float]:
    import os

    return os.getloadavg()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results", type=Path, default=BENCH)
    args = parser.parse_args()
    seconds, cpu = [], []
    with tempfile.TemporaryDirectory() as folder:
        write_inputs(Path(folder), args.size)
        for _ in range(args.repeats):
            start, used = time.perf_counter(), _children_cpu()
            subprocess.run(
                [sys.executable, "-c", RUN, folder], check=True, cwd=REPO, env={"PYTHONPATH": "workflow"}
            )
            seconds.append(time.perf_counter() - start)
            cpu.append(_children_cpu() - used)
    results = json.loads((BENCH / "results.json").read_text(encoding="utf-8"))
    cold = results["pipeline"].get("10000", {}).get("cold_seconds")
    row = {
        "size": args.size,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "median": float(np.median(seconds)),
        "median_cpu": float(np.median(cpu)),
        "cold_10k_seconds": cold,
        "load": list(_load()),
    }
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "people-cost.json").write_text(json.dumps(row, indent=1) + "\n", encoding="utf-8")
    share = f"{row['median'] / cold:.1%}" if cold else "n/a"
    cpu_share = f"{row['median_cpu'] / cold:.1%}" if cold else "n/a"
    lines = [
        "# People stage: cost",
        "",
        f"`python -m bench.people_cost`: the people stage's job (a fresh process, imports included) on "
        f"{args.size:,} papers with authors, affiliations and countries, {TOPICS} topics, five years; "
        f"{args.repeats} runs; wall and CPU (user + system) seconds, the machine's load average "
        f"{row['load'][0]:.1f} during the runs. The cold end-to-end run is bench/results.json's (wall, 10,000 arXiv "
        "abstracts).",
        "",
        "| papers | wall (each run) | CPU (each run) | median wall | median CPU | cold end-to-end at 10,000 "
        "| wall share | CPU share |",
        "|---:|---|---|---:|---:|---:|---:|---:|",
        f"| {args.size:,} | {', '.join(f'{s:.1f}' for s in seconds)} | {', '.join(f'{s:.1f}' for s in row['cpu_seconds'])} | "
        f"{row['median']:.1f} | {row['median_cpu']:.1f} | {cold:.1f} | {share} | {cpu_share} |",
    ]
    (args.results / "people-cost.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
