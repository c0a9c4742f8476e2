"""Each topic's acceptance rate (or its rarer outcome's share) year by year, against the rest's
that year, and whether it changed across the years (Breslow and Day's exact change test,
``papertopics.reception.permutation.change_test``), graded as the other reception findings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from papertopics.reception.permutation import change_test, draws_for
from papertopics.reception.table import ACCEPTANCE, ReceptionSettings, TopicPapers, decision_measures
from papertopics.reception.values import ReceptionValues
from papertopics.stats import NOT_TESTED, benjamini_hochberg, grade, wilson_interval


def year_measure(
    decisions: np.ndarray, years: np.ndarray, accepted: tuple[str, ...]
) -> tuple[str, str, np.ndarray] | None:
    """The share followed across the years: acceptance where there is one, else the outcome given
    in most years (the rarer of those): a tier a venue had only one year (ACL's Findings from
    2022) has no change to show. Its hit per paper (False where no decision); None without any.
    """
    given = decisions != ""
    measures = decision_measures(decisions, accepted)
    if not measures:
        return None

    def years_with(hit: np.ndarray) -> int:
        return len(np.unique(years[given][hit & (years[given] != "")]))

    measure, outcome, hit = max(
        measures, key=lambda found: (found[0] == ACCEPTANCE, years_with(found[2]), -found[2].sum())
    )
    full_hit = np.zeros(len(decisions), dtype=bool)
    full_hit[given] = hit
    return measure, outcome, full_hit


YEAR_COLUMNS = [
    "topic",
    "label",
    "year",
    "measure",
    "outcome",
    "papers",
    "value",
    "low",
    "high",
    "rest",
    "change_p_value",
    "change_q_value",
    "change_evidence",
]


def year_rows(papers: TopicPapers, values: ReceptionValues, settings: ReceptionSettings) -> pd.DataFrame:
    """Each topic's acceptance rate (or its rarer outcome's share) per year, with Wilson intervals
    and the rest's that year; and whether the topic's rate against the rest's changed across the
    years (``change_test``: q-values Benjamini–Hochberg across topics, graded as the others; the
    same on each of a topic's rows). A topic is tested with at least ``min_papers`` papers with a
    decision and a year.
    """
    given = (values.decision != "") & (papers.years != "")
    chosen = year_measure(values.decision, papers.years, settings.accepted)
    if chosen is None or not (given & (papers.codes >= 0)).any():
        return pd.DataFrame(columns=YEAR_COLUMNS)
    measure, outcome, full_hit = chosen
    year_codes, year_names = pd.factorize(papers.years[given], sort=True)
    codes, hits = papers.codes[given], full_hit[given]
    pools = pd.factorize(papers.pools[given])[0]
    pool_years = np.zeros(pools.max() + 1, dtype=np.int64)
    pool_years[pools] = year_codes  # a pool is one venue's one year
    p_value = change_test(
        hits,
        codes,
        pools,
        pool_years,
        len(papers.topics),
        draws_for(len(papers.topics), settings.false_discovery_rate),
    )
    sizes = np.bincount(codes[codes >= 0], minlength=len(papers.topics))
    p_value[sizes < settings.min_papers] = np.nan
    q_value = np.full(len(p_value), np.nan)
    tested = ~np.isnan(p_value)
    if tested.any():
        q_value[tested] = benjamini_hochberg(p_value[tested])
    evidence = np.where(
        tested,
        grade(np.nan_to_num(q_value, nan=1.0), settings.false_discovery_rate, settings.suggestive_q),
        NOT_TESTED,
    )
    frame = pd.DataFrame({"code": codes, "year": year_codes, "hit": hits})
    counts = (
        frame[frame["code"] >= 0]
        .groupby(["code", "year"], sort=True)["hit"]
        .agg(["sum", "count"])
        .reset_index()
    )
    year_hits = np.bincount(year_codes, weights=hits.astype(np.float64))
    year_papers = np.bincount(year_codes)
    rest_papers = year_papers[counts["year"]] - counts["count"]
    low, high = wilson_interval(counts["sum"], counts["count"], settings.confidence)
    code = counts["code"].to_numpy()
    return pd.DataFrame(
        {
            "topic": [papers.topics[c] for c in code],
            "label": [papers.labels[c] for c in code],
            "year": year_names[counts["year"]],
            "measure": measure,
            "outcome": outcome,
            "papers": counts["count"],
            "value": counts["sum"] / counts["count"],
            "low": low,
            "high": high,
            "rest": (year_hits[counts["year"]] - counts["sum"]) / np.maximum(rest_papers, 1),
            "change_p_value": p_value[code],
            "change_q_value": q_value[code],
            "change_evidence": evidence[code],
        }
    )
