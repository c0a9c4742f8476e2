"""Venues compared: rule venues."""

from papertopics.changes import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.venues)
