"""The corpus of all dumps: rule corpus."""

from papertopics.ingest import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.corpus)
