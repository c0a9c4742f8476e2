"""The corpus of all dumps: rule corpus."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.corpus)
