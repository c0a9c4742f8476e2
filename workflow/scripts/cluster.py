"""Topics of the cluster spaces: rule cluster."""

from papertopics.mapping import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.cluster)
