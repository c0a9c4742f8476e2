"""The cluster space: rule reduce."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.reduce)
