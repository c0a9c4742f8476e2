rule evaluate:
    input:
        after_parsing,
        papers="results/corpus/papers.jsonl",
        topic_papers="results/assigned/papers.csv",
        details="results/staged/topics/topic_details.json",
    output:
        metrics=report("results/staged/metrics.json", caption="../report/metrics.rst", category="Tables"),
    log:
        "results/logs/evaluate.log",
    benchmark:
        "results/benchmarks/evaluate.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(EvaluateSettings.from_config(config)),
    script:
        "../scripts/evaluate.py"
