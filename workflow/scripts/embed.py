from papertopics import stages
from papertopics.adapter import run_stage

# embed_shard: one shard of a large dump; embed: a whole dump, or the gathering of its shards.
if "shard" in snakemake.wildcards.keys():
    shard = dict(shard=int(snakemake.wildcards.shard), shards=int(snakemake.wildcards.shards))
    run_stage(
        snakemake.log[0],
        stages.embed,
        snakemake.input[0],
        snakemake.output[0],
        threads=snakemake.threads,
        **shard,
        **snakemake.params,
    )
elif snakemake.input.shards:
    run_stage(
        snakemake.log[0], stages.gather_embedding_shards, list(snakemake.input.shards), snakemake.output[0]
    )
else:
    run_stage(
        snakemake.log[0],
        stages.embed,
        snakemake.input.papers,
        snakemake.output[0],
        threads=snakemake.threads,
        **snakemake.params,
    )
