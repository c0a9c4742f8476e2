"""A dump embedded in shards gathered into its one file: rule embed_gather."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.embed_gather)
