# The mapping stage (papertopics.mapping): the papers' neighbour graph, the UMAP projections
# (the cluster space, its consensus runs, the 2-d map), the clusters, and each paper's most
# similar papers.
# Every UMAP projection (the cluster space, the 2-d map, the consensus runs) starts from one
# neighbour graph of the papers, searched once here.
rule neighbours:
    input:
        after_parsing,
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
        knobs=knobs(NeighbourSettings.from_config(config)),
    script:
        "../scripts/neighbours.py"


# The cluster space, the 2-d map and each consensus run are separate jobs: each UMAP fit is
# seeded, so runs on one core, and with --cores 2 or more (or on a cluster) they run side by side.
rule reduce:
    input:
        after_parsing,
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
        knobs=knobs(ClusterSpaceSettings.from_config(config)),
    script:
        "../scripts/reduce.py"


# With umap.consensus_runs above 1: the further cluster spaces, each a UMAP projection with
# the reduce stage's settings and its own seed (drawn from umap.random_state), clustered together.
rule consensus_run:
    input:
        after_parsing,
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
        knobs=consensus_run_knobs,
    script:
        "../scripts/consensus_run.py"


rule map_layout:
    input:
        after_parsing,
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
        knobs=knobs(MapSettings.from_config(config)),
    script:
        "../scripts/map_layout.py"


rule cluster:
    input:
        after_parsing,
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


# Each paper's most similar papers by embedding, listed when the report shows a paper.
rule similar_papers:
    input:
        after_parsing,
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        fitted_similar=last_fit("similar.npz"),
    output:
        similar="results/similar/papers.npz",
    log:
        "results/logs/similar_papers.log",
    benchmark:
        "results/benchmarks/similar_papers.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(SimilarSettings.from_config(config)),
    script:
        "../scripts/similar_papers.py"
