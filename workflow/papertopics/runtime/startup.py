"""Checks the workflow makes when it starts, before any job runs.

They turn mistakes that would otherwise surface late, or as a wall of text, into one
message: a config file that is not YAML, a config value of the wrong type or out of range
(named with where it was given), an input file of a type no reader knows, an embedding
model that is not on this machine, a results folder this user cannot write, and another
run in progress. And they settle what a killed run left behind: its still-running jobs,
a publication it was interrupted in, and its locks.
"""

from __future__ import annotations

import argparse
import fcntl
import functools
import json
import os
import pwd
import socket
import stat
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NoReturn

import yaml

from papertopics.errors import PipelineInputError
from papertopics.runtime.jobs import METADATA, orphaned_jobs, stop_job
from papertopics.runtime.publish import PUBLISHED, finish_interrupted

_LOCK_HOLDER = []  # keeps this process's lock file open, and so held, while it runs
CONFIG_FILE = "config.yaml"
# Snakemake's options that only show or check the workflow; every other invocation writes.
_INSPECTING = (
    "dryrun",
    "lint",
    "dag",
    "rulegraph",
    "filegraph",
    "d3dag",
    "summary",
    "detailed_summary",
    "list_rules",
    "list_target_rules",
    "list_changes",
    "list_input_changes",
    "list_params_changes",
    "list_code_changes",
    "list_untracked",
    "report",
    "print_compilation",
)


def check_yaml(path: str | os.PathLike) -> None:
    """Stop with the file, line and column and what the parser expected when ``path`` is not a
    YAML mapping (Snakemake's own message names the Snakefile and suggests tabs in every case).
    """
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{path}, line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        context = ""
        if error.context:
            context = f" ({error.context}"
            if error.context_mark and error.context_mark != mark:
                context += f" that starts at line {error.context_mark.line + 1}, column {error.context_mark.column + 1}"
            context += ")"
        hint = "; YAML indents with spaces, never tabs" if "\\t" in str(error.problem) else ""
        raise PipelineInputError(f"{where}: {error.problem}{context}{hint}.") from None
    except yaml.YAMLError as error:
        raise PipelineInputError(f"{path} is not valid YAML: {error}") from None
    if not isinstance(data, dict):
        held = {list: "a list", str: "a text", int: "a number", float: "a number", bool: "true or false"}
        raise PipelineInputError(
            f"{path} must hold the settings as keys at its top level (inputs:, embedding:, ...); "
            f"it holds {held.get(type(data), 'nothing')}."
        )


def config_origin(
    command_line: Mapping, config_files: Sequence[str | os.PathLike]
) -> Callable[[Sequence[str]], str]:
    """Where a config key's value was given, as words to follow a message about it: the
    command line (``--config``), a ``--configfile`` file, or config.yaml.
    """

    @functools.cache
    def given_in(path: str) -> dict:
        try:
            return yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError):
            return {}

    def origin(key: Sequence[str]) -> str:
        if _holds(command_line, key):
            return "given with --config on the command line"
        for path in reversed([str(p) for p in config_files]):
            if _holds(given_in(path), key):
                return f"in {os.path.relpath(path)} (given with --configfile)"
        return f"in {CONFIG_FILE}"

    return origin


def _holds(settings, key: Sequence[str]) -> bool:
    """Whether ``settings`` sets ``key`` (a path of names), or a section above it wholesale."""
    for part in key:
        if not isinstance(settings, Mapping) or part not in settings:
            return False
        settings = settings[part]
    return True


def config_problems(config: dict, schema_path: str | os.PathLike) -> list[str]:
    """One line per config value the schema rejects, naming the key, the value and what fits."""
    return [message for _, message in _config_problems(config, schema_path)]


def _config_problems(config: dict, schema_path: str | os.PathLike) -> list[tuple[list[str], str]]:
    """(key as a path of names, message) for each config value the schema rejects."""
    # The config's libraries load only where a file is checked.
    import jsonschema

    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for error in sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path]):
        path = [str(part) for part in error.absolute_path]
        key = ".".join(path) or "(top level)"
        if error.validator == "additionalProperties":
            message = f"{key}: {error.message}; the allowed keys are {', '.join(error.schema['properties'])}"
        elif error.validator == "oneOf":
            allowed = " or ".join(_describe(option) for option in error.schema["oneOf"])
            message = f"{key}: {error.instance!r} is not valid; it must be {allowed}"
        else:
            message = f"{key}: {error.message}"
            if error.path and "description" in _schema_at(schema, error.absolute_path):
                message += f" ({_schema_at(schema, error.absolute_path)['description'].strip()})"
        problems.append((path, message))
    return problems


def _describe(option: dict) -> str:
    """'"auto"', 'an integer from 2 to 200', 'an integer of at least 2'."""
    if "const" in option:
        return json.dumps(option["const"])
    kind = {"integer": "an integer", "number": "a number", "string": "a text", "array": "a list"}.get(
        option.get("type"), str(option.get("type"))
    )
    low, high = option.get("minimum"), option.get("maximum")
    if low is not None and high is not None:
        return f"{kind} from {low} to {high}"
    if low is not None:
        return f"{kind} of at least {low}"
    return kind


def _schema_at(schema: dict, path) -> dict:
    node = schema
    for part in path:
        node = node.get("items", {}) if isinstance(part, int) else node.get("properties", {}).get(part, {})
    return node


# Keys that moved, each with its place now: a config that gives one at its former place still works
# (the value read at its new place, with a warning), until a release notes its removal.
MOVED_KEYS = {("hdbscan", "consensus_runs"): ("umap", "consensus_runs")}


def move_deprecated_keys(config: dict) -> list[str]:
    """Move the ``MOVED_KEYS`` that ``config`` gives at their former place to their place now (the
    value given there wins: config.yaml gives the key at its new place); a warning a key moved.
    """
    warnings = []
    for (old_section, old_key), (section, key) in MOVED_KEYS.items():
        old = config.get(old_section)
        if not isinstance(old, Mapping) or old_key not in old:
            continue
        config.setdefault(section, {})[key] = old.pop(old_key)
        warnings.append(
            f"{old_section}.{old_key} is deprecated and read as {section}.{key}; "
            f"move it there in your configuration."
        )
    return warnings


def check_config(
    config: dict, schema_path: str | os.PathLike, origin: Callable[[Sequence[str]], str] | None = None
) -> None:
    """Stop with every invalid config value named, before Snakemake's own validation; ``origin``
    (see ``config_origin``) says where each was given, when not all in config.yaml.
    """
    problems = _config_problems(config, schema_path)
    if not problems:
        return
    where = [origin(key) if origin else f"in {CONFIG_FILE}" for key, _ in problems]
    if set(where) == {f"in {CONFIG_FILE}"}:
        lines = [message for _, message in problems]
        heading = f"{CONFIG_FILE} has invalid values"
    else:
        lines = [f"{message} ({place})" for (_, message), place in zip(problems, where, strict=True)]
        heading = "the configuration has invalid values"
    raise PipelineInputError(heading + ":\n  " + "\n  ".join(lines))


def prepare_run(
    metadata_dir: str | os.PathLike = METADATA,
    results: str | os.PathLike = PUBLISHED,
    argv: Sequence[str] | None = None,
) -> list[str]:
    """Make this the only run here, and settle what a killed run left behind, before Snakemake
    plans anything. Returns what the user should hear; raises PipelineInputError when this
    invocation must not go on (``results`` or Snakemake's folder is not writable by this user,
    another run is in progress).

    ``argv``: Snakemake's command line (``sys.argv[1:]`` by default); a dry run or another
    invocation that only shows the workflow may go on beside a live run and stops nothing.
    """
    argv = sys.argv[1:] if argv is None else argv
    problem = unwritable(results) or unwritable(metadata_dir)
    if problem:
        if _only_inspects(argv):
            return []  # what a user who may not write is shown needs no lock, and settles nothing
        raise PipelineInputError(problem)
    holder = _hold_workflow_lock(Path(metadata_dir))
    if holder is not None:
        if _only_inspects(argv):
            return [f"{_run_in_progress(holder)}; this shows the workflow as the files are now."]
        raise PipelineInputError(
            f"{_run_in_progress(holder)}. Wait for it to end, or stop it"
            + (f" (kill {holder['pid']})" if holder.get("pid") else "")
            + " and run again. Do not use --unlock: it would let two runs write the same files."
        )
    notes = []
    orphans = orphaned_jobs(metadata_dir)
    if orphans and _only_inspects(argv):
        notes += [f"{job} of an earlier, killed run is still running; a run will stop it." for job in orphans]
        return notes
    for job in orphans:
        stop_job(job)
        notes.append(
            f"Stopped {job} of an earlier run that was killed: it would write the files this run writes."
        )
    finished = finish_interrupted(results)
    if finished:
        notes.append(f"Finished publishing {', '.join(finished)}, which a killed run had begun.")
    if _release_stale_locks(Path(metadata_dir)):
        notes.append("Removed the locks of an earlier run that was killed; resuming its work.")
    return notes


def publish_again_if_missing(
    entries: Sequence[str], record: str | os.PathLike, results: str | os.PathLike = PUBLISHED, argv=None
) -> list[str]:
    """When a published entry (``results/report``, say) was deleted by hand, remove the publish
    ``record``, so that this run publishes again (Snakemake sees no other reason to).
    """
    missing = [os.path.join(results, entry) for entry in entries if not os.path.lexists(Path(results, entry))]
    if not missing or not os.path.exists(record) or _only_inspects(sys.argv[1:] if argv is None else argv):
        return []
    os.unlink(record)
    return [f"{', '.join(missing)} missing: published again."]


def _hold_workflow_lock(metadata_dir: Path) -> dict | None:
    """Hold this folder's run lock for the rest of this process's life, with our pid recorded in
    it; returns None once held, else what the live run that holds it recorded ({} if nothing yet).

    The kernel drops the lock when the process dies, even by SIGKILL, so a run that gets it is
    the only live run here.
    """
    metadata_dir.mkdir(parents=True, exist_ok=True)
    path = metadata_dir / "papertopics.lock"
    # Not a `with` block: the handle (and its lock) must outlive this call, for the whole run.
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        text = handle.read()
        handle.close()
        try:
            return json.loads(text)
        except ValueError:
            return {}
    handle.seek(0)
    handle.truncate()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": started}))
    handle.flush()
    _LOCK_HOLDER.append(handle)
    return None


def _run_in_progress(holder: dict) -> str:
    if not holder.get("pid"):
        return "A run is in progress in this folder (its pid is not known yet)"
    return f"A run is in progress in this folder (pid {holder['pid']}, started {holder.get('started', '?')})"


def _release_stale_locks(metadata_dir: Path) -> bool:
    """Remove Snakemake's directory locks, which (this run holding the run lock) a killed run left."""
    stale = list((metadata_dir / "locks").glob("*.lock"))
    for lock in stale:
        lock.unlink(missing_ok=True)
    return bool(stale)


def _only_inspects(argv: Sequence[str]) -> bool:
    """Whether Snakemake's command line only shows or checks the workflow (a dry run, --lint, ...)."""
    return _inspecting(tuple(argv))


@functools.cache
def _inspecting(argv: tuple[str, ...]) -> bool:

    # Snakemake's own modules load only where its command line is read.
    from snakemake.cli import get_argument_parser

    parser = get_argument_parser()
    parser.exit_on_error = False
    try:
        options, _ = parser.parse_known_args(list(argv))
    except (argparse.ArgumentError, SystemExit):
        return False  # not a command line we can read: treated as one that writes
    return any(getattr(options, name, None) for name in _INSPECTING)


def unwritable(folder: str | os.PathLike = PUBLISHED, depth: int = 3) -> str | None:
    """Why this user cannot write in ``folder`` (a folder or file in it, up to ``depth`` levels
    down, that it may not change, e.g. made by another user), or None.
    """
    root = Path(folder)
    if not root.exists():
        root = root.absolute().parent
        return None if os.access(root, os.W_OK | os.X_OK) else _not_writable(root, root)
    for folder, subfolders, files in os.walk(root):
        level = len(Path(folder).relative_to(root).parts)
        if not os.access(folder, os.W_OK | os.X_OK):
            return _not_writable(Path(folder), root)
        for name in files:
            if not os.access(os.path.join(folder, name), os.W_OK):
                return _not_writable(Path(folder, name), root)
        if level >= depth:
            subfolders.clear()
    return None


def _not_writable(path: Path, root: Path) -> str:
    me, status = os.geteuid(), path.stat()
    if os.statvfs(path).f_flag & os.ST_RDONLY:
        return f"{root}/ is not writable: {path} is on a read-only file system."
    if status.st_uid == me:
        return f"{root}/ is not writable: {path} ({stat.filemode(status.st_mode)}) is yours but not writable; chmod -R u+w {root}/"
    return (
        f"{root}/ is not writable by {_user(me)}: {path} belongs to {_user(status.st_uid)} "
        f"({stat.filemode(status.st_mode)}). Run as {_name(status.st_uid)}, or, as root, give it to "
        f"{_name(me)}: chown -R {_name(me)} {root}/"
    )


def _name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _user(uid: int) -> str:
    return f"user {_name(uid)} (uid {uid})"


def exit_with(error: PipelineInputError) -> NoReturn:
    """End Snakemake's process with the error's message as its first line: no traceback, and no
    Snakefile line that reads as if the workflow were at fault.
    """
    print(f"error: {error}", file=sys.stderr)
    sys.exit(1)


def main(paths: Sequence[str]) -> int:
    """Check config files' YAML (``make run CONFIGFILE=...``: Snakemake reads a ``--configfile``
    before the workflow starts, and its message names neither the file nor the line).
    """
    for path in paths:
        try:
            check_yaml(path)
        except (PipelineInputError, OSError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
