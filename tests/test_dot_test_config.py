"""The catalog-style test configuration in .test/ runs as `make test-config` runs it."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from conftest import REPO, planned_jobs, run_workflow

pytestmark = pytest.mark.slow


def test_the_test_configuration_shards_embeddings_and_reads_its_guide_file(tmp_path):
    # The same layout as the repository: .test/ beside data/raw/, which its inputs name.
    shutil.copytree(
        REPO / ".test", tmp_path / ".test", ignore=shutil.ignore_patterns("results", ".snakemake")
    )
    shutil.copytree(REPO / "data" / "raw", tmp_path / "data" / "raw")
    workdir = tmp_path / ".test"
    config = yaml.safe_load((workdir / "config.yaml").read_text(encoding="utf-8"))

    run_workflow(workdir)

    results = workdir / "results"
    for dump in (path.name.split(".")[0] for path in (tmp_path / "data" / "raw").glob("*.txt")):
        papers = (results / "parsed" / f"{dump}.jsonl").read_text(encoding="utf-8").splitlines()
        shards = -(-len(papers) // config["embedding"]["shard_size"])
        assert shards > 1
        assert sorted(p.name for p in (results / "embeddings" / "shards" / dump).glob("*.npz")) == sorted(
            f"{index}-of-{shards}.npz" for index in range(shards)
        )
    names = [
        line.strip()
        for line in (workdir / config["topics"]["guide"]).read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    settings = json.loads((results / "topics" / "topic_details.json").read_text(encoding="utf-8"))["settings"]
    assert settings["guide"] == names
    assert config["report"]["title"] in (results / "report" / "index.html").read_text(encoding="utf-8")
    assert planned_jobs(workdir) == {}, "a finished sharded run must have nothing to do"
