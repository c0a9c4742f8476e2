# The run's last job: what users read (results/report/, results/topics/, results/metrics.json) is
# replaced only now, when every stage has succeeded (papertopics.runtime.publish). The stages write it under
# results/staged/; every output a rule declares there is published, with no change here.


rule publish:
    input:
        staged=staged_outputs,
    output:
        record="results/staged/published.json",
    log:
        "results/logs/publish.log",
    benchmark:
        "results/benchmarks/publish.tsv"
    localrule: True
    conda:
        ENVIRONMENT
    script:
        "../scripts/publish.py"


# What publishing replaces in results/ (topics, report, metrics.json), from the rules' outputs.
PUBLISHED_ENTRIES = published_entries(staged_outputs())
check_published_paths(PUBLISHED_ENTRIES)
# A published entry deleted by hand is published again (only in the run's own process).
if workflow.is_main_process:
    for note in publish_again_if_missing(PUBLISHED_ENTRIES, rules.publish.output.record):
        logger.warning(note)
