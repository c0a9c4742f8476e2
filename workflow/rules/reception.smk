from papertopics.settings import ReceptionStageSettings


# How each topic was received: decisions, ratings and citations for their year, against the rest.
# Editing reception.* or compare's grading, or a decision, rating or citation count in a dump,
# reruns this stage and the report only (a dump is parsed again first).
rule reception:
    input:
        papers="results/corpus/papers.jsonl",
        # The dumps as parsed, decisions, ratings and citations and all (the corpus has their text part).
        parsed=expand("results/parsed/{dump}.jsonl", dump=sorted(DUMPS)),
        topic_papers="results/assigned/papers.csv",
        details="results/staged/topics/topic_details.json",
    output:
        # The robustness stage adds how often each finding holds in the replicates (reception.csv,
        # reception_years.csv).
        table="results/reception/reception.csv",
        years="results/reception/years.csv",
        record="results/staged/topics/reception.json",
        # papers.csv: the topics stage's table with the papers' decisions, ratings and citations.
        paper_table_file="results/staged/topics/papers.csv",
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
