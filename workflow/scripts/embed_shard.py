"""One shard of a large dump embedded: rule embed_shard."""

from papertopics.embed import stages
from papertopics.runtime.adapter import run_rule

run_rule(
    snakemake,
    stages.embed_shard,
    threads=snakemake.threads,
    shard=int(snakemake.wildcards.shard),
    shards=int(snakemake.wildcards.shards),
)
