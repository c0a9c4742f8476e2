from papertopics import stages
from papertopics.adapter import run_stage

run_stage(
    snakemake.log[0],
    stages.parse,
    snakemake.input[0],
    snakemake.output.papers,
    snakemake.output.summary,
    **snakemake.params,
)
