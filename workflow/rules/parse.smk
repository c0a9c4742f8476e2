# A checkpoint: the stages before reception read the dump's text part (the papers without their
# decisions, ratings and citations), in files named by its digest (text_part below). Once a changed
# dump is parsed, Snakemake looks again: a dump edited only in how its papers were received gives
# the same text part, so it reruns the reception stage and the report, nothing before.
checkpoint parse:
    input:
        dump=lambda wildcards: DUMPS[wildcards.dump],
    output:
        papers="results/parsed/{dump}.jsonl",
        summary="results/parsed/{dump}.summary.json",
        # Every duplicate, rejection and boilerplate cut (the summary lists the first few).
        details="results/parsed/{dump}.details.jsonl.gz",
    log:
        "results/logs/parse/{dump}.log",
    benchmark:
        "results/benchmarks/parse/{dump}.tsv"
    conda:
        ENVIRONMENT
    params:
        knobs=knobs(ParseSettings.from_config(config)),
    script:
        "../scripts/parse.py"


# The parsed dump's text part. Its inputs are ancient: a reparsed dump whose text part is unchanged
# has it already, under the same digest; a changed text part is a new file, made here.
rule text_part:
    input:
        papers=ancient("results/parsed/{dump}.jsonl"),
        summary=ancient("results/parsed/{dump}.summary.json"),
    output:
        text_papers="results/parsed/text/{dump}/{digest}.jsonl",
        text_summary_file="results/parsed/text/{dump}/{digest}.summary.json",
    log:
        "results/logs/text_part/{dump}/{digest}.log",
    benchmark:
        "results/benchmarks/text_part/{dump}/{digest}.tsv"
    wildcard_constraints:
        digest="[0-9a-f]{16}",
    conda:
        ENVIRONMENT
    script:
        "../scripts/text_part.py"


rule corpus:
    input:
        parsed=text_parts(sorted(DUMPS)),
        summaries=text_parts(sorted(DUMPS), part="summary"),
    output:
        papers="results/corpus/papers.jsonl",
        summary="results/corpus/summary.json",
    log:
        "results/logs/corpus.log",
    benchmark:
        "results/benchmarks/corpus.tsv"
    conda:
        ENVIRONMENT
    script:
        "../scripts/corpus.py"
