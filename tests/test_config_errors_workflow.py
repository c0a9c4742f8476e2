"""Config mistakes through the real workflow (dry runs): a config file that is not YAML is named with
its line and column, and a value given on the command line is named as such.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO, make_workdir, run_workflow

GOOD_DUMP = "Good Dump\n\nA sufficiently long abstract about topic models for conference papers.\n"


def first_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode != 0, result.stdout + result.stderr
    return result.stderr.splitlines()[0]


CONFIG = (REPO / "config.yaml").read_text(encoding="utf-8")


def line_of(text: str) -> int:
    """The line of config.yaml where ``text`` starts (1-based)."""
    return CONFIG[: CONFIG.index(text)].count("\n") + 1


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            ("parse:\n  min_abstract_chars: 20", "parse:\n\tmin_abstract_chars: 20"),
            lambda: (
                f"error: config.yaml, line {line_of('parse:') + 1}, column 1: found character '\\t' that "
                "cannot start any token (while scanning for the next token); YAML indents with spaces, never tabs."
            ),
        ),
        (
            ("ngram_range: [1, 2]", "ngram_range: [1, 2"),
            # The parser meets the next line's key where the list's next item or its end should be.
            lambda: (
                f"error: config.yaml, line {line_of('ngram_range') + 1}, column "
                f"{CONFIG.splitlines()[line_of('ngram_range')].index(':') + 1}: expected ',' or ']', but "
                f"got ':' (while parsing a flow sequence that starts at line {line_of('ngram_range')}, column 16)."
            ),
        ),
    ],
    ids=["tab", "unclosed-bracket"],
)
def test_a_config_yaml_that_is_not_yaml_is_named_with_its_line_and_column(tmp_path, edit, expected):
    workdir = make_workdir(tmp_path, {"good.txt": GOOD_DUMP})
    assert edit[0] in CONFIG
    (workdir / "config.yaml").write_text(CONFIG.replace(edit[0], edit[1]), encoding="utf-8")
    result = run_workflow(workdir, "--dry-run", check=False)
    assert first_line(result) == expected()


def test_make_run_checks_a_configfile_before_snakemake_reads_it(tmp_path):
    """Snakemake reads a --configfile before the workflow starts, and names neither file nor line."""
    other = tmp_path / "other.yaml"
    other.write_text("report:\n  title: [My map\n", encoding="utf-8")
    # -o: the environment counts as installed, whatever the requirement files' times.
    result = subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.installed", "run", f"CONFIGFILE={other}"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHON": sys.executable},
    )
    assert result.returncode != 0
    assert f"error: {other}, line 3, column 1: expected ',' or ']', but got '<stream end>'" in result.stderr
    assert "snakemake" not in result.stdout.split("papertopics.runtime.startup", 1)[1], (
        "Snakemake must not start"
    )


def test_inputs_given_on_the_command_line_are_named_so(tmp_path):
    workdir = make_workdir(tmp_path, {"good.txt": GOOD_DUMP})
    result = run_workflow(workdir, "--dry-run", "--config", "inputs=data/other/*.txt", check=False)
    assert first_line(result) == (
        "error: no input files match 'inputs' given with --config on the command line (data/other/*.txt); "
        "put abstract dumps in data/raw/ or change 'inputs'."
    )


def test_a_value_given_on_the_command_line_is_named_so(tmp_path):
    workdir = make_workdir(tmp_path, {"good.txt": GOOD_DUMP}, report={"hover_chars": 5000})
    result = run_workflow(workdir, "--dry-run", "--config", "umap={'n_components': 1}", check=False)
    lines = result.stderr.splitlines()
    assert first_line(result) == "error: the configuration has invalid values:"
    assert lines[1].startswith("  report.hover_chars: 5000 is greater than the maximum of 2000")
    assert lines[1].endswith("(in config.yaml)")
    assert lines[2].startswith("  umap.n_components: '1' is not of type 'integer'")
    assert lines[2].endswith("(given with --config on the command line)")
