"""Topics of the cluster spaces: rule cluster."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.cluster)
