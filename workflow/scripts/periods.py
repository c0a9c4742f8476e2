"""Each paper's period and group, decided once: rule periods."""

from papertopics.periods import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.periods)
