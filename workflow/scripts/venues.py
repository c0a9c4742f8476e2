"""Venues compared: rule venues."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.venues)
