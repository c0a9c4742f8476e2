from papertopics import stages
from papertopics.adapter import run_stage

run_stage(
    snakemake.log[0],
    stages.changes,
    snakemake.input.papers,
    snakemake.input.details,
    snakemake.input.lineage,
    snakemake.output.shares,
    snakemake.output.changes,
    **snakemake.params,
)
