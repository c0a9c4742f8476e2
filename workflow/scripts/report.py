"""The HTML report: rule report."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.report)
