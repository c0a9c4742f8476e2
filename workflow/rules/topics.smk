# Every UMAP projection (the cluster space, the 2-d map, the consensus runs) starts from one
# neighbour graph of the papers, searched once here.
rule neighbours:
    input:
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        fitted_topics=last_fit("topics.npz"),
    output:
        graph="results/reduced/neighbours.npz",
    log:
        "results/logs/neighbours.log",
    benchmark:
        "results/benchmarks/neighbours.tsv"
    conda:
        ENVIRONMENT
    params:
        umap=neighbour_params(),
        update_mode=config["update"],
    script:
        "../scripts/neighbours.py"


# The cluster space, the 2-d map and each consensus run are separate jobs: each UMAP fit is
# seeded, so runs on one core, and with --cores 2 or more (or on a cluster) they run side by side.
rule reduce:
    input:
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        neighbours="results/reduced/neighbours.npz",
        fitted=last_fit("projections/0.joblib"),
    output:
        coordinates="results/reduced/coordinates.npz",
        settings="results/reduced/umap.json",
        model="results/reduced/coordinates.joblib",
    log:
        "results/logs/reduce.log",
    benchmark:
        "results/benchmarks/reduce.tsv"
    conda:
        ENVIRONMENT
    params:
        umap=umap_params(cluster_space=True),
        update_mode=config["update"],
    script:
        "../scripts/reduce.py"


# With umap.consensus_runs above 1: the further cluster spaces, each a UMAP projection with
# the reduce stage's settings and its own seed (drawn from umap.random_state), clustered together.
rule consensus_run:
    input:
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        neighbours="results/reduced/neighbours.npz",
        fitted=last_fit("projections/{run}.joblib"),
    output:
        coordinates="results/reduced/runs/{run}.npz",
        settings="results/reduced/runs/{run}.json",
        model="results/reduced/runs/{run}.joblib",
    log:
        "results/logs/consensus_run/{run}.log",
    benchmark:
        "results/benchmarks/consensus_run/{run}.tsv"
    conda:
        ENVIRONMENT
    params:
        umap=consensus_umap_params,
        update_mode=config["update"],
    script:
        "../scripts/consensus_run.py"


rule map_layout:
    input:
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        neighbours="results/reduced/neighbours.npz",
        fitted=last_fit("map.joblib"),
    output:
        layout="results/reduced/map.npz",
        model="results/reduced/map.joblib",
    log:
        "results/logs/map_layout.log",
    benchmark:
        "results/benchmarks/map_layout.tsv"
    conda:
        ENVIRONMENT
    params:
        umap=umap_params(cluster_space=False),
        update_mode=config["update"],
    script:
        "../scripts/map_layout.py"


rule cluster:
    input:
        coordinates=cluster_spaces(),
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        fitted=last_fit("clusters.joblib"),
        fitted_topics=last_fit("topics.npz"),
    output:
        labels="results/clusters/labels.npz",
        settings="results/clusters/hdbscan.json",
        model="results/clusters/model.joblib",
    log:
        "results/logs/cluster.log",
    benchmark:
        "results/benchmarks/cluster.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(ClusterSettings.from_config(config)),
    script:
        "../scripts/cluster.py"


rule topics:
    input:
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        layout="results/reduced/map.npz",
        labels="results/clusters/labels.npz",
        cluster_settings="results/clusters/hdbscan.json",
        guide_file=guide_file(),
        curation_file=curation_file(),
        # Each topic's keywords per period (dump or year) and per group, as the later stages compare them.
        groups_table="results/groups/papers.csv",
        groups_settings="results/groups/groups.json",
        # The last good run's topics, which this run's are matched against (stable ids).
        history=published_history(TOPICS),
        # update: place words afresh only the periods whose topics' papers changed; the others as fitted.
        fitted_wording=last_fit("wording.json"),
    output:
        topics=report("results/staged/topics/topics.csv", caption="../report/topics.rst", category="Tables"),
        topic_papers="results/staged/topics/papers.csv",
        details="results/staged/topics/topic_details.json",
        model=directory("results/staged/topics/model"),
        figures="results/staged/topics/figures.json",
        lineage="results/staged/topics/lineage.json",
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
        projections=[path.replace(".npz", ".joblib") for path in cluster_spaces()],
        map_model="results/reduced/map.joblib",
        clusters="results/clusters/model.joblib",
        labels="results/clusters/labels.npz",
        topic_papers="results/staged/topics/papers.csv",
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
