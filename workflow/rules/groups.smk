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
        compare_by=config["compare"]["by"],
        dump_order=list(DUMPS),
    script:
        "../scripts/groups.py"


# Venues compared (compare.by a paper field): per topic and group the share and a test of whether
# the group holds more or fewer of the topic's papers, and with [venue, year] each venue's own
# trends. Only headers when no field is compared.
rule venues:
    input:
        groups_table="results/groups/papers.csv",
        groups_settings="results/groups/groups.json",
        topic_papers="results/staged/topics/papers.csv",
        details="results/staged/topics/topic_details.json",
    output:
        table="results/staged/topics/venues.csv",
        record="results/staged/topics/venues.json",
        trends="results/staged/topics/venue_trends.csv",
    log:
        "results/logs/venues.log",
    benchmark:
        "results/benchmarks/venues.tsv"
    conda:
        ENVIRONMENT
    params:
        # One dict, as the changes rule's: Snakemake records params as a set of values; its keys
        # sorted, so that a config.yaml written in another key order reruns nothing.
        compare=canonical(config["compare"]),
    script:
        "../scripts/venues.py"
