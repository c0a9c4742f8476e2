from papertopics import stages
from papertopics.adapter import run_stage

run_stage(
    snakemake.log[0],
    stages.corpus,
    list(snakemake.input.papers),
    list(snakemake.input.summaries),
    snakemake.output.papers,
    snakemake.output.summary,
)
