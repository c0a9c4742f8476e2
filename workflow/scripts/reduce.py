"""The cluster space: rule reduce."""

from papertopics.mapping import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.reduce)
