from papertopics import stages
from papertopics.adapter import run_stage

run_stage(snakemake.log[0], stages.report, output=snakemake.output[0], **snakemake.input, **snakemake.params)
