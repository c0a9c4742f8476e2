"""What changed between dumps: rule changes."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.changes)
