"""The papers' neighbour graph for every projection: rule neighbours."""

from papertopics.mapping import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.neighbours)
