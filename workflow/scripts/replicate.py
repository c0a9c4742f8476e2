"""One replicate's topics, on a subsample of the papers with its own seed: rule replicate."""

from papertopics.robustness import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.replicate)
