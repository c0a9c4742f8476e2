"""Who works on each topic: rule people."""

from papertopics.changes import people_stage
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, people_stage.people)
