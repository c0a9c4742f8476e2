"""The report stage, file to file: the one-file HTML report.

Each function is what one Snakemake rule runs. Its parameters are named as the rule's inputs,
outputs and params (paths first), because the rule's script passes them by name; heavy libraries
are imported inside the functions, only when the stage that needs them runs.
"""

from __future__ import annotations

import logging

from papertopics import storage

_LOG = logging.getLogger(__name__)


def report(page: str, title: str, hover_chars: int, **inputs) -> None:
    """The HTML report (``page``) from the stages' outputs (``inputs``, see ``load_report_inputs``;
    the groups stage's periods are those the map colours and filters papers by).
    """
    from papertopics.report import build_report, load_report_inputs

    html = build_report(load_report_inputs(**inputs), title=title, hover_chars=hover_chars)
    storage.write_text(page, html)
    _LOG.info("report written to %s (%.1f MB)", page, len(html.encode()) / 1e6)
