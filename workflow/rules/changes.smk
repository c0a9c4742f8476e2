# What changed between dumps (or years), and since the previous run: read by the report.
rule changes:
    input:
        topic_papers="results/staged/topics/papers.csv",
        details="results/staged/topics/topic_details.json",
        lineage="results/staged/topics/lineage.json",
    output:
        shares=report(
            "results/staged/topics/dump_shares.csv", caption="../report/dump_shares.rst", category="Tables"
        ),
        changes="results/staged/topics/changes.json",
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
