"""One dump parsed: rule parse."""

from papertopics.ingest import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.parse)
