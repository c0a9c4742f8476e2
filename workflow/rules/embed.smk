# A dump above embedding.shard_size is embedded as several embed_shard jobs (which --cores or a
# cluster executor can run side by side); embed then gathers them into the dump's one file.


rule embed_shard:
    input:
        papers="results/parsed/{dump}.jsonl",
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
        **embedding_params(),
    script:
        "../scripts/embed_shard.py"


rule embed:
    input:
        papers="results/parsed/{dump}.jsonl",
        shards=shard_files,
    output:
        embeddings="results/embeddings/{dump}.npz",
        summary="results/embeddings/{dump}.json",
    log:
        "results/logs/embed/{dump}.log",
    benchmark:
        "results/benchmarks/embed/{dump}.tsv"
    conda:
        ENVIRONMENT
    threads: lambda wildcards: 1 if SHARDS[wildcards.dump] > 1 else config["embedding"]["threads"]
    resources:
        # the gathering of shards needs no GPU
        gpu=lambda wildcards: 0 if SHARDS[wildcards.dump] > 1 else embedding_resources().get("gpu", 0),
    params:
        **embedding_params(),
    script:
        "../scripts/embed.py"
