"""A dump embedded in shards gathered into its one file: rule embed_gather."""

from papertopics.embed import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.embed_gather)
