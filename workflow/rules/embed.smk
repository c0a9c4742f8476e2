# The dumps of at most embedding.shard_size records are embedded by one embed job, which loads the
# model once (and only when some abstract is not in the embedding cache); each keeps its own file.
# A larger dump is embedded as several embed_shard jobs (which --cores or a cluster executor can run
# side by side), gathered into the dump's one file by embed_gather.


rule embed:
    input:
        papers=text_parts(WHOLE_DUMPS),
    output:
        embeddings=expand("results/embeddings/{dump}.npz", dump=WHOLE_DUMPS),
        summaries=expand("results/embeddings/{dump}.json", dump=WHOLE_DUMPS),
    log:
        "results/logs/embed.log",
    benchmark:
        "results/benchmarks/embed.tsv"
    conda:
        ENVIRONMENT
    threads: config["embedding"]["threads"]
    resources:
        **embedding_resources(),
    params:
        knobs=knobs(EmbeddingSettings.from_config(config)),
    script:
        "../scripts/embed.py"


rule embed_shard:
    input:
        papers=text_parts(),
    output:
        embeddings="results/embeddings/shards/{dump}/{shard}-of-{shards}.npz",
    log:
        "results/logs/embed/{dump}/{shard}-of-{shards}.log",
    benchmark:
        "results/benchmarks/embed/{dump}/{shard}-of-{shards}.tsv"
    conda:
        ENVIRONMENT
    threads: config["embedding"]["threads"]
    resources:
        **embedding_resources(),
    params:
        knobs=knobs(EmbeddingSettings.from_config(config)),
    script:
        "../scripts/embed_shard.py"


rule embed_gather:
    input:
        after_parsing,
        shards=shard_files,
    output:
        embeddings="results/embeddings/{dump}.npz",
        summary="results/embeddings/{dump}.json",
    log:
        "results/logs/embed/{dump}.log",
    benchmark:
        "results/benchmarks/embed/{dump}.tsv"
    wildcard_constraints:
        dump=one_of(SHARDED_DUMPS),
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(EmbeddingSettings.from_config(config)),
    script:
        "../scripts/embed_gather.py"
