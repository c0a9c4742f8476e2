from papertopics import stages
from papertopics.adapter import run_stage

run_stage(snakemake.log[0], stages.embed, snakemake.input[0], snakemake.output[0], **snakemake.params)
