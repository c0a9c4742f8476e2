"""Each topic's own wording per period (dump or year): its keywords computed within the period.

BERTopic's ``topics_over_time`` does this: c-TF-IDF of each topic's papers of one period, with
the fitted model's vocabulary and weighting. Its two smoothings are off: averaging with the
topic's overall keywords (``global_tuning``) and with the previous period's (``evolution_tuning``)
both pull a period's words towards the others', which hides the shift a reader looks for
("adversarial examples" becoming "certified robustness").

A placed update (``update: place``) words afresh only the periods whose topics' papers are not
those the fit worded (its placed papers' periods): the fitted papers keep their topics, so the
other periods' wording is the fit's, kept with it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from papertopics.periods.assign import Periods

WORDS_PER_PERIOD = 5


def wording_per_period(
    model, texts: list[str], model_topics: np.ndarray, periods: Periods
) -> dict[int, list]:
    """For each of the model's topics (its own numbers), its keywords in each period it has
    papers in, oldest first: ``[{"period", "papers", "keywords"}]``. Empty with fewer than two periods.
    """
    if len(periods.names) < 2 or not len(periods.rows):
        return {}
    place = {name: index for index, name in enumerate(periods.names)}
    over_time = model.topics_over_time(
        [texts[row] for row in periods.rows],
        [place[name] for name in periods.period],
        topics=np.asarray(model_topics)[periods.rows].tolist(),
        global_tuning=False,
        evolution_tuning=False,
    )
    wording: dict[int, list] = {}
    for row in over_time.sort_values(["Topic", "Timestamp"], kind="stable").itertuples():
        words = [word for word in row.Words.split(", ") if word][:WORDS_PER_PERIOD]
        wording.setdefault(int(row.Topic), []).append(
            {"period": periods.names[int(row.Timestamp)], "papers": int(row.Frequency), "keywords": words}
        )
    return wording


def periods_to_word(periods: Periods, topics: np.ndarray, kept: dict[str, list[dict]]) -> Periods:
    """``periods`` with only those a placed update words afresh: those where a topic (``topics``:
    each paper's) holds another number of papers than the fit's wording of it says (``kept``:
    each topic's, as the fit kept it), such as a placed paper's period or one the fit did not
    word (a fit of one period words none). Each keeps all its papers, and the names are the
    same, so that ``wording_per_period`` orders them alike.
    """
    now = Counter(zip(periods.period.tolist(), np.asarray(topics)[periods.rows].tolist(), strict=True))
    then = {
        (entry["period"], int(topic)): entry["papers"] for topic, entries in kept.items() for entry in entries
    }
    fresh = {
        period
        for period, topic in now.keys() | then.keys()
        if now[period, topic] != then.get((period, topic), 0)
    }
    chosen = np.isin(periods.period, list(fresh))
    return replace(periods, rows=periods.rows[chosen], period=periods.period[chosen])


def with_kept_wording(kept: list[dict], fresh: list[dict], fresh_periods, names: list[str]) -> list[dict]:
    """A topic's wording per period: ``fresh`` (this run's) for ``fresh_periods``, ``kept`` (the
    fit's) for the others, oldest first by ``names``.
    """
    place, fresh_periods = {name: index for index, name in enumerate(names)}, set(fresh_periods)
    entries = [entry for entry in kept if entry["period"] not in fresh_periods] + fresh
    return sorted(entries, key=lambda entry: place.get(entry["period"], len(names)))
