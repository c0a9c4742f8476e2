"""The report stage, file to file: the one-file HTML report.

Each function is what one Snakemake rule runs. Its parameters are named as the rule's inputs,
outputs and params (paths first), because the rule's script passes them by name; heavy libraries
are imported inside the functions, only when the stage that needs them runs.
"""

from __future__ import annotations

import logging

from papertopics import storage
from papertopics.settings import ReportSettings

_LOG = logging.getLogger(__name__)


def report(page: str, knobs: dict, **inputs) -> None:
    """The HTML report (``page``) from the stages' outputs (``inputs``, see ``ReportFiles``;
    the periods stage's periods are those the map colours and filters papers by); ``knobs``:
    ``papertopics.settings.ReportSettings``'s fields.
    """
    # papertopics.report imports heavy libraries at its top: only the report job loads them.
    from papertopics.report import ReportFiles, build_report, load_report_inputs

    settings = ReportSettings(**knobs)
    html = build_report(
        load_report_inputs(ReportFiles(**inputs)), title=settings.title, hover_chars=settings.hover_chars
    )
    storage.write_text(page, html)
    _LOG.info("report written to %s (%.1f MB)", page, len(html.encode()) / 1e6)
