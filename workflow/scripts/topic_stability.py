"""Each topic matched in every replicate, and its stability in topics.csv: rule topic_stability."""

from papertopics.robustness import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.topic_stability)
