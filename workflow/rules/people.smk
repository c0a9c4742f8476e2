from papertopics.settings import PeopleSettings


# Who works on each topic: its authors, institutions and countries, its experts, and who is
# rising in it (papertopics.people: authorship, trends). Read by the report and, for how often
# each finding holds, the robustness stage.
rule people:
    input:
        after_parsing,
        topic_papers="results/assigned/papers.csv",
        details="results/staged/topics/topic_details.json",
        periods_table="results/periods/papers.csv",
        periods_settings="results/periods/periods.json",
    output:
        top="results/staged/topics/people_top.csv",
        experts="results/staged/topics/experts.csv",
        # The robustness stage adds how often each finding holds in the replicates
        # (people_rising.csv, people_topics.csv).
        rising="results/people/rising.csv",
        topics="results/people/topics.csv",
        periods="results/staged/topics/people_periods.csv",
        record="results/staged/topics/people.json",
    log:
        "results/logs/people.log",
    benchmark:
        "results/benchmarks/people.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(PeopleSettings.from_config(config)),
    script:
        "../scripts/people.py"
