"""A parsed dump's text part, what the stages before reception read: rule text_part."""

from papertopics.ingest import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.text_part)
