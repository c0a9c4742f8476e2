"""Each paper's period and group, decided once: rule groups."""

from papertopics.groups import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.groups)
