"""Topic quality figures: rule evaluate."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.evaluate)
