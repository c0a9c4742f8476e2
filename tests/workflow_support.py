"""The real workflow in a scratch folder, for the tests and the benchmarks: the repository's paths,
a working folder holding a config and dumps, the workflow run there by Snakemake, and the jobs a
run would plan. The tests import it through conftest; bench.common imports it as
``tests.workflow_support`` (the repository root is on the benchmarks' path), never the reverse.
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SEEDS = sorted((REPO / "data" / "raw").glob("*.txt"))
SHARED = REPO.parent / "shared"
CORPORA = SHARED / "corpora"
ARXIV = CORPORA / "arxiv_cs_daily_2025_2026.jsonl.gz"
IJCAI = CORPORA / "ijcai_2020_2024_areas.jsonl.gz"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
# Every workflow run of the tests and benchmarks is offline: a model that is not installed fails
# instead of downloading.
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
# Debian's Chromium (`make browser`), headless and without a sandbox, as the project's set-up installs it.
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


# ---------------------------------------------------------------- a working folder


def default_config() -> dict:
    return yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))


# `make test-backends` runs the suite with each CPU embedding backend in turn: the vectors, and so a
# small corpus's clustering, differ by backend and by the CPU's bf16 path, and no test may pass on
# one and fail on another. Empty: the config's own backend (auto).
FORCED_BACKEND = os.environ.get("PAPERTOPICS_TEST_BACKEND", "")


# The folder every workflow run of a test session embeds through (embedding.cache_dir; conftest
# makes it): the shipped dumps' 38 abstracts, which most runs hold, are embedded once a session
# rather than in each run's embed job, which would load the model for them. The cache's entries
# are keyed by model, backend, window and text, so a forced backend has entries of its own. Unset
# (the benchmarks run alone): each run has its own cache, as a user's does.
SHARED_EMBEDDINGS_VARIABLE = "PAPERTOPICS_TEST_EMBEDDING_CACHE"
# What a run that must embed for itself passes to make_workdir (the config's default).
OWN_EMBEDDING_CACHE = {"cache_dir": default_config()["embedding"]["cache_dir"]}


# The parse stage's knobs for the tests that call it directly: config.yaml's, but a lower minimum abstract.
PARSE_KNOBS = {
    "min_abstract_chars": 20,
    "abstract_column": None,
    "decision_field": "decision",
    "ratings_field": "ratings",
    "citations_field": "citations",
}


def write_config(root: Path, **overrides) -> dict:
    """config.yaml in ``root``: the defaults with ``overrides`` (one level deep: a section's dict
    updates that section, any other value replaces it).
    """
    config = config_for_tests(**overrides)
    if config["embedding"]["cache_dir"] == os.environ.get(SHARED_EMBEDDINGS_VARIABLE):
        embed_the_seeds_once(Path(config["embedding"]["cache_dir"]))
    (root / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return config


def config_for_tests(**overrides) -> dict:
    """The config a test's run reads (see write_config)."""
    config = copy.deepcopy(default_config())
    # No replicates unless a test asks for them: ten cost a run of the shipped dumps as much again
    # (a replicate job is a projection's: 14-26 s each against 155 s for the whole run without;
    # docs/robustness.md). The robustness tests set robustness.replicates themselves.
    config["robustness"]["replicates"] = 0
    if FORCED_BACKEND:
        config["embedding"]["backend"] = FORCED_BACKEND
    if os.environ.get(SHARED_EMBEDDINGS_VARIABLE):
        config["embedding"]["cache_dir"] = os.environ[SHARED_EMBEDDINGS_VARIABLE]
    for section, value in overrides.items():
        if isinstance(value, dict):
            config[section] = {**config.get(section, {}), **value}
        else:
            config[section] = value
    return config


def embed_the_seeds_once(cache: Path) -> None:
    """The shipped dumps embedded into the session's shared ``cache`` before any run reads them
    there, by a run of those dumps alone (up to embed), once: a vector differs in its last bits
    with the texts embedded beside it, and the shipped dumps' few topics turn on such bits
    (docs/testing.md), so their vectors must not be whichever run's that embedded them first.
    """
    from filelock import FileLock

    with FileLock(f"{cache}.lock"):
        if (cache / "seeds.ready").exists():
            return
        with tempfile.TemporaryDirectory(prefix="papertopics-seeds-") as scratch:
            root = Path(scratch)
            (root / "data" / "raw").mkdir(parents=True)
            for seed in SEEDS:
                (root / "data" / "raw" / seed.name).write_bytes(seed.read_bytes())
            (root / "config.yaml").write_text(
                yaml.safe_dump(config_for_tests(), sort_keys=False), encoding="utf-8"
            )
            run_workflow(root, "--until", "embed")
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "seeds.ready").touch()


def make_workdir(root: Path, dumps: dict[str, bytes | str] | None = None, **overrides) -> Path:
    """A working folder holding config.yaml (defaults plus ``overrides``, see write_config) and
    ``data/raw`` with the given dumps (the shipped seeds when ``dumps`` is None).
    """
    raw = root / "data" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for name, content in (
        {seed.name: seed.read_bytes() for seed in SEEDS} if dumps is None else dumps
    ).items():
        (raw / name).write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    write_config(root, **overrides)
    return root


def workdir_config(root: Path) -> dict:
    """The config a working folder's runs read."""
    return yaml.safe_load((root / "config.yaml").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the workflow


def snakemake_command(workdir: Path, *args: str) -> list[str]:
    """Snakemake on the repository's Snakefile with ``workdir`` as its working folder."""
    return [str(SNAKEMAKE), "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir), *args]


def run_workflow(
    workdir: Path, *args: str, check: bool = True, timeout: int = 1800
) -> subprocess.CompletedProcess:
    """Run the workflow locally on 2 cores in ``workdir``; fail with its output unless ``check`` is off."""
    command = snakemake_command(workdir, "--cores", "2", "--rerun-incomplete", *args)
    result = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, **OFFLINE}, timeout=timeout
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"snakemake failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-8000:]}"
        )
    return result


# The jobs a rerun plans once the topics stage must run again (a changed topics knob, a curation or
# guide file, a lineage threshold): that stage and everything after it, nothing before.
TOPICS_ONWARD = {
    "topics": 1,
    "keep_fit": 1,
    # Each topic's stability in topics.csv and how often each finding held: with no replicates,
    # topics.csv with empty stability and the findings without grades.
    "topic_stability": 1,
    "finding_robustness": 1,
    "changes": 1,
    "reception": 1,
    "people": 1,
    "venues": 1,
    "evaluate": 1,
    "report": 1,
    "publish": 1,
    "all": 1,
}


def planned_jobs(workdir: Path, *targets: str) -> dict[str, int]:
    """Rule name → job count that a dry run would execute now (for ``targets``, or the default target)."""
    # The targets before --quiet, which would take them as its own values.
    return job_counts(run_workflow(workdir, *targets, "--dry-run", "--quiet", "rules").stdout)


def executed_jobs(result: subprocess.CompletedProcess) -> dict[str, int]:
    """Rule name → jobs a finished run executed, from its log of each job's start ("rule topics:")."""
    started = re.findall(r"^(?:local)?(?:rule|checkpoint) (\w+):$", result.stderr, flags=re.MULTILINE)
    return dict(Counter(started))


def job_counts(output: str) -> dict[str, int]:
    """Rule name → job count, from the "Job stats" table a (dry) run prints; {} where it has none."""
    jobs = {}
    for table in output.split("Job stats:")[1:]:
        for line in table.strip().splitlines()[2:]:  # after the header and its rule
            parts = line.split()
            if len(parts) != 2 or not parts[1].isdigit():
                break
            if parts[0] != "total":
                jobs[parts[0]] = int(parts[1])
    return jobs
