"""What each job of a workflow run imports: the heavy libraries and the seconds spent importing.

Python's import profile (``PYTHONPROFILEIMPORTTIME=1``, the environment's form of
``python -X importtime``) of a run on one core, where Snakemake names each job's rule on its
console before the job's own profile lines: the lines between one rule's heading and the next are
that job's. Used by ``bench.fixed_costs``; on its own:

    PYTHONPATH=workflow python -m bench.job_imports <workdir>   # runs every job again, on one core
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# The libraries a job should import only when its stage calls them.
HEAVY = (
    "torch",
    "transformers",
    "sentence_transformers",
    "bertopic",
    "bertopic.representation",
    "umap",
    "numba",
    "hdbscan",
    "pynndescent",
    "plotly",
    "sklearn",
)
PROFILE_ENV = {"PYTHONPROFILEIMPORTTIME": "1"}
_RULE = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):$")
_PROFILE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


def job_imports(console: str) -> dict[str, dict]:
    """Per rule, from a profiled run's console: the heavy libraries its jobs imported, each with the
    seconds its first import took (its own imports included), and the seconds of all imports; a
    rule's jobs are summed, its libraries merged (the slowest import kept).
    """
    rules: dict[str, dict] = {}
    current = None
    for line in console.splitlines():
        heading = _RULE.match(line)
        if heading:
            current = rules.setdefault(heading.group(1), {"jobs": 0, "import_seconds": 0.0, "heavy": {}})
            current["jobs"] += 1
            continue
        profiled = _PROFILE.match(line)
        if current is None or not profiled:
            continue
        cumulative, depth, module = (
            int(profiled.group(2)) / 1e6,
            len(profiled.group(3)) - 1,
            profiled.group(4),
        )
        if depth == 0:  # imported by the job's own code: its time includes everything it imported
            current["import_seconds"] = round(current["import_seconds"] + cumulative, 2)
        if module in HEAVY:
            current["heavy"][module] = max(current["heavy"].get(module, 0.0), round(cumulative, 2))
    rules.pop("all", None)
    return rules


def markdown_rows(before: dict, after: dict) -> list[str]:
    """A table's rows: per rule, the heavy libraries and import seconds before and after."""

    def cell(entry: dict | None) -> str:
        if entry is None:
            return "-"
        heavy = ", ".join(sorted(entry["heavy"])) or "none"
        return f"{heavy} ({entry['import_seconds']} s)"

    rows = ["| rule | imports before (s importing) | imports after (s importing) |", "|---|---|---|"]
    for rule in sorted(set(before) | set(after)):
        rows.append(f"| {rule} | {cell(before.get(rule))} | {cell(after.get(rule))} |")
    return rows


def main() -> None:
    import json
    import subprocess

    from bench.common import CHILD_ENV, snakemake_command

    workdir = Path(sys.argv[1])
    command = snakemake_command(workdir, "--cores", "1", "--forceall")
    run = subprocess.run(
        command, env={**CHILD_ENV, **PROFILE_ENV}, capture_output=True, text=True, check=True
    )
    print(json.dumps(job_imports(run.stderr), indent=2))


if __name__ == "__main__":
    main()
