"""Each finding re-tested in every replicate, on the topic it is matched to there, with the same
test and the same Benjamini-Hochberg family as the main run, and graded by how often it holds.

A finding holds in a replicate when its topic is matched there (best Jaccard above 0.5), the
replicate's test of the matched topic is significant, and its direction is the same. Its grade
(stability selection's idea, Meinshausen and Bühlmann 2010, with Hennig's topic stability):
robust where it holds in at least 80% of the replicates and its topic is stable (0.75), fragile
where it holds in fewer than half or its topic is not to be trusted (below 0.6), else supported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from papertopics.robustness.stability import STABLE, TRUSTED
from papertopics.stats import SIGNIFICANT

ROBUST = "robust"
SUPPORTED = "supported"
FRAGILE = "fragile"
# The shares of the replicates a finding must hold in to be robust, or not fragile.
ROBUST_SHARE = 0.8
SUPPORTED_SHARE = 0.5


def robustness_grade(holds: int, replicates: int, stability: float | None) -> str:
    """``robust``, ``supported`` or ``fragile`` (empty where no replicate was drawn)."""
    if not replicates:
        return ""
    share = holds / replicates
    if share < SUPPORTED_SHARE or (stability is not None and stability < TRUSTED):
        return FRAGILE
    if share >= ROBUST_SHARE and stability is not None and stability >= STABLE:
        return ROBUST
    return SUPPORTED


def holds_phrase(holds: int, replicates: int) -> str:
    """``holds in 3 of 10 resamples``."""
    return f"holds in {holds} of {replicates} resamples"


@dataclass(frozen=True)
class Replicate:
    """One replicate as the re-tests read it: the main run's paper rows it drew, their topics
    there and whether HDBSCAN left each an outlier, and each main topic's match (``OUTLIER``-free
    dict, matched topics only).
    """

    rows: np.ndarray
    labels: np.ndarray
    outlier: np.ndarray
    match: dict[int, int]


def matched_topics(matches: pd.DataFrame, replicate: int) -> dict[int, int]:
    """Each main topic's matched topic in ``replicate`` (``stability.csv``: its rows where matched)."""
    rows = matches[(matches["replicate"] == replicate) & matches["matched"].astype(bool)]
    return dict(zip(rows["topic"].astype(int), rows["match"].astype(int), strict=True))


def count_holds(
    findings: pd.DataFrame, replicates: list[Replicate], retest, by: tuple[str, ...] = ()
) -> tuple[np.ndarray, int]:
    """How many replicates each finding holds in.

    Args:
        findings: one row per finding, with its ``topic``, its ``direction`` in the main run and
            the columns ``by``.
        replicates: the replicates.
        retest: ``retest(replicate)`` → a table of the replicate's own topics (``topic``, the
            columns ``by``, ``direction``, ``grade``) by the main run's test and family.
        by: what tells a topic's findings apart besides it (a reception finding's measure and
            outcome; none for a trend).

    Returns:
        Each finding's count of replicates it holds in, and the replicates counted.
    """
    holds = np.zeros(len(findings), dtype=np.int64)
    if findings.empty:  # nothing to re-test (no people in the papers, no venues compared)
        return holds, len(replicates)
    keys = list(findings[list(by)].itertuples(index=False, name=None)) if by else [()] * len(findings)
    for replicate in replicates:
        tested = retest(replicate)
        significant = tested[tested["grade"] == SIGNIFICANT]
        direction_of = dict(
            zip(
                significant[["topic", *by]].itertuples(index=False, name=None),
                significant["direction"],
                strict=True,
            )
        )
        for position, (topic, way) in enumerate(zip(findings["topic"], findings["direction"], strict=True)):
            matched = replicate.match.get(int(topic))
            holds[position] += matched is not None and direction_of.get((matched, *keys[position])) == way
    return holds, len(replicates)


def with_robustness(
    table: pd.DataFrame,
    holds: np.ndarray,
    replicates: int,
    stability: dict[int, float],
    is_finding,
    after: str | None = None,
    prefix: str = "",
) -> pd.DataFrame:
    """``table`` with ``holds``, ``replicates`` and, on its findings (``is_finding``, a boolean
    column), ``robustness``: the grade (empty on the rows that are no finding); the three columns
    follow the column ``after`` (last where None: a table whose last columns are per period keeps them last),
    each name after ``prefix`` (``shape_holds``: a table of two kinds of finding, trends and their shapes).
    """
    graded = [
        robustness_grade(int(count), replicates, stability.get(int(topic))) if finding else ""
        for count, topic, finding in zip(holds, table["topic"], is_finding, strict=True)
    ]
    added = {f"{prefix}holds": holds, f"{prefix}replicates": replicates, f"{prefix}robustness": graded}
    place = len(table.columns) if after is None else table.columns.get_loc(after) + 1
    table = table.copy()
    for offset, (name, values) in enumerate(added.items()):
        table.insert(place + offset, name, values)
    return table


def robustness_records(table: pd.DataFrame, by: tuple[str, ...] = (), prefix: str = "") -> dict[str, dict]:
    """Each row's holds, replicates and grade by its topic (as text: a JSON key), and its columns
    ``by`` joined with "|" (a reception finding's ``3|acceptance|accepted``), for the report; the
    columns named after ``prefix`` (see ``with_robustness``).
    """
    keys = [
        "|".join(str(part) for part in key)
        for key in table[["topic", *by]].itertuples(index=False, name=None)
    ]
    return {
        key: {"holds": int(holds), "replicates": int(replicates), "robustness": graded}
        for key, holds, replicates, graded in zip(
            keys,
            table[f"{prefix}holds"],
            table[f"{prefix}replicates"],
            table[f"{prefix}robustness"],
            strict=True,
        )
    }
