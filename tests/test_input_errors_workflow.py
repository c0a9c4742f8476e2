"""Bad input through the real workflow: a non-zero exit, a message naming the file or key
and what to do, and no change to the results of the last good run.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import make_workdir, run_workflow


def failing_run(workdir: Path, *args: str) -> str:
    result = run_workflow(workdir, *args, check=False)
    assert result.returncode != 0, result.stdout + result.stderr
    return result.stdout + result.stderr  # Snakemake prints errors in the Snakefile to stdout


GOOD_DUMP = "Good Dump\n\nA sufficiently long abstract about topic models for conference papers.\n"


def test_no_input_files_match(tmp_path):
    workdir = make_workdir(tmp_path, {})
    message = failing_run(workdir, "--dry-run")
    assert "no input files match 'inputs' in config.yaml (data/raw/*.txt, data/raw/*.txt.gz" in message
    assert "put abstract dumps in data/raw/ or change 'inputs'" in message


@pytest.mark.parametrize(
    "overrides, expected",
    [
        (
            {"parse": {"min_abstract_chars": "twenty"}},
            "parse.min_abstract_chars: 'twenty' is not of type 'integer'",
        ),
        ({"parse": {"min_abstract_chars": 0}}, "parse.min_abstract_chars: 0 is less than the minimum of 1"),
        ({"umap": {"n_components": 1}}, "umap.n_components: 1 is less than the minimum of 2"),
        ({"embedding": {"batch_size": 2.5}}, "embedding.batch_size: 2.5 is not of type 'integer'"),
        (
            {"hdbscan": {"min_cluster_size": 1}},
            'hdbscan.min_cluster_size: 1 is not valid; it must be an integer of at least 2 or "auto"',
        ),
        ({"umap": {"metric": "cosin"}}, "umap.metric: 'cosin' is not one of"),
        ({"parse": {"abstract_column": ""}}, "parse.abstract_column: '' should be non-empty"),
        (
            {"parse": {"min_chars": 5}},
            "parse: Additional properties are not allowed ('min_chars' was unexpected)",
        ),
        ({"inputs": []}, "inputs: [] is not valid; it must be a list or a text"),
    ],
    ids=["type", "range", "range-2", "float", "one-of", "enum", "empty-string", "unknown-key", "no-inputs"],
)
def test_config_value_of_wrong_type_or_out_of_range(tmp_path, overrides, expected):
    workdir = make_workdir(tmp_path, {"good.txt": GOOD_DUMP}, **overrides)
    message = failing_run(workdir, "--dry-run")
    assert "config.yaml has invalid values" in message
    assert expected in message


def test_inputs_may_be_one_glob_given_on_the_command_line(tmp_path):
    workdir = make_workdir(
        tmp_path, {"good.txt": GOOD_DUMP, "other.txt": GOOD_DUMP.replace("Dump", "Other dump")}
    )
    plan = run_workflow(
        workdir, "--dry-run", "--quiet", "rules", "--config", "inputs=data/raw/other.txt"
    ).stdout
    assert re.search(r"^parse\s+1$", plan, re.MULTILINE), plan


def test_embedding_model_not_installed_is_reported_at_once(tmp_path):
    workdir = make_workdir(
        tmp_path, {"good.txt": GOOD_DUMP}, embedding={"model": "no-such-org/no-such-model"}
    )
    message = failing_run(workdir, "--dry-run")  # before any job runs
    assert "embedding.model 'no-such-org/no-such-model' is neither the packaged model" in message
    assert "never downloads" in message


def test_unsupported_input_file_type(tmp_path):
    workdir = make_workdir(tmp_path, {"sheet.xlsx": b"PK\x03\x04"}, inputs=["data/raw/*.xlsx"])
    message = failing_run(workdir, "--dry-run")
    assert "data/raw/sheet.xlsx: unsupported file type '.xlsx'" in message


def test_two_files_with_the_same_dump_name(tmp_path):
    workdir = make_workdir(tmp_path, {"icml.txt": GOOD_DUMP, "icml.csv": "abstract\nx\n"})
    assert "two input files give the dump name 'icml'" in failing_run(workdir, "--dry-run")


BAD_DUMPS = {
    "empty": ("bad.txt", b"", "the file is empty"),
    "binary": ("bad.txt", bytes(range(256)) * 4, "this looks like a binary file"),
    "json-line": (
        "bad.jsonl",
        b'{"abstract": "fine and long enough"}\n{"abstract": oops}\n',
        "line 2 is not valid JSON",
    ),
    "no-abstract-column": (
        "bad.csv",
        b"title,authors\nA,B\n",
        "no abstract column (columns: title, authors)",
    ),
    "zero-abstracts": ("bad.md", b"# Just a title\n", "no abstracts found after the title line"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(BAD_DUMPS))
def test_bad_dump_stops_the_run_and_keeps_previous_results(seed_run, tmp_path, case):
    workdir = tmp_path / "run"
    shutil.copytree(seed_run, workdir, symlinks=True)
    report = workdir / "results" / "report" / "index.html"
    before = report.read_bytes()
    name, content, problem = BAD_DUMPS[case]
    (workdir / "data" / "raw" / name).write_bytes(content)

    message = failing_run(workdir)
    assert f"data/raw/{name}: {problem}" in message
    log = (workdir / "results" / "logs" / "parse" / "bad.log").read_text(encoding="utf-8")
    assert problem in log and "Traceback" not in log
    assert report.read_bytes() == before
    assert not list((workdir / "results" / "parsed").glob("bad.*"))
    assert json.loads((workdir / "results" / "corpus" / "summary.json").read_text())["papers"] == 38
