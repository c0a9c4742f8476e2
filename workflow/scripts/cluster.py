from papertopics import stages
from papertopics.adapter import run_stage

run_stage(
    snakemake.log[0],
    stages.cluster,
    list(snakemake.input.coordinates),
    snakemake.input.papers,
    list(snakemake.input.embeddings),
    snakemake.output.labels,
    snakemake.output.settings,
    **snakemake.params,
)
