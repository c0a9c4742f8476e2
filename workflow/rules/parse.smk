rule parse:
    input:
        dump=lambda wildcards: DUMPS[wildcards.dump],
    output:
        papers="results/parsed/{dump}.jsonl",
        summary="results/parsed/{dump}.summary.json",
        # Every duplicate, rejection and boilerplate cut (the summary lists the first few).
        details="results/parsed/{dump}.details.jsonl.gz",
    log:
        "results/logs/parse/{dump}.log",
    benchmark:
        "results/benchmarks/parse/{dump}.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(ParseSettings.from_config(config)),
    script:
        "../scripts/parse.py"


rule corpus:
    input:
        parsed=expand("results/parsed/{dump}.jsonl", dump=sorted(DUMPS)),
        summaries=expand("results/parsed/{dump}.summary.json", dump=sorted(DUMPS)),
    output:
        papers="results/corpus/papers.jsonl",
        summary="results/corpus/summary.json",
    log:
        "results/logs/corpus.log",
    benchmark:
        "results/benchmarks/corpus.tsv"
    conda:
        ENVIRONMENT
    script:
        "../scripts/corpus.py"
