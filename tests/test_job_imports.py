"""bench.job_imports reads each job's heavy imports from a real import profile."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO

from bench.job_imports import PROFILE_ENV, job_imports


def test_each_rules_imports_are_read_from_the_profile_after_its_heading():
    # Two "jobs" in one process, as Snakemake's console shows them: its heading, then the job's
    # profile lines (stderr, like the headings here, so that their order is kept).
    code = (
        "import sys\n"
        "print('localrule light:', file=sys.stderr, flush=True)\n"
        "import papertopics.ingest.stages\n"
        "print('rule heavy:', file=sys.stderr, flush=True)\n"
        "import sklearn.feature_extraction.text\n"
        "print('localrule all:', file=sys.stderr, flush=True)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **PROFILE_ENV, "PYTHONPATH": str(REPO / "workflow")},
        capture_output=True,
        text=True,
        check=True,
    )
    rules = job_imports(run.stderr)
    assert set(rules) == {"light", "heavy"}
    assert rules["light"]["heavy"] == {} and rules["light"]["jobs"] == 1
    assert set(rules["heavy"]["heavy"]) == {"sklearn"}
    assert rules["heavy"]["import_seconds"] >= rules["heavy"]["heavy"]["sklearn"] > 0
