from papertopics.settings import PeopleSettings


# Who works on each topic: its authors, institutions and countries, its experts, and who is
# rising in it (papertopics.people: authorship, trends). Read by the report.
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
        rising="results/staged/topics/people_rising.csv",
        topics="results/staged/topics/people_topics.csv",
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
