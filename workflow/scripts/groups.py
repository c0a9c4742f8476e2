"""Each paper's period and group, decided once: rule groups."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.groups)
