# The report's overview also shows quality figures when given a JSON file of them as input
# `metrics` (e.g. an evaluation stage's results/metrics.json).
rule report:
    input:
        corpus_summary="results/corpus/summary.json",
        umap_settings="results/reduced/umap.json",
        hdbscan_settings="results/clusters/hdbscan.json",
        topics="results/staged/topics/topics.csv",
        papers="results/staged/topics/papers.csv",
        details="results/staged/topics/topic_details.json",
        figures="results/staged/topics/figures.json",
        metrics="results/staged/metrics.json",
        changes="results/staged/topics/changes.json",
        embedding_summaries=expand("results/embeddings/{dump}.json", dump=sorted(DUMPS)),
        shares="results/staged/topics/dump_shares.csv",
        trends="results/staged/topics/trends.csv",
        comparison="results/staged/topics/comparison.csv",
        bursts="results/staged/topics/bursts.csv",
        similar="results/similar/papers.npz",
        periods_table="results/periods/papers.csv",
        periods_settings="results/periods/periods.json",
        venues="results/staged/topics/venues.json",
        venues_table="results/staged/topics/venues.csv",
        venue_trends="results/staged/topics/venue_trends.csv",
        people="results/staged/topics/people.json",
        people_top="results/staged/topics/people_top.csv",
        experts="results/staged/topics/experts.csv",
        people_rising="results/staged/topics/people_rising.csv",
        people_topics="results/staged/topics/people_topics.csv",
        people_periods="results/staged/topics/people_periods.csv",
        reception="results/staged/topics/reception.json",
        reception_table="results/staged/topics/reception.csv",
        reception_years="results/staged/topics/reception_years.csv",
        dump_summaries=expand("results/parsed/{dump}.summary.json", dump=sorted(DUMPS)),
        bridges="results/staged/topics/bridges.csv",
        strategic="results/staged/topics/strategic.csv",
        robustness="results/staged/topics/robustness.json",
    output:
        page=report("results/staged/report/index.html", caption="../report/report.rst", category="Report"),
    log:
        "results/logs/report.log",
    benchmark:
        "results/benchmarks/report.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(ReportSettings.from_config(config)),
    script:
        "../scripts/report.py"
