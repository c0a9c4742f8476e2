"""Start-of-run checks: readable config errors, the model check, stale-lock clean-up; and the
one-topic fallback for corpora too small to cluster.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from conftest import AS_NOBODY, REPO, default_config
from papertopics.embed.models import PACKAGED_MODEL, model_problem
from papertopics.errors import PipelineInputError
from papertopics.mapping.cluster import cluster_points
from papertopics.runtime.startup import (
    check_config,
    check_yaml,
    config_origin,
    config_problems,
    move_deprecated_keys,
    prepare_run,
    unwritable,
)

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


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "parse:\n\tmin_abstract_chars: 20\n",
            "config.yaml, line 2, column 1: found character '\\t' that cannot start any token "
            "(while scanning for the next token); YAML indents with spaces, never tabs.",
        ),
        (
            "report: {title: [x\n",
            "config.yaml, line 2, column 1: expected ',' or ']', but got '<stream end>' "
            "(while parsing a flow sequence that starts at line 1, column 17).",
        ),
        (
            "inputs: data/raw/*.txt: x\n",
            "config.yaml, line 1, column 23: mapping values are not allowed here.",
        ),
        (
            "- data/raw/*.txt\n",
            "config.yaml must hold the settings as keys at its top level (inputs:, embedding:, ...); "
            "it holds a list.",
        ),
    ],
    ids=["tab", "unclosed-bracket", "colon", "not-a-mapping"],
)
def test_a_config_file_that_is_not_yaml_is_named_with_line_column_and_problem(
    tmp_path, monkeypatch, text, expected
):
    monkeypatch.chdir(tmp_path)
    Path("config.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(PipelineInputError) as error:
        check_yaml("config.yaml")
    assert str(error.value) == expected


def test_config_values_are_named_with_where_they_were_given(tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text("report:\n  hover_chars: 5000\n", encoding="utf-8")
    config = default_config()
    config["umap"]["n_neighbors"] = "many"  # as given on the command line below
    config["report"]["hover_chars"] = 5000
    config["parse"]["min_abstract_chars"] = 0
    origin = config_origin({"umap": {"n_neighbors": "many"}}, [other])
    assert origin(["inputs"]) == "in config.yaml"
    with pytest.raises(PipelineInputError) as error:
        check_config(config, SCHEMA, origin)
    lines = str(error.value).splitlines()
    assert lines[0] == "the configuration has invalid values:"
    assert lines[1].startswith("  parse.min_abstract_chars: 0 is less than the minimum of 1 (")
    assert lines[1].endswith(") (in config.yaml)")
    assert lines[2].endswith(f"(in {os.path.relpath(other)} (given with --configfile))")
    assert lines[3].startswith("  umap.n_neighbors: 'many' is not valid")
    assert lines[3].endswith("(given with --config on the command line)")


def test_model_problem(tmp_path):
    assert model_problem(PACKAGED_MODEL) is None
    assert model_problem(str(tmp_path)) is None  # a local folder is taken as given
    assert "never downloads" in model_problem("someone/unknown-model")


def in_child(code: str, cwd=REPO / "workflow", **options) -> subprocess.CompletedProcess:
    """Python code run in a process of its own (whose locks the kernel drops when it exits, as after a kill)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=cwd, **options
    )


def test_stale_locks_are_removed(tmp_path):
    locks = tmp_path / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.input.lock").write_text("x")
    (locks / "0.output.lock").write_text("y")
    result = in_child(f"""
        from papertopics.runtime.startup import prepare_run
        print(prepare_run({str(tmp_path / ".snakemake")!r}, {str(tmp_path / "results")!r}, argv=[]))
    """)
    assert "Removed the locks of an earlier run that was killed" in result.stdout, result.stderr
    assert not list(locks.iterdir())


@pytest.fixture()
def live_run(tmp_path):
    """A process that went through the start of a run in ``tmp_path`` and is still alive."""
    metadata = tmp_path / ".snakemake"
    (metadata / "locks").mkdir(parents=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import sys
            from papertopics.runtime.startup import prepare_run
            prepare_run({str(metadata)!r}, {str(tmp_path / "results")!r}, argv=[]); print("held", flush=True)
            sys.stdin.read()
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
        yield holder
    finally:
        holder.communicate("")


@pytest.mark.parametrize("argv", [["--cores", "2"], ["--unlock"], ["--cores", "1", "--nolock"]])
def test_a_run_beside_a_live_run_is_refused_with_its_pid(live_run, tmp_path, argv):
    with pytest.raises(PipelineInputError) as refused:
        prepare_run(tmp_path / ".snakemake", tmp_path / "results", argv=argv)
    message = str(refused.value)
    assert message.startswith(f"A run is in progress in this folder (pid {live_run.pid}, started ")
    assert f"kill {live_run.pid}" in message and "Do not use --unlock" in message
    assert (tmp_path / ".snakemake" / "locks" / "1.output.lock").exists()


def test_a_dry_run_beside_a_live_run_goes_on_and_changes_nothing(live_run, tmp_path):
    notes = prepare_run(tmp_path / ".snakemake", tmp_path / "results", argv=["-n", "--quiet"])
    assert notes == [
        f"A run is in progress in this folder (pid {live_run.pid}, started "
        + notes[0].split("started ", 1)[1]
    ]
    assert "this shows the workflow as the files are now" in notes[0]
    assert (tmp_path / ".snakemake" / "locks" / "1.output.lock").exists()


def orphaned_job(metadata, rule: str = "topics") -> subprocess.Popen:
    """A job registered as running, as after its Snakemake process was killed."""
    job = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import time; from papertopics.runtime.jobs import register_job; register_job({rule!r}, {str(metadata)!r}); "
            "print('registered', flush=True); time.sleep(600)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO / "workflow",
    )
    assert job.stdout.readline().strip() == "registered"
    return job


def test_a_job_left_running_by_a_killed_run_is_stopped_before_the_next_run(tmp_path):
    metadata = tmp_path / ".snakemake"
    job = orphaned_job(metadata)
    try:

        def start(*argv: str) -> subprocess.CompletedProcess:
            return in_child(f"""
                from papertopics.runtime.startup import prepare_run
                print(prepare_run({str(metadata)!r}, {str(tmp_path / "results")!r}, argv={list(argv)!r}))
            """)

        dry = start("--dry-run")
        assert (
            f"the topics job (pid {job.pid}) of an earlier, killed run is still running; a run will stop it."
            in dry.stdout
        ), dry.stderr
        assert job.poll() is None, "a dry run stops nothing"
        result = start("--cores", "2")
        assert (
            f"Stopped the topics job (pid {job.pid}) of an earlier run that was killed: it would write "
            "the files this run writes." in result.stdout
        ), result.stderr
        assert job.wait(timeout=5) == -signal.SIGTERM
        assert not list((metadata / "papertopics" / "jobs").iterdir())
    finally:
        job.kill()
        job.wait()


def test_a_job_that_ended_leaves_no_registration(tmp_path):
    metadata = tmp_path / ".snakemake"
    result = in_child(
        f"from papertopics.runtime.jobs import register_job; register_job('report', {str(metadata)!r})"
    )
    assert result.returncode == 0, result.stderr
    assert not list((metadata / "papertopics" / "jobs").iterdir())


def test_unwritable_results_name_the_folder_and_the_user(open_folder):
    results = open_folder / "results"
    (results / "topics").mkdir(parents=True)
    code = f"from papertopics.runtime.startup import unwritable; print(unwritable({str(results)!r}))"
    result = subprocess.run(
        [*AS_NOBODY, sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO / "workflow"
    )
    assert result.stdout.strip() == (
        f"{results}/ is not writable by user nobody (uid 65534): {results} belongs to user root (uid 0) "
        f"(drwxr-xr-x). Run as root, or, as root, give it to nobody: chown -R nobody {results}/"
    ), result.stderr
    assert unwritable(results) is None  # root may write everywhere


def test_no_cluster_found_gives_one_topic_with_a_note():
    points = np.eye(5, dtype=np.float32)  # five equidistant points: no dense region
    labels, settings = cluster_points(points, "auto", 1, "eom")
    assert labels.tolist() == [0, 0, 0, 0, 0]
    assert "all of them form one topic" in settings["note"]


def test_a_moved_key_is_read_at_its_new_place_with_a_warning():
    config = {"umap": {"n_neighbors": "auto"}, "hdbscan": {"consensus_runs": 2, "min_samples": None}}
    warnings = move_deprecated_keys(config)
    assert config == {"umap": {"n_neighbors": "auto", "consensus_runs": 2}, "hdbscan": {"min_samples": None}}
    assert warnings == [
        "hdbscan.consensus_runs is deprecated and read as umap.consensus_runs; move it there in your configuration."
    ]
    assert move_deprecated_keys(config) == []
