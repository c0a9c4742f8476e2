"""The 2-d paper map: rule map_layout."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.map_layout)
