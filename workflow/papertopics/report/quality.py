"""Quality figures of the topics, where an evaluation stage has written them (metrics.json).

The metrics file's layout belongs to that stage; this section shows any nesting of named
values, so a new figure there needs no change here.
"""

from __future__ import annotations

from papertopics.report.embedding import definition_list


def _formatted(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        if all(not isinstance(item, (dict, list)) for item in value):
            return ", ".join(_formatted(item) for item in value)
        return f"({len(value)} entries)"
    return str(value)


def flatten_metrics(metrics: dict, prefix: str = "") -> dict[str, str]:
    """Nested metrics as dotted names and display strings, in the file's order."""
    flat = {}
    for name, value in metrics.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict):
            flat.update(flatten_metrics(value, f"{key}."))
        else:
            flat[key] = _formatted(value)
    return flat


def quality_fragment(metrics: dict | None) -> str:
    """A "Quality" block for the overview, or nothing when there are no metrics."""
    if not metrics:
        return ""
    return "<h3>Quality</h3>" + definition_list(flatten_metrics(metrics))
