"""Every dump of at most embedding.shard_size records embedded, in one job: rule embed."""

from papertopics.embed import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.embed, threads=snakemake.threads)
