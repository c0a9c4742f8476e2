rule evaluate:
    input:
        papers="results/corpus/papers.jsonl",
        topic_papers="results/staged/topics/papers.csv",
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
        top_n_words=config["evaluate"]["top_n_words"],
    script:
        "../scripts/evaluate.py"
