rule reduce:
    input:
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
    output:
        coordinates="results/reduced/coordinates.npz",
        settings="results/reduced/umap.json",
    params:
        n_neighbors=config["umap"]["n_neighbors"],
        n_components=config["umap"]["n_components"],
        min_dist=config["umap"]["min_dist"],
        metric=config["umap"]["metric"],
        random_state=config["umap"]["random_state"],
        word_weight=config["umap"]["word_weight"],
        word_dimensions=config["umap"]["word_dimensions"],
        fit_sample_size=config["umap"]["fit_sample_size"],
    log:
        "results/logs/reduce.log",
    benchmark:
        "results/benchmarks/reduce.tsv"
    conda:
        ENVIRONMENT
    script:
        "../scripts/reduce.py"


rule cluster:
    input:
        coordinates="results/reduced/coordinates.npz",
    output:
        labels="results/clusters/labels.npz",
        settings="results/clusters/hdbscan.json",
    params:
        min_cluster_size=config["hdbscan"]["min_cluster_size"],
        min_samples=config["hdbscan"]["min_samples"],
        cluster_selection_method=config["hdbscan"]["cluster_selection_method"],
        max_cluster_share=config["hdbscan"]["max_cluster_share"],
    log:
        "results/logs/cluster.log",
    benchmark:
        "results/benchmarks/cluster.tsv"
    conda:
        ENVIRONMENT
    script:
        "../scripts/cluster.py"


rule topics:
    input:
        papers="results/corpus/papers.jsonl",
        embeddings=expand("results/embeddings/{dump}.npz", dump=sorted(DUMPS)),
        coordinates="results/reduced/coordinates.npz",
        labels="results/clusters/labels.npz",
    output:
        topics="results/topics/topics.csv",
        papers="results/topics/papers.csv",
        details="results/topics/topic_details.json",
        model=directory("results/topics/model"),
        figures="results/topics/figures.json",
    params:
        embedding_model=config["embedding"]["model"],
        max_seq_length=config["embedding"]["max_seq_length"],
        ngram_range=config["topics"]["ngram_range"],
        stop_words=config["topics"]["stop_words"],
        top_n_words=config["topics"]["top_n_words"],
        n_representative_docs=config["topics"]["n_representative_docs"],
        reduce_outliers=config["topics"]["reduce_outliers"],
        reduce_frequent_words=config["topics"]["reduce_frequent_words"],
        representation=config["topics"]["representation"],
        mmr_diversity=config["topics"]["mmr_diversity"],
        min_keyword_share=config["topics"]["min_keyword_share"],
        coarse_topics=config["report"]["coarse_topics"],
    log:
        "results/logs/topics.log",
    benchmark:
        "results/benchmarks/topics.tsv"
    conda:
        ENVIRONMENT
    script:
        "../scripts/topics.py"
