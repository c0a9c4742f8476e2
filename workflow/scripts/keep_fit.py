"""The run's fitted models, kept for update: place: rule keep_fit."""

from papertopics.mapping import placement
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, placement.keep_fit)
