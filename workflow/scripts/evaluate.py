from papertopics import stages
from papertopics.adapter import run_stage

run_stage(
    snakemake.log[0],
    stages.evaluate,
    snakemake.input.papers,
    snakemake.input.topic_papers,
    snakemake.input.details,
    snakemake.output.metrics,
    **snakemake.params,
)
