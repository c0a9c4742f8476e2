rule evaluate:
    input:
        papers="results/corpus/papers.jsonl",
        topic_papers="results/topics/papers.csv",
        details="results/topics/topic_details.json",
    output:
        metrics=report("results/metrics.json", caption="../report/metrics.rst", category="Tables"),
    params:
        top_n_words=config["evaluate"]["top_n_words"],
    log:
        "results/logs/evaluate.log",
    benchmark:
        "results/benchmarks/evaluate.tsv"
    conda:
        ENVIRONMENT
    script:
        "../scripts/evaluate.py"
