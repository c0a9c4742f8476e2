rule embed:
    input:
        "results/parsed/{dump}.jsonl",
    output:
        "results/embeddings/{dump}.npz",
    params:
        model=config["embedding"]["model"],
        batch_size=config["embedding"]["batch_size"],
        max_seq_length=config["embedding"]["max_seq_length"],
    log:
        "results/logs/embed/{dump}.log",
    benchmark:
        "results/benchmarks/embed/{dump}.tsv"
    conda:
        ENVIRONMENT
    script:
        "../scripts/embed.py"
