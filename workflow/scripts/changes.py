"""What changed between dumps: rule changes."""

from papertopics.changes import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.changes)
