"""A dump's embeddings, embedded whole or gathered from its shards: rule embed."""

from papertopics import stages
from papertopics.adapter import run_rule

run_rule(snakemake, stages.embed, threads=snakemake.threads)
