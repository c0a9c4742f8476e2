"""Checks the workflow makes when it starts, before any job runs.

They turn mistakes that would otherwise surface late, or as a wall of text, into one
message: a config value of the wrong type or out of range, an input file of a type no
reader knows, an embedding model that is not on this machine, and a lock left behind by
a run that was killed.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

import yaml

from papertopics.errors import PipelineInputError

_LOCK_HOLDER = []  # keeps this process's lock file open, and so held, while it runs


def config_problems(config: dict, schema_path: str | os.PathLike) -> list[str]:
    """One line per config value the schema rejects, naming the key, the value and what fits."""
    import jsonschema

    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for error in sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path]):
        key = ".".join(str(part) for part in error.absolute_path) or "(top level)"
        if error.validator == "additionalProperties":
            message = f"{key}: {error.message}; the allowed keys are {', '.join(error.schema['properties'])}"
        elif error.validator == "oneOf":
            allowed = " or ".join(_describe(option) for option in error.schema["oneOf"])
            message = f"{key}: {error.instance!r} is not valid; it must be {allowed}"
        else:
            message = f"{key}: {error.message}"
            if error.path and "description" in _schema_at(schema, error.absolute_path):
                message += f" ({_schema_at(schema, error.absolute_path)['description'].strip()})"
        problems.append(message)
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


def check_config(config: dict, schema_path: str | os.PathLike) -> None:
    """Stop with every invalid config value named, before Snakemake's own validation."""
    problems = config_problems(config, schema_path)
    if problems:
        raise PipelineInputError("config.yaml has invalid values:\n  " + "\n  ".join(problems))


def release_stale_locks(metadata_dir: str | os.PathLike = ".snakemake") -> bool:
    """Remove Snakemake's directory locks when the run that held them is gone.

    Each run holds an OS lock on ``papertopics.lock`` for as long as its process lives; the
    kernel drops it when the process dies, even by SIGKILL. A run that gets that lock is
    therefore the only one here, and any Snakemake lock left over belongs to a killed run.
    A run that cannot get it leaves the locks alone (Snakemake then reports the live run).
    Returns whether stale locks were removed.
    """
    metadata_dir = Path(metadata_dir)
    metadata_dir.mkdir(parents=True, exist_ok=True)
    # Not a `with` block: the handle (and its lock) must outlive this call, for the whole run.
    handle = open(metadata_dir / "papertopics.lock", "a")  # noqa: SIM115
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return False
    _LOCK_HOLDER.append(handle)
    stale = list((metadata_dir / "locks").glob("*.lock"))
    for lock in stale:
        lock.unlink(missing_ok=True)
    return bool(stale)
