"""The periods stage, file to file: each paper's period and group, decided once for every later stage.

Its parameters are named as the rule's inputs, outputs and params (paths first), because the
rule's script passes them by name; heavy libraries are imported inside the function.
"""

from __future__ import annotations

import logging

from papertopics import storage
from papertopics.ingest.parse import input_columns
from papertopics.settings import PeriodSettings

_LOG = logging.getLogger(__name__)


def periods(papers: str, table: str, settings: str, knobs: dict) -> None:
    """Each paper's period and group (``papertopics.periods.assign``), decided once for every later stage.

    Args:
        papers: the corpus (JSON Lines).
        table: output, one row per paper: its ``id``, ``period`` and ``group``.
        settings: output, the periods' and groups' names, order and the papers left out.
        knobs: ``papertopics.settings.PeriodSettings``' fields: ``compare_by`` (``compare.by``: auto,
            dump, year, a paper field (venue), or a list of a field and one of those) and
            ``dump_order`` (the dumps in the order of ``inputs``: their order when comparing dumps).
    """
    # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
    import pandas as pd

    # papertopics.periods.assign imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.periods.assign import PIPELINE_COLUMNS, groups_record, paper_groups

    records = storage.read_jsonl(papers)
    paper_table = pd.DataFrame(
        {
            "id": [p["id"] for p in records],
            "dumps": [";".join(p["dumps"]) for p in records],
            **input_columns(records, reserved=set(PIPELINE_COLUMNS)),
        }
    )
    chosen = PeriodSettings(**knobs)
    assigned, found = paper_groups(paper_table, chosen.compare_by, chosen.dump_order)
    rows, record = groups_record(paper_table["id"].tolist(), assigned, found)
    storage.write_csv(table, rows)
    storage.write_json(settings, record)
    _LOG.info(
        "%d papers: %d %ss%s",
        len(rows),
        len(assigned.names),
        assigned.by,
        f", {len(found.names)} {found.by} groups" if found is not None and found is not assigned else "",
    )
