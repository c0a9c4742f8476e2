"""Faults users meet that the workflow takes in its stride, through the real workflow: dumps deleted,
renamed or edited while a run reads them, odd file names and symlinks, a 5 MB abstract among
20,000 tiny ones (another core count: tests/test_interrupted_run.py). Each run ends with complete
results that match data/raw/ as the run read it, and the next run follows data/raw/ as it is now.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil

import pandas as pd
import pytest
from conftest import (
    SEEDS,
    good_run,
    make_workdir,
    run_workflow,
    start_workflow,
)

pytestmark = pytest.mark.slow


def extra_dump(name: str) -> str:
    """A dump of new papers: the first seed dump's abstracts, each made a new paper (and one of
    this dump's alone) by a sentence of its own.
    """
    title, *abstracts = SEEDS[0].read_text(encoding="utf-8").split("\n\n")
    return f"Extra papers {name}\n\n" + "\n\n".join(
        f"{abstract.strip()} We revisit this in study {number} of the {name} papers."
        for number, abstract in enumerate(abstracts[:12])
    )


def read_until_finished(run, rule: str, count: int) -> str:
    """The run's log read until ``count`` jobs of ``rule`` have finished (Snakemake done with them)."""
    lines, finished = [], 0
    for line in run.stdout:
        lines.append(line)
        finished += line.startswith("Finished jobid") and f"(Rule: {rule})" in line
        if finished == count:
            return "".join(lines)
    raise AssertionError(f"the run ended before {count} {rule} jobs finished:\n{''.join(lines)[-4000:]}")


def dumps_in_results(workdir) -> dict[str, int]:
    """Papers per dump in the published paper table, checked against the corpus summary."""
    papers = pd.read_csv(workdir / "results" / "topics" / "papers.csv", keep_default_na=False)
    summary = json.loads((workdir / "results" / "corpus" / "summary.json").read_text(encoding="utf-8"))
    counted = papers["dump"].value_counts().to_dict()
    assert sorted(counted) == sorted(d["dump"] for d in summary["dumps"] if d["kept"])
    assert len(papers) == summary["papers"]
    return counted


def test_dumps_deleted_renamed_or_edited_while_the_run_reads_them(seed_run, tmp_path):
    """One run, three new dumps, each changed in its own way once parsed: the run ends with them as
    it read them, and the next run follows data/raw/ as it is now.
    """
    workdir = good_run(seed_run, tmp_path)
    raw = workdir / "data" / "raw"
    changes = ("deleted", "renamed", "edited")
    for change in changes:
        (raw / f"{change}.txt").write_text(extra_dump(change), encoding="utf-8")
    run = start_workflow(workdir)
    # Every new dump parsed; the run goes on from its parsed papers.
    log = read_until_finished(run, "parse", len(changes))
    (raw / "deleted.txt").unlink()
    (raw / "renamed.txt").rename(raw / "renamed-later.txt")
    (raw / "edited.txt").write_text(
        extra_dump("edited").replace("study 0 of", "study zero, edited, of"), encoding="utf-8"
    )
    log += run.communicate(timeout=900)[0]
    assert run.returncode == 0, log[-4000:]
    read = dumps_in_results(workdir)
    for change in changes:
        assert read[change] == 12, f"the {change} dump's papers as the run read them"

    run_workflow(workdir)
    now = dumps_in_results(workdir)
    assert "deleted" not in now, "a deleted dump leaves the next run's results"
    assert "renamed" not in now and now["renamed-later"] == 12, "a renamed dump is the new name's"
    papers = pd.read_csv(workdir / "results" / "topics" / "papers.csv", keep_default_na=False)
    assert papers["abstract"].str.contains("study zero, edited, of").sum() == 1, (
        "an edited dump is read again"
    )
    assert now["edited"] == 12
    assert "<html" in (workdir / "results" / "report" / "index.html").read_text(encoding="utf-8")


def test_odd_file_names_and_symlinks(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(SEEDS[1], elsewhere / "second.txt")
    odd = "ICML 2026 (draft) — ünïcode & 'quotes' $HOME"
    workdir = make_workdir(tmp_path / "run", {f"{odd}.txt": SEEDS[0].read_bytes()})
    (workdir / "data" / "raw" / "linked.txt").symlink_to(elsewhere / "second.txt")
    run_workflow(workdir)
    assert dumps_in_results(workdir) == {odd: 19, "linked": 19}
    report = (workdir / "results" / "report" / "index.html").read_text(encoding="utf-8")
    assert "ICML 2026 (draft) — ünïcode &amp; &#x27;quotes&#x27; $HOME" in report


def test_a_5_mb_abstract_among_20000_tiny_ones(seed_run, tmp_path):
    rng = random.Random(0)
    words = re.findall(r"[a-z]{4,}", " ".join(seed.read_text(encoding="utf-8").lower() for seed in SEEDS))
    huge = " ".join(rng.choice(words) for _ in range(700_000))[:5_000_000]
    tiny = [f"Tiny abstract {number}: {rng.choice(words)} {rng.choice(words)}." for number in range(20_000)]
    dumps = {seed.name: seed.read_bytes() for seed in SEEDS}
    dumps["huge.txt"] = f"One huge abstract\n\n{huge}\n"
    dumps["tiny.txt"] = "Twenty thousand tiny abstracts\n\n" + "\n\n".join(tiny) + "\n"
    # One projection of the 20,000 papers, not three: a consensus_run job reads what the reduce
    # job reads, by the same code, with another seed (the default's three run on the seeds).
    workdir = make_workdir(tmp_path, dumps, umap={"consensus_runs": 1})
    run_workflow(workdir, timeout=3600)

    counted = dumps_in_results(workdir)
    assert counted["huge"] == 1 and counted["tiny"] == 20_000
    over_window = re.compile(r"(\d[\d,]*) abstracts? embedded from (?:its|their) first 256 tokens")
    seeds_over = int(over_window.search((seed_run / "results/report/index.html").read_text()).group(1))
    report = (workdir / "results" / "report" / "index.html").read_text(encoding="utf-8")
    assert int(over_window.search(report).group(1).replace(",", "")) == seeds_over + 1
    assert os.path.getsize(workdir / "results" / "report" / "index.html") > 5_000_000
