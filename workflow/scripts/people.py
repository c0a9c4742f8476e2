"""Who works on each topic: rule people."""

from papertopics.people import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.people)
