from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


# Checks the config (readable errors), finds the dumps, and clears a killed run's locks.
include: "workflow/rules/common.smk"
include: "workflow/rules/parse.smk"
include: "workflow/rules/embed.smk"
include: "workflow/rules/topics.smk"
include: "workflow/rules/changes.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        "results/report/index.html",
