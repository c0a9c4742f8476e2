"""The 2-d paper map: rule map_layout."""

from papertopics.mapping import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.map_layout)
