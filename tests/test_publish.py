"""Publishing: the published entries change whole, only at the end, and a failure or a kill at any
point of the publish step leaves either the old or the new results, complete.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import OFFLINE, REPO, SNAKEMAKE, make_workdir
from papertopics.errors import disk_full
from papertopics.runtime import publish


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative path → content)."""
    return {
        str(p.relative_to(folder)): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture()
def results(tmp_path, monkeypatch) -> Path:
    """A working folder whose results/ holds a published run and a staged newer one."""
    monkeypatch.chdir(tmp_path)
    for name, text in {
        "topics/topics.csv": "old",
        "topics/gone.csv": "old",
        "report/index.html": "old",
    }.items():
        write(Path("results", name), text)
    write(Path("results/metrics.json"), "old")
    for name, text in {
        "topics/topics.csv": "new",
        "topics/trends.csv": "new",
        "topics/model/config.json": "new",
        "topics/model/.snakemake_timestamp": "",
        "report/index.html": "new",
        "metrics.json": "new",
    }.items():
        write(Path("results/staged", name), text)
    return Path("results")


STAGED = [
    "results/staged/metrics.json",
    "results/staged/report/index.html",
    "results/staged/topics/model",
    "results/staged/topics/topics.csv",
    "results/staged/topics/trends.csv",
]
NEW = {
    "metrics.json": "new",
    "report/index.html": "new",
    "topics/model/config.json": "new",
    "topics/topics.csv": "new",
    "topics/trends.csv": "new",
}


def published(results: Path) -> dict[str, str]:
    return {
        name: text
        for name, text in tree(results).items()
        if name.split(os.sep)[0] in ("topics", "report", "metrics.json")
    }


def test_the_staged_outputs_replace_the_published_entries_whole(results):
    publish.publish(STAGED, "results/staged/published.json")
    assert published(results) == NEW  # the old topics/gone.csv went with the old folder
    assert not (results / ".publishing").exists()
    record = publish.storage.read_json("results/staged/published.json")
    assert record["published"] == ["results/metrics.json", "results/report", "results/topics"]
    assert record["files"] == record["hard_linked"] == 5
    # Hard links: the staged files stay, and a stage replacing one later leaves the published one.
    assert os.path.samefile("results/topics/topics.csv", "results/staged/topics/topics.csv")
    Path("results/staged/topics/topics.csv").unlink()
    write(Path("results/staged/topics/topics.csv"), "newer")
    assert Path("results/topics/topics.csv").read_text() == "new"


def test_the_published_entries_are_the_first_names_under_results_staged():
    assert publish.published_entries(STAGED) == ["metrics.json", "report", "topics"]


def test_a_file_system_without_hard_links_gets_copies(results, monkeypatch):
    def no_links(source, target):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", no_links)
    publish.publish(STAGED, "results/staged/published.json")
    assert published(results) == NEW
    assert not os.path.samefile("results/topics/topics.csv", "results/staged/topics/topics.csv")


def test_a_full_disk_while_preparing_leaves_the_published_results_as_they_were(results, monkeypatch):
    before = published(results)
    made = []

    def fills_the_disk(source, target):
        if len(made) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        made.append(target)
        shutil.copy2(source, target)

    monkeypatch.setattr(os, "link", fills_the_disk)
    with pytest.raises(OSError) as error:
        publish.publish(STAGED, "results/staged/published.json")
    assert disk_full(error.value)
    assert published(results) == before
    assert not list((results / ".publishing").glob("*"))


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs, not even ``except Exception`` handlers."""


@pytest.mark.parametrize("exchange", [True, False], ids=["one-step-exchange", "two-renames"])
@pytest.mark.parametrize("after", range(1, 4))
def test_a_kill_during_the_commit_is_finished_by_the_next_run(results, monkeypatch, exchange, after):
    """Killed after ``after`` renames (the first writes the plan): the next run's start completes
    the publication; with two renames per folder, the third leaves results/report/ moved away.
    """
    renames = []
    real_replace, real_exchange = os.replace, publish._exchange

    def counted(rename):
        def wrapper(*paths):
            if len(renames) == after:
                raise Killed
            renames.append(paths)
            return rename(*paths)

        return wrapper

    monkeypatch.setattr(os, "replace", counted(real_replace))
    monkeypatch.setattr(publish, "_exchange", counted(real_exchange) if exchange else lambda *paths: False)
    with pytest.raises(Killed):
        publish.publish(STAGED, "results/staged/published.json")
    monkeypatch.setattr(os, "replace", real_replace)
    monkeypatch.setattr(publish, "_exchange", real_exchange if exchange else lambda *paths: False)
    if not exchange and after == 3:
        assert not (results / "report").exists()  # the old report moved aside, the new one not yet in
    pending = list((results / publish.PUBLISHING).glob("*"))
    assert len(pending) == 1 and (pending[0] / publish.PLAN).is_file()

    assert publish.finish_interrupted("results") == ["metrics.json", "report", "topics"]
    assert published(results) == NEW
    assert not (results / publish.PUBLISHING).exists()
    assert publish.finish_interrupted("results") == []  # nothing left to do


def test_an_interrupted_preparation_is_discarded(results):
    leftover = results / publish.PUBLISHING / "abc123" / "new" / "topics"
    write(leftover / "topics.csv", "half")
    before = published(results)
    assert publish.finish_interrupted("results") == []
    assert published(results) == before
    assert not (results / publish.PUBLISHING).exists()


def test_folders_are_exchanged_in_one_step_where_linux_can(tmp_path):
    write(tmp_path / "a" / "file", "a")
    write(tmp_path / "b" / "file", "b")
    if not publish._exchange(tmp_path / "a", tmp_path / "b"):
        pytest.skip("this system or file system cannot exchange two paths (renameat2 RENAME_EXCHANGE)")
    assert (tmp_path / "a" / "file").read_text() == "b" and (tmp_path / "b" / "file").read_text() == "a"


def workflow_with(tmp_path: Path, extra_rule: str) -> Path:
    """A copy of the workflow with one more rule (included before the publish rule), as another
    developer would add it; returns its Snakefile.
    """
    copy = tmp_path / "workflow-copy"
    shutil.copytree(REPO / "workflow", copy / "workflow", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "environment.yml", copy)
    (copy / "workflow" / "rules" / "extra.smk").write_text(extra_rule, encoding="utf-8")
    snakefile = (REPO / "Snakefile").read_text(encoding="utf-8")
    include = 'include: "workflow/rules/publish.smk"'
    assert include in snakefile
    (copy / "Snakefile").write_text(
        snakefile.replace(include, f'include: "workflow/rules/extra.smk"\n{include}'), encoding="utf-8"
    )
    return copy / "Snakefile"


def dry_run(snakefile: Path, workdir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SNAKEMAKE), "--snakefile", str(snakefile), "--directory", str(workdir), "--dry-run"],
        capture_output=True,
        text=True,
        env={**os.environ, **OFFLINE},
    )


EXTRA_RULE = """
rule extra_table:
    input:
        shares="results/staged/topics/dump_shares.csv",
    output:
        table="{path}",
    shell:
        "cp {{input.shares}} {{output.table}}"
"""


def test_an_output_a_new_rule_stages_is_published_with_no_change_to_publishing(tmp_path):
    workdir = make_workdir(tmp_path / "run")
    snakefile = workflow_with(tmp_path, EXTRA_RULE.format(path="results/staged/topics/extra_table.csv"))
    result = dry_run(snakefile, workdir)
    assert result.returncode == 0, result.stdout + result.stderr
    publish_job = result.stdout.split("rule publish:", 1)[1].split("\n\n", 1)[0]
    inputs = publish_job.split("input: ", 1)[1].split("\n", 1)[0].split(", ")
    assert "results/staged/topics/extra_table.csv" in inputs
    assert {"results/staged/report/index.html", "results/staged/metrics.json"} <= set(inputs)


def test_a_rule_that_writes_where_results_are_published_is_refused(tmp_path):
    workdir = make_workdir(tmp_path / "run")
    result = dry_run(
        workflow_with(tmp_path, EXTRA_RULE.format(path="results/topics/extra_table.csv")), workdir
    )
    assert result.returncode != 0
    assert (
        "rule extra_table writes results/topics/extra_table.csv, where published results go; use "
        "results/staged/topics/extra_table.csv: the publish rule puts it in results/topics/extra_table.csv when the "
        "whole run succeeds." in result.stdout + result.stderr
    )
