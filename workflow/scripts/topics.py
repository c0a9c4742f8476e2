from papertopics import stages
from papertopics.adapter import run_stage

run_stage(
    snakemake.log[0],
    stages.topics,
    snakemake.input.papers,
    list(snakemake.input.embeddings),
    snakemake.input.map,
    snakemake.input.labels,
    snakemake.output.topics,
    snakemake.output.papers,
    snakemake.output.details,
    snakemake.output.model,
    snakemake.output.figures,
    snakemake.output.lineage,
    cluster_settings_path=snakemake.input.cluster_settings,
    **snakemake.params,
)
