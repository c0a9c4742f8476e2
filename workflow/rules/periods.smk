# Which period (dump or year) and which group (compare.by a paper field: venue, track) each paper
# belongs to, decided once here; the topics, changes, venues and report stages read it.
rule periods:
    input:
        after_parsing,
        papers="results/corpus/papers.jsonl",
    output:
        table="results/periods/papers.csv",
        settings="results/periods/periods.json",
    log:
        "results/logs/periods.log",
    benchmark:
        "results/benchmarks/periods.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(PeriodSettings.from_config(config, dump_order=list(DUMPS))),
    script:
        "../scripts/periods.py"
