"""A chair's corrections to the topics, kept in a file and applied anew on every run.

The file (``topics.curation``, e.g. ``curation.yaml`` beside ``config.yaml``) names topics by their
stable id (``papertopics.topics.lineage``), so a correction follows its topic from run to run::

    rename: {25: "Model compression"}   # a label to show instead of the one made from the papers
    merge: [[7, 2]]                      # topics shown as one, under the first id
    hide: [31]                           # not a topic: its papers are counted as unassigned
    note: {25: "Pruning, quantisation and distillation"}   # shown on the topic's card

It is applied after the topics are matched to the previous run's, so history keeps the topics as
found; an id the file names that this run does not have (merged away, gone) is reported, never an
error. The file is checked against ``workflow/schemas/curation.schema.yaml``; a malformed entry
stops the run with the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from papertopics.errors import PipelineInputError
from papertopics.mapping.cluster import OUTLIER

SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "curation.schema.yaml"


@dataclass(frozen=True)
class Curation:
    """The corrections of a curation file (none when there is no file)."""

    rename: dict[int, str] = field(default_factory=dict)
    merge: tuple[tuple[int, ...], ...] = ()
    hide: frozenset[int] = frozenset()
    note: dict[int, str] = field(default_factory=dict)
    source: str | None = None

    def named_ids(self) -> list[tuple[int, str]]:
        """Every id the file names, with what it asks for it."""
        named = [(t, "rename") for t in self.rename] + [(t, "note") for t in self.note]
        named += [(t, "merge") for group in self.merge for t in group] + [(t, "hide") for t in self.hide]
        return sorted(set(named))


def _line_of(node, path: list) -> int:
    """The line (1-based) of the YAML node at ``path`` (mapping keys, sequence indices), or of the
    deepest node on the way that exists.
    """
    for step in path:
        if node.id == "mapping":
            values = {key.value: value for key, value in node.value}
            key = str(step)
            if key not in values:
                break
            node = values[key]
        elif node.id == "sequence" and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
        else:
            break
    return node.start_mark.line + 1


def load_curation(path: str | Path | None) -> Curation:
    """The curation file at ``path`` (None: no curation), checked against the schema."""
    # The config's libraries load only where a file is checked.
    import jsonschema
    import yaml

    if not path:
        return Curation()
    path = Path(path)
    if not path.is_file():
        raise PipelineInputError(f"topics.curation: {path} is not a file")
    text = path.read_text(encoding="utf-8-sig")
    try:
        document = yaml.safe_load(text) or {}
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise PipelineInputError(
            f"{path}{where}: not valid YAML ({getattr(error, 'problem', error)})"
        ) from None
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(
        jsonschema.Draft7Validator(schema).iter_errors(_keys_as_text(document)), key=lambda e: list(e.path)
    )
    if errors:
        error = errors[0]
        where = list(error.absolute_path)
        if error.validator == "additionalProperties":  # the line of the first key not allowed
            allowed = error.schema.get("properties", {})
            where += [next(key for key in error.instance if key not in allowed)]
        line = _line_of(root, where) if root is not None else 1
        entry = "/".join(str(step) for step in error.absolute_path) or "the file"
        raise PipelineInputError(f"{path} line {line}: {entry}: {error.message}")
    merge = tuple(tuple(int(t) for t in group) for group in document.get("merge", []))
    curation = Curation(
        rename={int(t): str(label).strip() for t, label in (document.get("rename") or {}).items()},
        merge=merge,
        hide=frozenset(int(t) for t in document.get("hide", [])),
        note={int(t): str(text).strip() for t, text in (document.get("note") or {}).items()},
        source=str(path),
    )
    _check_consistent(curation, path)
    return curation


def _keys_as_text(document):
    """The document with mapping keys as text, as JSON Schema reads them (YAML's 25: is a number)."""
    if isinstance(document, dict):
        return {str(key) if isinstance(key, int) else key: _keys_as_text(v) for key, v in document.items()}
    if isinstance(document, list):
        return [_keys_as_text(v) for v in document]
    return document


def _check_consistent(curation: Curation, path: Path) -> None:
    merged = [t for group in curation.merge for t in group]
    twice = sorted({t for t in merged if merged.count(t) > 1})
    if twice:
        raise PipelineInputError(
            f"{path}: merge: topic {twice[0]} is in more than one merge (or twice in one)"
        )
    for topic in sorted(curation.hide):
        if topic in merged:
            raise PipelineInputError(f"{path}: topic {topic} is both hidden and merged; keep one")
    away = {t for group in curation.merge for t in group[1:]}
    for topic in sorted(set(curation.rename) & away):
        raise PipelineInputError(
            f"{path}: rename: topic {topic} is merged into another (the first id of its merge); rename that one"
        )


@dataclass
class Curated:
    """Each paper's topic once curation is applied, and what was done."""

    topics: np.ndarray
    merged: np.ndarray  # each paper's topic with merges applied, hidden topics still there
    merged_into: dict[int, int]  # merged-away id → the id shown
    hidden: dict[int, int]  # hidden id → its papers
    missing: list[dict]  # ids the file names that this run does not have: id, action, why


def apply_curation(curation: Curation, topics: np.ndarray, why_missing: dict[int, str]) -> Curated:
    """Merge and hide topics (by stable id) in ``topics``, each paper's stable id; an id that is not
    there is listed in ``missing``, with ``why_missing`` (id → what became of it) where known.
    """
    topics = np.asarray(topics).copy()
    present = set(topics.tolist()) - {OUTLIER}
    missing = [
        {"id": t, "action": action, "why": why_missing.get(t, "not a topic of this run")}
        for t, action in curation.named_ids()
        if t not in present
    ]
    merged_into = {}
    for group in curation.merge:
        here = [t for t in group if t in present]
        for topic in here[1:]:
            topics[topics == topic] = here[0]
            merged_into[topic] = here[0]
    merged = topics.copy()
    hidden = {}
    for topic in sorted(curation.hide & present):
        hidden[topic] = int((topics == topic).sum())
        topics[topics == topic] = OUTLIER
    return Curated(topics, merged, merged_into, hidden, missing)


def missing_notice(curation: Curation, missing: list[dict]) -> list[str]:
    """One line per curated id this run does not have, for the log and the report's overview."""
    return [
        f"{curation.source}: topic {m['id']} ({m['action']}) no longer exists: {m['why']}; "
        "its entry is not applied"
        for m in missing
    ]


def curation_summary(curation: Curation, curated: Curated, from_papers: dict[int, str]) -> dict | None:
    """What the curation file did this run, for ``topic_details.json`` and the report."""
    if curation.source is None:
        return None
    return {
        "file": curation.source,
        "renamed": sorted(t for t in curation.rename if t not in {m["id"] for m in curated.missing}),
        "merged": [
            {"into": into, "from": sorted(t for t, target in curated.merged_into.items() if target == into)}
            for into in sorted(set(curated.merged_into.values()))
        ],
        "hidden": [
            {"id": t, "papers": papers, "label": from_papers[t]} for t, papers in curated.hidden.items()
        ],
        "missing": curated.missing,
        "notices": missing_notice(curation, curated.missing),
    }
