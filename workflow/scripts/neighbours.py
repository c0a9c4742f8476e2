from papertopics import stages
from papertopics.adapter import run_stage

run_stage(
    snakemake.log[0],
    stages.neighbours,
    snakemake.input.papers,
    list(snakemake.input.embeddings),
    snakemake.output[0],
    **snakemake.params,
)
