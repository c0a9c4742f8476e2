"""A consensus run's cluster space, seeded apart from reduce's: rule consensus_run."""

from papertopics.mapping import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.consensus_run)
