rule topics:
    input:
        after_parsing,
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        layout="results/reduced/map.npz",
        labels="results/clusters/labels.npz",
        cluster_settings="results/clusters/hdbscan.json",
        guide_file=guide_file(),
        curation_file=curation_file(),
        # Each topic's keywords per period (dump or year) and per group, as the later stages compare them.
        periods_table="results/periods/papers.csv",
        periods_settings="results/periods/periods.json",
        # The last good run's topics, which this run's are matched against (stable ids).
        history=published_history(TOPICS),
        # update: place words afresh only the periods whose topics' papers changed; the others as fitted.
        fitted_wording=last_fit("wording.json"),
    output:
        # The topics stage's table; the robustness stage adds each topic's stability (topics.csv).
        topics="results/assigned/topics.csv",
        topic_papers="results/assigned/papers.csv",
        details="results/staged/topics/topic_details.json",
        model=directory("results/staged/topics/model"),
        figures="results/staged/topics/figures.json",
        lineage="results/staged/topics/lineage.json",
        bridges="results/staged/topics/bridges.csv",
        strategic="results/staged/topics/strategic.csv",
        next_history=f"results/staged/history/{TOPICS}",
    log:
        "results/logs/topics.log",
    benchmark:
        "results/benchmarks/topics.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(TopicStageSettings.from_config(config)),
    script:
        "../scripts/topics.py"


# The run's fitted models and each fitted paper's topic, published as results/fit/ with the run:
# what update: place places the next dumps on. After a placement, the fit placed on, unchanged.
rule keep_fit:
    input:
        after_parsing,
        projections=[path.replace(".npz", ".joblib") for path in cluster_spaces()],
        map_model="results/reduced/map.joblib",
        clusters="results/clusters/model.joblib",
        labels="results/clusters/labels.npz",
        topic_papers="results/assigned/papers.csv",
        details="results/staged/topics/topic_details.json",
        fitted_topics=last_fit("topics.npz"),
        fitted_wording=last_fit("wording.json"),
        similar="results/similar/papers.npz",
        fitted_similar=last_fit("similar.npz"),
    output:
        fit=directory("results/staged/fit"),
    log:
        "results/logs/keep_fit.log",
    benchmark:
        "results/benchmarks/keep_fit.tsv"
    conda:
        ENVIRONMENT
    script:
        "../scripts/keep_fit.py"
