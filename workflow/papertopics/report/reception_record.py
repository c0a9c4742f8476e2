"""The reception stage's record as the report reads it, before any section is drawn: which rows
the page may show, and what a copy without decisions and ratings (``reception.in_report: false``)
leaves out of the papers table and the downloads. Apart from the section's module, which draws
with the topic table's helpers, so that loading the report's inputs needs no section.
"""

from __future__ import annotations

import io

# The measures a copy meant to be shared beyond a committee leaves out (citations stay).
CONFIDENTIAL = ("acceptance", "outcome", "rating")


def shown_rows(record: dict | None) -> list[dict]:
    """The record's rows the page may show: without decisions and ratings where they are left out."""
    if not record or not record.get("available"):
        return []
    rows = record["topics"]
    if record.get("in_report", True):
        return rows
    return [row for row in rows if row["measure"] not in CONFIDENTIAL]


def left_out_columns(record: dict | None) -> list[str]:
    """The papers table's columns a copy without decisions and ratings leaves out."""
    if not record or record.get("in_report", True):
        return []
    return [record["fields"]["decision"], record["fields"]["ratings"]]


def reception_files(record: dict | None, table: str | None, years: str | None) -> dict[str, str]:
    """The reception tables as downloads, without decisions and ratings where they are left out."""
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    if not record or not record.get("available") or not table:
        return {}
    files = {"reception.csv": pd.read_csv(table, keep_default_na=False)}
    if years:
        files["reception_years.csv"] = pd.read_csv(years, keep_default_na=False)
    texts = {}
    for name, frame in files.items():
        if not record.get("in_report", True):
            frame = frame[~frame["measure"].isin(CONFIDENTIAL)]
        if len(frame):
            buffer = io.StringIO()
            frame.to_csv(buffer, index=False)
            texts[name] = buffer.getvalue()
    return texts
