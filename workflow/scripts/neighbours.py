"""The papers' neighbour graph for every projection: rule neighbours."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.neighbours)
