"""Jobs SLURM killed are named with their rule and SLURM's reason, read from the run's logs."""

from __future__ import annotations

from papertopics.runtime.slurm_failures import advice, killed_jobs


def error_block(rule: str, job: str, slurm_log) -> str:
    return (
        f"Error in rule {rule}:\n"
        f"    message: SLURM-job '{job}' failed, SLURM status is: 'FAILED'.\n"
        f"    jobid: 5\n"
        f"    log: results/logs/{rule}.log, {slurm_log} (check log file(s) for error details)\n"
        f"    external_jobid: {job}\n"
        "[Mon Nov 30 08:09:48 2026]\n"
    )


def test_memory_and_time_kills_are_named_with_the_rule_and_slurms_reason(tmp_path):
    memory_log = tmp_path / ".snakemake" / "slurm_logs" / "rule_reduce" / "24.log"
    time_log = tmp_path / ".snakemake" / "slurm_logs" / "rule_topics" / "31.log"
    failed_log = tmp_path / ".snakemake" / "slurm_logs" / "rule_parse" / "7.log"
    for log, text in (
        (
            memory_log,
            "slurmstepd-vm: error: StepId=24.batch exceeded memory limit (99168256 > 31457280), being killed\n"
            "slurmstepd-vm: error: Exceeded job memory limit\n",
        ),
        (
            time_log,
            "Building DAG of jobs...\n"
            "slurmstepd: error: *** JOB 31 ON node7 CANCELLED AT 2026-11-30T08:09:35 DUE TO TIME LIMIT ***\n",
        ),
        (failed_log, "PipelineInputError: data/raw/x.txt: the file is empty\n"),
    ):
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(text)
    run_log = (
        "Building DAG of jobs...\n"
        + error_block("reduce", "24", memory_log)
        + "Finished jobid: 10 (Rule: map)\n"
        + error_block("topics", "31", time_log)
        + error_block("parse", "7", failed_log)
        + "Error in rule cluster:\n    jobid: 3\n    log: results/logs/cluster.log\n"
    )

    killed = killed_jobs(run_log)
    assert [(job.rule, job.slurm_job, job.resource) for job in killed] == [
        ("reduce", "24", "memory"),
        ("topics", "31", "time"),
    ]
    assert killed[0].reason == (
        "StepId=24.batch exceeded memory limit (99168256 > 31457280), being killed [used 95 MiB of the 30 MiB asked for]"
    )
    assert "DUE TO TIME LIMIT" in killed[1].reason
    text = advice(killed)
    assert (
        "SLURM killed job 24 (rule reduce) for memory" in text
        and "SLURM killed job 31 (rule topics) for time" in text
    )
    assert "run the same command again to resume" in text
    # The profile is where to raise a rule's memory: the command-line form would drop every other rule's.
    assert "set-resources in profiles/slurm/config.yaml" in text and "replaces that whole list" in text


def test_a_run_without_killed_jobs_gets_no_advice(tmp_path):
    assert killed_jobs("Building DAG of jobs...\nNothing to be done.\n") == []
    assert advice([]) == ""
    missing = error_block("reduce", "24", tmp_path / "slurm_logs" / "rule_reduce" / "24.log")
    assert killed_jobs(missing) == []  # the SLURM log is gone: nothing is claimed
