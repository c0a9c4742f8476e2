"""The run's fitted models, kept for update: place: rule keep_fit."""

from papertopics import placement
from papertopics.adapter import run_rule

run_rule(snakemake, placement.keep_fit)
