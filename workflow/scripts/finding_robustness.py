"""Each finding re-tested in every replicate, graded by how often it holds: rule finding_robustness."""

from papertopics.robustness import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.finding_robustness)
