# The report's overview also shows quality figures when given a JSON file of them as input
# `metrics` (e.g. an evaluation stage's results/metrics.json).
rule report:
    input:
        corpus_summary="results/corpus/summary.json",
        umap_settings="results/reduced/umap.json",
        hdbscan_settings="results/clusters/hdbscan.json",
        topics="results/topics/topics.csv",
        papers="results/topics/papers.csv",
        details="results/topics/topic_details.json",
        figures="results/topics/figures.json",
        metrics="results/metrics.json",
        changes="results/topics/changes.json",
        shares="results/topics/dump_shares.csv",
        trends="results/topics/trends.csv",
    output:
        page=report("results/report/index.html", caption="../report/report.rst", category="Report"),
    log:
        "results/logs/report.log",
    benchmark:
        "results/benchmarks/report.tsv"
    conda:
        ENVIRONMENT
    params:
        title=config["report"]["title"],
        hover_chars=config["report"]["hover_chars"],
    script:
        "../scripts/report.py"
