"""Topic quality figures: rule evaluate."""

from papertopics.runtime.adapter import run_rule
from papertopics.topics import stages

run_rule(snakemake, stages.evaluate)
