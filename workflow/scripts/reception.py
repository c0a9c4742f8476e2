"""How each topic was received: rule reception."""

from papertopics.changes import reception_stage
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, reception_stage.reception)
