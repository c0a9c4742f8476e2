"""A single-node SLURM cluster on this machine, for the tests that submit the workflow to SLURM.

Everything it starts (munged, slurmctld, slurmd) runs from a fresh folder with its own sockets,
ports and state, and is stopped by the process ids it started. Its config is also linked from
SLURM's default place, /etc/slurm/slurm.conf, while it runs: the executor plugin's job step
drops SLURM_CONF from the environment of the ``srun`` it starts inside each job, so srun finds
the config only there (as on a real cluster). A machine with a SLURM config of its own is left
alone (``start_cluster`` refuses). Needs root (slurmd starts jobs as their user) and Debian's
``slurm-wlm`` and ``munge`` packages (``make slurm`` installs them).
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo")
# A job's record stays visible to squeue this long after it ends: the executor plugin reads
# job states from squeue (there is no accounting database), and the test checks them after the run.
MIN_JOB_AGE_SECONDS = 3600
SYSTEM_CONF = Path("/etc/slurm/slurm.conf")
# The first line of the config this module writes: a leftover of an earlier killed test run is replaced.
MARK = "# papertopics test cluster"


def missing_tools() -> list[str]:
    return [tool for tool in DAEMONS if shutil.which(tool) is None]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def slurm_conf(folder: Path, host: str, cpus: int, memory_mb: int, munge_socket: Path) -> str:
    controller_port, node_port = free_port(), free_port()
    return "\n".join(
        [
            MARK,
            "ClusterName=papertopics-test",
            f"SlurmctldHost={host}",
            f"SlurmctldPort={controller_port}",
            f"SlurmdPort={node_port}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={munge_socket}",
            f"StateSaveLocation={folder / 'state'}",
            f"SlurmdSpoolDir={folder / 'spool'}",
            f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
            f"SlurmdPidFile={folder / 'slurmd.pid'}",
            f"SlurmctldLogFile={folder / 'slurmctld.log'}",
            f"SlurmdLogFile={folder / 'slurmd.log'}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            # Memory is enforced by polling each step's processes: a job over its --mem is killed
            # (state OUT_OF_MEMORY), as a cluster's cgroups would.
            "JobAcctGatherType=jobacct_gather/linux",
            "JobAcctGatherFrequency=task=1",
            "JobAcctGatherParams=OverMemoryKill",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            f"MinJobAge={MIN_JOB_AGE_SECONDS}",
            "ReturnToService=2",
            "MpiDefault=none",
            f"NodeName={host} CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN",
            f"PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP",
            "",
        ]
    )


@dataclass
class SlurmCluster:
    folder: Path
    conf: Path
    processes: dict[str, int] = field(default_factory=dict)  # daemon -> pid we started

    @property
    def env(self) -> dict[str, str]:
        """The environment in which sbatch, squeue and the executor plugin talk to this cluster."""
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def command(self, *args: str) -> str:
        return subprocess.run(
            args, env=self.env, capture_output=True, text=True, check=True, timeout=60
        ).stdout

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        """Stop the daemons this cluster started (by process id), newest first; unlink its system config."""
        for pid in reversed(list(self.processes.values())):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and _alive(pid):
                time.sleep(0.2)
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.processes.clear()
        if SYSTEM_CONF.is_symlink() and SYSTEM_CONF.resolve() == self.conf.resolve():
            SYSTEM_CONF.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a stopped daemon of ours may linger as a zombie until reaped; it is gone all the same
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for_pid_file(path: Path, what: str, log: Path, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid = int(path.read_text().split()[0])
            if _alive(pid):
                return pid
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.2)
    tail = log.read_text(errors="replace")[-3000:] if log.exists() else "(no log)"
    raise RuntimeError(f"{what} did not start within {timeout:.0f} s; its log ends:\n{tail}")


def start_cluster(cpus: int = 2, memory_mb: int = 8000) -> SlurmCluster:
    """Start munged, slurmctld and slurmd in a new folder; wait until the node takes jobs."""
    if os.geteuid() != 0:
        raise RuntimeError("the single-node SLURM cluster needs root (slurmd starts jobs as their user)")
    if SYSTEM_CONF.exists() and not SYSTEM_CONF.read_text(errors="replace").startswith(MARK):
        raise RuntimeError(
            f"{SYSTEM_CONF} exists: this machine has a SLURM of its own, which the test leaves alone"
        )
    folder = Path(tempfile.mkdtemp(prefix="papertopics-slurm-"))
    folder.chmod(0o755)  # munged runs as the munge user and must reach its folder
    for sub in ("state", "spool"):
        (folder / sub).mkdir()
    munge_user = pwd.getpwnam("munge")
    munge = folder / "munge"
    munge.mkdir(mode=0o755)
    os.chown(munge, munge_user.pw_uid, munge_user.pw_gid)
    munge_socket = munge / "munge.socket"
    conf = folder / "slurm.conf"
    host = socket.gethostname().split(".")[0]
    conf.write_text(slurm_conf(folder, host, cpus, memory_mb, munge_socket))
    cluster = SlurmCluster(folder, conf)
    SYSTEM_CONF.parent.mkdir(parents=True, exist_ok=True)
    SYSTEM_CONF.unlink(missing_ok=True)
    SYSTEM_CONF.symlink_to(conf)
    try:
        subprocess.run(
            [
                "runuser",
                "-u",
                "munge",
                "--",
                "munged",
                f"--socket={munge_socket}",
                f"--pid-file={munge / 'munged.pid'}",
                f"--log-file={munge / 'munged.log'}",
                f"--seed-file={munge / 'munged.seed'}",
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=30,
        )
        cluster.processes["munged"] = _wait_for_pid_file(munge / "munged.pid", "munged", munge / "munged.log")
        subprocess.run(["slurmctld", "-f", str(conf), "-i"], env=cluster.env, check=True, timeout=30)
        cluster.processes["slurmctld"] = _wait_for_pid_file(
            folder / "slurmctld.pid", "slurmctld", folder / "slurmctld.log"
        )
        subprocess.run(["slurmd", "-f", str(conf), "-N", host], env=cluster.env, check=True, timeout=30)
        cluster.processes["slurmd"] = _wait_for_pid_file(
            folder / "slurmd.pid", "slurmd", folder / "slurmd.log"
        )
        deadline = time.monotonic() + 60
        while "idle" not in cluster.command("sinfo", "--noheader", "--format=%T"):
            if time.monotonic() > deadline:
                raise RuntimeError(
                    "the SLURM node did not become idle within 60 s:\n"
                    + cluster.command("sinfo", "-N", "-l")
                    + "\nslurmctld.log:\n"
                    + cluster.log("slurmctld")[-2000:]
                    + "\nslurmd.log:\n"
                    + cluster.log("slurmd")[-2000:]
                )
            time.sleep(0.5)
    except BaseException:
        cluster.stop()
        raise
    return cluster
