"""The topic model and its tables: rule topics."""

from papertopics.runtime.adapter import run_rule
from papertopics.topics import stages

run_rule(snakemake, stages.topics)
