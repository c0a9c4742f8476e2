"""How each topic was received: rule reception."""

from papertopics.reception import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.reception)
