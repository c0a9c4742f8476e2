"""The self-contained HTML topic report.

One small module per section, each a function from the report's data to an HTML fragment
or a plotly figure (mirroring BERTopic's ``bertopic/plotting``); ``page`` puts them together.
"""

from papertopics.report.inputs import ReportFiles, ReportInputs, load_report_inputs
from papertopics.report.page import build_report

__all__ = ["ReportFiles", "ReportInputs", "build_report", "load_report_inputs"]
