import os
import sys
from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")

# Stage logic lives in workflow/papertopics. Snakemake hands its own sys.path to every
# script it runs (inside a --use-conda environment too), so this makes the package importable.
sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))

# A job's idle threads sleep instead of spinning: jobs share cores (with each other, with other
# work on the machine, with other users' jobs on a cluster node), and torch's OpenMP threads
# spinning between operations take those cores from them. Alone on its cores a job is as fast;
# two embeddings at once on two cores took 15.0 s each instead of 33.8 s (docs/speed.md).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from papertopics.errors import PipelineInputError
from papertopics.runtime.startup import check_yaml, exit_with

# Snakemake's message for a config.yaml that is not YAML names neither the file nor the line.
try:
    if Path("config.yaml").is_file():
        check_yaml("config.yaml")
except PipelineInputError as error:
    exit_with(error)


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


# Checks the config (readable errors, naming where each value was given), finds the dumps, makes
# this the only run here and settles what a killed run left behind.
include: "workflow/rules/common.smk"
include: "workflow/rules/parse.smk"
include: "workflow/rules/periods.smk"
include: "workflow/rules/embed.smk"
include: "workflow/rules/mapping.smk"
include: "workflow/rules/topics.smk"
include: "workflow/rules/changes.smk"
include: "workflow/rules/reception.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/people.smk"
include: "workflow/rules/robustness.smk"
include: "workflow/rules/report.smk"
# Last: it publishes what the rules above stage.
include: "workflow/rules/publish.smk"


# The staged outputs are targets too: Snakemake does not remake a missing input of a job whose
# output is present (the publish record), and a failed job's outputs are deleted.
rule all:
    default_target: True
    input:
        staged_outputs(),
        "results/staged/published.json",
