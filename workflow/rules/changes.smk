# What changed across the dumps (or years): trends over all of them, terms that burst, the
# newest against the one before, and since the previous run. Read by the report.
rule changes:
    input:
        after_parsing,
        papers="results/corpus/papers.jsonl",
        topic_papers="results/assigned/papers.csv",
        details="results/staged/topics/topic_details.json",
        lineage="results/staged/topics/lineage.json",
        periods_table="results/periods/papers.csv",
        periods_settings="results/periods/periods.json",
        # Themes within a topic: how far its papers of one era are from those of another.
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        # The last good run's shares, to show where the shares it published moved.
        history=published_history(SHARES),
    output:
        shares=report(
            "results/staged/topics/dump_shares.csv", caption="../report/dump_shares.rst", category="Tables"
        ),
        changes="results/staged/topics/changes.json",
        # The robustness stage adds how often each trend holds in the replicates (trends.csv).
        trends="results/changes/trends.csv",
        # The robustness stage adds how often each burst's topic holds in the replicates (bursts.csv).
        bursts="results/changes/bursts.csv",
        themes="results/staged/topics/themes.csv",
        next_history=f"results/staged/history/{SHARES}",
    log:
        "results/logs/changes.log",
    benchmark:
        "results/benchmarks/changes.tsv"
    conda:
        ENVIRONMENT
    params:
        # One dict, not one param per knob: Snakemake records a rule's params as a set of values
        # without their names, so a knob set to a value another knob holds (the false discovery
        # rate to 0.1, say) would not rerun the stage. A dict is recorded with its keys.
        knobs=knobs(ChangeSettings.from_config(config)),
    script:
        "../scripts/changes.py"


# Venues compared (compare.by a paper field): per topic and group the share and a test of whether
# the group holds more or fewer of the topic's papers, and with [venue, year] each venue's own
# trends. Only headers when no field is compared.
rule venues:
    input:
        after_parsing,
        periods_table="results/periods/papers.csv",
        periods_settings="results/periods/periods.json",
        topic_papers="results/assigned/papers.csv",
        details="results/staged/topics/topic_details.json",
    output:
        # The robustness stage adds how often each finding holds in the replicates (venues.csv).
        table="results/changes/venues.csv",
        record="results/staged/topics/venues.json",
        # The robustness stage adds how often each venue's trend holds (venue_trends.csv).
        trends="results/changes/venue_trends.csv",
    log:
        "results/logs/venues.log",
    benchmark:
        "results/benchmarks/venues.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(CompareSettings.from_config(config)),
    script:
        "../scripts/venues.py"
