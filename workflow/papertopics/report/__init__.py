"""The self-contained HTML topic report.

One small module per section, named for it, each computing the section's values from the
report's data (text, numbers, plotly figures, as BERTopic's ``bertopic/plotting`` draws them) for
its template in ``templates/sections/``, which writes the markup; ``render`` escapes the values,
the page's one place of escaping; ``page`` puts the sections together.
"""

from papertopics.report.inputs import ReportFiles, ReportInputs, load_report_inputs
from papertopics.report.page import build_report

__all__ = ["ReportFiles", "ReportInputs", "build_report", "load_report_inputs"]
