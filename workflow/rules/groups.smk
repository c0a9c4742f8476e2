# Which period (dump or year) and which group (compare.by a paper field: venue, track) each paper
# belongs to, decided once here; the topics, changes, venues and report stages read it.
rule groups:
    input:
        papers="results/corpus/papers.jsonl",
    output:
        table="results/groups/papers.csv",
        settings="results/groups/groups.json",
    log:
        "results/logs/groups.log",
    benchmark:
        "results/benchmarks/groups.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(GroupSettings.from_config(config, dump_order=list(DUMPS))),
    script:
        "../scripts/groups.py"
