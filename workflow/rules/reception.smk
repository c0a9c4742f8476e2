from papertopics.settings import ReceptionStageSettings


# How each topic was received: decisions, ratings and citations for their year, against the rest.
# Editing reception.* or compare's grading reruns this stage and the report only.
rule reception:
    input:
        papers="results/corpus/papers.jsonl",
        topic_papers="results/staged/topics/papers.csv",
        details="results/staged/topics/topic_details.json",
    output:
        table="results/staged/topics/reception.csv",
        years="results/staged/topics/reception_years.csv",
        record="results/staged/topics/reception.json",
    log:
        "results/logs/reception.log",
    benchmark:
        "results/benchmarks/reception.tsv"
    conda:
        ENVIRONMENT
    params:
        # One dict, as the changes rule's: Snakemake records params as a set of values.
        knobs=knobs(ReceptionStageSettings.from_config(config)),
    script:
        "../scripts/reception.py"
