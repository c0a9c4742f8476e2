"""Faults users meet that the workflow takes in its stride, through the real workflow: a dump deleted,
renamed or edited while a run reads it, odd file names and symlinks, another core count, a 5 MB
abstract among 20,000 tiny ones. Each run ends with complete results that match data/raw/ as the
run read it, and the next run follows data/raw/ as it is now.
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
    published_files,
    run_workflow,
    start_workflow,
    wait_for_job,
)

pytestmark = pytest.mark.slow


def extra_dump() -> str:
    """A third dump: the first seed dump's abstracts, each made a new paper by a sentence of its own."""
    title, *abstracts = SEEDS[0].read_text(encoding="utf-8").split("\n\n")
    return "Extra papers\n\n" + "\n\n".join(
        f"{abstract.strip()} We revisit this in study {number}."
        for number, abstract in enumerate(abstracts[:12])
    )


def dumps_in_results(workdir) -> dict[str, int]:
    """Papers per dump in the published paper table, checked against the corpus summary."""
    papers = pd.read_csv(workdir / "results" / "topics" / "papers.csv", keep_default_na=False)
    summary = json.loads((workdir / "results" / "corpus" / "summary.json").read_text(encoding="utf-8"))
    counted = papers["dump"].value_counts().to_dict()
    assert sorted(counted) == sorted(d["dump"] for d in summary["dumps"] if d["kept"])
    assert len(papers) == summary["papers"]
    return counted


@pytest.mark.parametrize("change", ["deleted", "renamed", "edited"])
def test_a_dump_changed_while_the_run_reads_it(seed_run, tmp_path, change):
    workdir = good_run(seed_run, tmp_path)
    dump = workdir / "data" / "raw" / "extra.txt"
    dump.write_text(extra_dump(), encoding="utf-8")
    run = start_workflow(workdir)
    wait_for_job(workdir, "embed", run)  # extra.txt parsed; the run goes on from its parsed papers
    if change == "deleted":
        dump.unlink()
    elif change == "renamed":
        dump.rename(dump.with_name("extra-renamed.txt"))
    else:
        dump.write_text(extra_dump().replace("study 0.", "study zero, edited."), encoding="utf-8")
    output = run.communicate(timeout=900)[0]
    assert run.returncode == 0, output[-4000:]
    assert dumps_in_results(workdir)["extra"] == 12  # as the run read it

    run_workflow(workdir)
    now = dumps_in_results(workdir)
    if change == "deleted":
        assert "extra" not in now
    elif change == "renamed":
        assert "extra" not in now and now["extra-renamed"] == 12
    else:
        papers = pd.read_csv(workdir / "results" / "topics" / "papers.csv", keep_default_na=False)
        assert papers["abstract"].str.contains("study zero, edited.").sum() == 1
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


def test_one_core_gives_the_same_results_byte_for_byte_report_included(seed_run, tmp_path):
    workdir = make_workdir(tmp_path)
    run_workflow(workdir, "--cores", "1")
    assert published_files(workdir) == published_files(seed_run)


def test_a_5_mb_abstract_among_20000_tiny_ones(seed_run, tmp_path):
    rng = random.Random(0)
    words = re.findall(r"[a-z]{4,}", " ".join(seed.read_text(encoding="utf-8").lower() for seed in SEEDS))
    huge = " ".join(rng.choice(words) for _ in range(700_000))[:5_000_000]
    tiny = [f"Tiny abstract {number}: {rng.choice(words)} {rng.choice(words)}." for number in range(20_000)]
    dumps = {seed.name: seed.read_bytes() for seed in SEEDS}
    dumps["huge.txt"] = f"One huge abstract\n\n{huge}\n"
    dumps["tiny.txt"] = "Twenty thousand tiny abstracts\n\n" + "\n\n".join(tiny) + "\n"
    workdir = make_workdir(tmp_path, dumps)
    run_workflow(workdir, timeout=3600)

    counted = dumps_in_results(workdir)
    assert counted["huge"] == 1 and counted["tiny"] == 20_000
    over_window = re.compile(r"(\d[\d,]*) abstracts? embedded from (?:its|their) first 256 tokens")
    seeds_over = int(over_window.search((seed_run / "results/report/index.html").read_text()).group(1))
    report = (workdir / "results" / "report" / "index.html").read_text(encoding="utf-8")
    assert int(over_window.search(report).group(1).replace(",", "")) == seeds_over + 1
    assert os.path.getsize(workdir / "results" / "report" / "index.html") > 5_000_000
