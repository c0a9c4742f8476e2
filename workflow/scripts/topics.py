"""The topic model and its tables: rule topics."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.topics)
