from papertopics import stages
from papertopics.adapter import run_stage

run_stage(
    snakemake.log[0],
    stages.reduce,
    snakemake.input.papers,
    list(snakemake.input.embeddings),
    snakemake.input.neighbours,
    snakemake.output.coordinates,
    snakemake.output.settings,
    **snakemake.params,
)
