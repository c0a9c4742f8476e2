"""Start-of-run checks: readable config errors, the model check, stale-lock clean-up; and the
one-topic fallback for corpora too small to cluster.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
from conftest import REPO, default_config
from papertopics.cluster import cluster_points
from papertopics.models import PACKAGED_MODEL, model_problem
from papertopics.startup import config_problems, release_stale_locks

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def test_shipped_config_is_valid():
    assert config_problems(default_config(), SCHEMA) == []


def test_config_problems_name_every_bad_key():
    config = default_config()
    config["umap"]["n_neighbors"] = "many"
    config["report"]["hover_chars"] = 5000
    problems = config_problems(config, SCHEMA)
    assert problems == [
        "report.hover_chars: 5000 is greater than the maximum of 2000 "
        "(Characters of the abstract shown when hovering a point on the map.)",
        "umap.n_neighbors: 'many' is not valid; it must be an integer from 2 to 200 or \"auto\"",
    ]


def test_model_problem(tmp_path):
    assert model_problem(PACKAGED_MODEL) is None
    assert model_problem(str(tmp_path)) is None  # a local folder is taken as given
    assert "never downloads" in model_problem("someone/unknown-model")


def test_stale_locks_are_removed(tmp_path):
    locks = tmp_path / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.input.lock").write_text("x")
    (locks / "0.output.lock").write_text("y")
    # In a child process: the lock it takes is released when it exits, as after a kill.
    code = f"from papertopics.startup import release_stale_locks; print(release_stale_locks({str(tmp_path / '.snakemake')!r}))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO / "workflow"
    )
    assert result.stdout.strip() == "True"
    assert not list(locks.iterdir())


def test_locks_of_a_live_run_are_kept(tmp_path):
    metadata = tmp_path / ".snakemake"
    (metadata / "locks").mkdir(parents=True)
    (metadata / "locks" / "0.input.lock").write_text("x")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import sys, time
            from papertopics.startup import release_stale_locks
            release_stale_locks({str(metadata)!r}); print("held", flush=True); sys.stdin.read()
        """),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO / "workflow",
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        (metadata / "locks" / "1.output.lock").write_text("the live run's lock")
        assert release_stale_locks(metadata) is False
        assert (metadata / "locks" / "1.output.lock").exists()
    finally:
        holder.communicate("")


def test_no_cluster_found_gives_one_topic_with_a_note():
    points = np.eye(5, dtype=np.float32)  # five equidistant points: no dense region
    labels, settings = cluster_points(points, "auto", 1, "eom")
    assert labels.tolist() == [0, 0, 0, 0, 0]
    assert "all of them form one topic" in settings["note"]
