"""The comparison's records as JSON and as the tables it writes (``trends.csv``, ``bursts.csv``)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def json_value(value):
    """A value as JSON wants it: numpy scalars to Python, floats rounded, NaN to None."""
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else round(float(value), 6)
    return value


def json_records(frame: pd.DataFrame) -> list[dict]:
    """Rows as JSON-ready dicts (see ``json_value``)."""
    return [{key: json_value(value) for key, value in row.items()} for row in frame.to_dict(orient="records")]


_TREND_COLUMNS = [
    "topic",
    "label",
    "direction",
    "grade",
    "slope_pp",
    "slope_low_pp",
    "slope_high_pp",
    "p_value",
    "q_value",
    "move_pp",
    "move_low_pp",
    "move_high_pp",
    "finding",
    "shape",
    "turn_start",
    "turn_end",
    "shape_p",
    "shape_q",
    "shape_move_pp",
    "shape_move_low_pp",
    "shape_move_high_pp",
    "tested_on",
]


def trend_table(record: dict) -> pd.DataFrame:
    """``trends.csv``: one row per topic, strongest evidence first, the count its test ran on
    (``tested_on``), and in each tested period its clustered papers and their share
    (``clustered papers <period>``, ``clustered share <period>``) then all its papers, assigned
    outliers included (``papers <period>``, ``share <period>``); only the header where no
    trend could be tested.
    """
    trends = record["trends"]
    if not trends["available"]:
        return pd.DataFrame(columns=_TREND_COLUMNS)
    lists = ["clustered_papers", "clustered_share", "papers", "share"]
    table = pd.DataFrame(trends["topics"]).assign(tested_on=trends["tested_on"])
    turns = table.pop("turn")
    place = table.columns.get_loc("shape") + 1
    table.insert(place, "turn_start", [t[0] if t else "" for t in turns])
    table.insert(place + 1, "turn_end", [t[1] if t else "" for t in turns])
    table = table.drop(columns=["shape_legs", "fitted_share"])
    per_period = {
        f"{column.replace('_', ' ')} {period}": table[column].map(lambda v, i=index: v[i])
        for index, period in enumerate(trends["periods"])
        for column in lists
    }
    return pd.concat([table.drop(columns=lists), pd.DataFrame(per_period, index=table.index)], axis=1)


_BURST_COLUMNS = ["term", "start", "end", "strength", "papers_in_span", "rank_score", "shown", "q_value"]
_BURST_COLUMNS += ["share_in_span", "share_elsewhere", "topics"]


def burst_table(record: dict) -> pd.DataFrame:
    """``bursts.csv``: every burst, strongest × largest first (``rank_score``), whether the report
    shows it (``shown``), and the topics holding most of its papers as "id: label (papers)".
    """
    bursts = record["bursts"]
    if not bursts.get("available") or not bursts["bursts"]:
        return pd.DataFrame(columns=_BURST_COLUMNS)
    table = pd.DataFrame(bursts["bursts"])
    table["topics"] = table["topics"].map(
        lambda ts: "; ".join(f"{t['topic']}: {t['label']} ({t['papers']})" for t in ts)
    )
    return table[_BURST_COLUMNS]
