# What changed between dumps (or years), and since the previous run: read by the report.
rule changes:
    input:
        topic_papers="results/topics/papers.csv",
        details="results/topics/topic_details.json",
        lineage="results/topics/lineage.json",
    output:
        shares=report(
            "results/topics/dump_shares.csv", caption="../report/dump_shares.rst", category="Tables"
        ),
        changes="results/topics/changes.json",
    log:
        "results/logs/changes.log",
    benchmark:
        "results/benchmarks/changes.tsv"
    conda:
        ENVIRONMENT
    params:
        **config["compare"],
        dump_order=list(DUMPS),
    script:
        "../scripts/changes.py"
