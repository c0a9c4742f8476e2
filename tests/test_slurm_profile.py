"""The SLURM profile's resources that grow with a job's input (``input.size_mb``): a job whose
inputs do not exist when the job graph is planned gets them from its inputs' real size once they
exist, not a size of 0. Run with the local executor: Snakemake's scheduler evaluates resources
the same way before handing a job to any executor (SLURM included; tests/test_slurm.py runs it there).
"""

import re

import pytest
from conftest import REPO, make_workdir, run_workflow

pytestmark = pytest.mark.slow

# Memory made to show the input size plainly: 1,000 MB per MB of input (the profile's own
# expressions add a few MB per input MB to a fixed base, which hides a small corpus's size).
VISIBLE = "neighbours:mem_mb=int(1 + 1000 * input.size_mb)"


def job_resources(log: str, rule: str) -> str:
    """The ``resources:`` line that Snakemake logged for ``rule``'s job."""
    block = log.split(f"rule {rule}:", 1)[1]
    return next(line for line in block.splitlines() if line.strip().startswith("resources:"))


def test_a_job_planned_before_its_inputs_exist_gets_resources_from_their_size(tmp_path):
    workdir = make_workdir(tmp_path)
    profile = ("--workflow-profile", str(REPO / "profiles" / "slurm"), "--executor", "local")
    plan = run_workflow(workdir, *profile, "--set-resources", VISIBLE, "--until", "neighbours", "--dry-run")
    # At planning time the corpus and embeddings are not there: the value is not known yet.
    assert "mem_mb=<TBD>" in job_resources(plan.stdout + plan.stderr, "neighbours")

    run = run_workflow(workdir, *profile, "--set-resources", VISIBLE, "--until", "neighbours")
    inputs = [
        workdir / "results" / "corpus" / "papers.jsonl",
        *(workdir / "results" / "embeddings").glob("*.npz"),
    ]
    size_mb = sum(path.stat().st_size for path in inputs) / 1024**2
    asked = int(re.search(r"\bmem_mb=(\d+)", job_resources(run.stdout + run.stderr, "neighbours")).group(1))
    assert asked == int(1 + 1000 * size_mb) > 1
