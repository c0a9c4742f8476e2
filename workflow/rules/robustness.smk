from papertopics.settings import FindingSettings


# The robustness stage (papertopics.robustness): the topics found again on subsamples of the
# papers with other seeds, each replicate its own job (a cluster spreads them), and how often each
# topic of the main run comes back. A replicate reads only the papers' texts, embeddings and
# neighbour graph: editing a decision, or a test after it, reruns none.
rule replicate:
    input:
        after_parsing,
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        neighbours="results/reduced/neighbours.npz",
    output:
        topics="results/robustness/replicates/{replicate}.npz",
    log:
        "results/logs/replicate/{replicate}.log",
    benchmark:
        "results/benchmarks/replicate/{replicate}.tsv"
    wildcard_constraints:
        replicate=r"[1-9]\d*",
    conda:
        ENVIRONMENT
    params:
        knobs=replicate_knobs,
    script:
        "../scripts/replicate.py"


# Each topic matched in every replicate (best Jaccard), and its stability in topics.csv.
rule topic_stability:
    input:
        after_parsing,
        topic_papers="results/assigned/papers.csv",
        topic_table="results/assigned/topics.csv",
        replicates=replicate_files(),
    output:
        topics=report("results/staged/topics/topics.csv", caption="../report/topics.rst", category="Tables"),
        matches="results/staged/topics/stability.csv",
    log:
        "results/logs/topic_stability.log",
    benchmark:
        "results/benchmarks/topic_stability.tsv"
    conda:
        ENVIRONMENT
    script:
        "../scripts/topic_stability.py"


# Each finding (trends and their shapes, the newest period against the one before, bursts'
# topics, reception and its changes across the years, people rising and over-represented, venues
# and their own trends) re-tested in every replicate on its matched topic, with the same test
# and family: how often it holds, and its grade (robust, supported, fragile). No replicate is redrawn: editing a decision reruns this job,
# not a clustering.
rule finding_robustness:
    input:
        after_parsing,
        topic_papers="results/assigned/papers.csv",
        topics="results/staged/topics/topics.csv",
        matches="results/staged/topics/stability.csv",
        replicates=replicate_files(),
        periods_table="results/periods/papers.csv",
        periods_settings="results/periods/periods.json",
        found_trends="results/changes/trends.csv",
        changes="results/staged/topics/changes.json",
        papers="results/corpus/papers.jsonl",
        parsed=expand("results/parsed/{dump}.jsonl", dump=sorted(DUMPS)),
        details="results/staged/topics/topic_details.json",
        found_reception="results/reception/reception.csv",
        found_rising="results/people/rising.csv",
        found_people_topics="results/people/topics.csv",
        found_venues="results/changes/venues.csv",
        found_venue_trends="results/changes/venue_trends.csv",
        found_bursts="results/changes/bursts.csv",
        found_reception_years="results/reception/years.csv",
    output:
        trends="results/staged/topics/trends.csv",
        comparison="results/staged/topics/comparison.csv",
        bursts="results/staged/topics/bursts.csv",
        reception="results/staged/topics/reception.csv",
        reception_years="results/staged/topics/reception_years.csv",
        people_rising="results/staged/topics/people_rising.csv",
        people_topics="results/staged/topics/people_topics.csv",
        venues="results/staged/topics/venues.csv",
        venue_trends="results/staged/topics/venue_trends.csv",
        record="results/staged/topics/robustness.json",
    log:
        "results/logs/finding_robustness.log",
    benchmark:
        "results/benchmarks/finding_robustness.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(FindingSettings.from_config(config)),
    script:
        "../scripts/finding_robustness.py"
