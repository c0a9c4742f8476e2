"""The HTML report: rule report."""

from papertopics.report import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.report)
