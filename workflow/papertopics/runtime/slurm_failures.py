"""Say which jobs SLURM killed, and why, after a failed run with the slurm executor.

The executor plugin reports a failed job's SLURM state (FAILED, OUT_OF_MEMORY, TIMEOUT) but
not SLURM's own words, which slurmstepd writes into the job's SLURM log (kept for failed jobs):
"Exceeded job memory limit", "... CANCELLED AT ... DUE TO TIME LIMIT", an oom-kill event.
This reads Snakemake's log of the run for each failed job's rule, SLURM job id and SLURM log,
and those logs for that reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_ERROR_BLOCK = re.compile(r"^Error in rule (\w+):\n((?:    .*\n?)*)", re.MULTILINE)
_JOB_ID = re.compile(r"^\s*external_jobid: (\S+)", re.MULTILINE)
_SLURM_LOG = re.compile(r"(\S*slurm_logs/\S+?\.log)")
_REASONS = (  # slurmstepd's words -> what ran out
    (re.compile(r"exceeded memory limit \((\d+) > (\d+)\)"), "memory"),
    (re.compile(r"Exceeded (?:job|step) memory limit"), "memory"),
    (re.compile(r"oom[-_ ]kill", re.IGNORECASE), "memory"),
    (re.compile(r"DUE TO TIME LIMIT"), "time"),
)


@dataclass
class KilledJob:
    """A job that SLURM ended for exceeding its memory or time."""

    rule: str
    slurm_job: str
    resource: str  # "memory" or "time"
    reason: str  # SLURM's own line
    slurm_log: str

    def describe(self) -> str:
        """One line for the user: the rule, SLURM's job id and reason, and its log."""
        return (
            f"SLURM killed job {self.slurm_job} (rule {self.rule}) for {self.resource}: {self.reason} "
            f"(SLURM log: {self.slurm_log})"
        )


def killed_jobs(run_log: str) -> list[KilledJob]:
    """The jobs of a run (Snakemake's log text) that SLURM killed for memory or time."""
    killed = []
    for rule, block in _ERROR_BLOCK.findall(run_log):
        job = _JOB_ID.search(block)
        log = _SLURM_LOG.search(block)
        if not job or not log:
            continue  # not a SLURM job, or one that failed by itself (its rule's log says why)
        try:
            text = Path(log.group(1)).read_text(errors="replace")
        except OSError:
            continue
        for pattern, resource in _REASONS:
            found = pattern.search(text)
            if found:
                line = text[text.rfind("\n", 0, found.start()) + 1 :].split("\n", 1)[0]
                reason = line.split("error: ", 1)[-1].strip()
                if found.groups():  # bytes used and allowed
                    used, allowed = (int(value) / 2**20 for value in found.groups())
                    reason += f" [used {used:.0f} MiB of the {allowed:.0f} MiB asked for]"
                killed.append(KilledJob(rule, job.group(1), resource, reason, log.group(1)))
                break
    return killed


def advice(jobs: list[KilledJob]) -> str:
    """A few lines for the end of a failed run: which jobs were killed, and what to do."""
    if not jobs:
        return ""
    lines = [job.describe() for job in jobs]
    lines.append(
        "Finished jobs are kept: run the same command again to resume. The SLURM profile already retried "
        "the job with more memory and time if its `retries` allowed; if it is killed again, raise that "
        "rule's mem_mb or runtime under set-resources in profiles/slurm/config.yaml (a --set-resources "
        "on the command line replaces that whole list, leaving every other rule the defaults)."
    )
    return "\n".join(lines)
