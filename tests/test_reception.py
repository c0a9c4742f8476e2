"""How each topic was received: the tests behind it agree with the textbook ones, citations are
compared only within a year, and on real papers with their real topics (the shared OpenReview
and ACL metadata, topics from their text) 200 shuffled runs give no evidence that more than 5%
flag some topic, while a planted effect at 120 papers is found in at least 90% of runs with
nothing else of its kind flagged (bench/reception_power.py; the full table in bench/reception.md).
A topic's decisions changing from year to year is tested the same way: shuffled, no evidence of
more than 5% of runs; planted (30 points more of a tier in its later years), found in at least 80%.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import require_corpus
from papertopics.reception.permutation import (
    MIN_DRAWS,
    _within_strata,
    change_test,
    draws_for,
    mean_test,
    median_interval,
    share_test,
)
from papertopics.reception.stages import change_sentence, finding_sentence
from papertopics.reception.table import (
    FAMILIES,
    ReceptionSettings,
    TopicPapers,
    is_accepted,
    normalised_citations,
    reception_table,
)
from papertopics.reception.values import ReceptionValues
from papertopics.reception.years import year_rows
from papertopics.report.reception_record import reception_files
from papertopics.report.reception_section import brief_lines, card_blocks, findings, reception_section

from bench.reception_power import (
    ACCEPTANCE,
    CITATIONS,
    OUTCOME,
    RATING,
    change_null_rate,
    change_power,
    load_corpus,
    null_rate,
    power,
)

SETTINGS = ReceptionSettings(("accept", "oral", "poster", "spotlight", "notable"), 10, 0.95, 0.05, 0.25)


def test_share_test_in_one_stratum_is_the_chi_square_test_with_continuity_correction():
    # Mantel–Haenszel's statistic on one table is Pearson's times (N − 1) / N (hypergeometric variance).
    from scipy.stats import chi2, chi2_contingency

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, 400)
    hit = rng.random(400) < np.where(codes == 0, 0.45, 0.3)
    found = share_test(hit, codes, np.zeros(400, dtype=int), 3)
    for topic in range(3):
        inside = codes == topic
        table = [[hit[inside].sum(), (~hit[inside]).sum()], [hit[~inside].sum(), (~hit[~inside]).sum()]]
        pearson = chi2_contingency(table, correction=True).statistic
        assert found.p_value[topic] == pytest.approx(chi2.sf(pearson * 399 / 400, 1), rel=1e-9)
        assert found.value[topic] == pytest.approx(hit[inside].mean())


def test_share_test_within_strata_is_not_fooled_by_a_venue_with_more_orals():
    # Topic 0's papers all come from venue B, whose oral rate is 30% against A's 5%: within each
    # venue topic 0 is like the rest, so it is no finding, though its raw share is far above.
    rng = np.random.default_rng(0)
    strata = np.repeat([0, 1], 300)
    codes = np.where((strata == 1) & (rng.random(600) < 0.6), 0, 1)
    hit = rng.random(600) < np.where(strata == 1, 0.3, 0.05)
    found = share_test(hit, codes, strata, 2)
    assert found.value[0] > 2 * found.rest[0] and found.p_value[0] > 0.05


def test_mean_test_in_one_stratum_matches_welchs_p_value_and_repeats():
    from scipy.stats import ttest_ind

    rng = np.random.default_rng(1)
    codes = rng.integers(0, 2, 200)
    values = rng.normal(5 + 0.3 * (codes == 0), 1)
    found = mean_test(values, codes, np.zeros(200, dtype=int), 2, 10, 3999)
    expected = ttest_ind(values[codes == 0], values[codes != 0], equal_var=False).pvalue
    assert 0.01 < expected < 0.2  # a p-value the permutations can estimate, not their floor
    assert found.p_value[0] == pytest.approx(expected, abs=0.015)  # 3 standard errors of 4,000 draws
    assert np.array_equal(
        mean_test(values, codes, np.zeros(200, dtype=int), 2, 10, 3999).p_value, found.p_value
    )


def test_mean_test_gate_passes_a_real_difference_and_rarely_noise():
    rng = np.random.default_rng(3)
    codes, strata = np.repeat(np.arange(6), 50), np.tile([0, 1], 150)
    shifted = rng.normal(0, 1, 300) - 1.0 * (codes == 2)
    assert mean_test(shifted, codes, strata, 6, 10, 1999).gate_p_value < 0.01
    # Values unrelated to the topics: the gate's p-value is near uniform over independent sets.
    noise = [mean_test(rng.normal(0, 1, 300), codes, strata, 6, 10, 999).gate_p_value for _ in range(30)]
    assert sum(p <= 0.05 for p in noise) <= 5 and 0.3 < np.mean(noise) < 0.7


def test_mean_test_permutes_values_only_within_their_stratum():
    # Strata side by side, as mean_test sorts them: a permutation across them would mix stratum
    # 1's values (all 100 above stratum 0's) into stratum 0.
    columns = _within_strata(np.r_[0:4, 100:108.0], np.repeat([0, 1], [4, 8]), 50, np.random.default_rng(0))
    assert all(sorted(column[:4]) == [0, 1, 2, 3] for column in columns.T)
    assert all(sorted(column[4:]) == list(np.r_[100:108]) for column in columns.T)
    assert len({tuple(column) for column in columns.T}) > 40  # and they do permute


def test_permutations_are_enough_for_a_topic_among_many():
    assert draws_for(8, 0.05) == MIN_DRAWS
    # The smallest p-value, 1 / (permutations + 1), is a quarter of BH's bar for one of 200 topics.
    assert 1 / (draws_for(200, 0.05) + 1) <= 0.05 / 200 / 4


def test_median_interval_holds_the_median():
    values = np.arange(1.0, 101.0)
    low, high = median_interval(values, 0.95)
    assert (low, high) == (40.0, 61.0)  # the 40th and 61st of 100 (coverage 96.5%), as tabulated


def test_accepted_decisions_by_their_words():
    decisions = np.array(["Accept (Oral)", "Reject", "accepted", "Desk Rejected", "Poster", "Withdrawn"])
    assert is_accepted(decisions, SETTINGS.accepted).tolist() == [True, False, True, False, True, False]


def test_citations_are_compared_within_their_year_never_raw():
    # 2019's papers have had years to be cited; topic 0 holds them. Raw counts would call it cited
    # ten times more; for their year its papers are as cited as any.
    rng = np.random.default_rng(2)
    years = np.array(["2019"] * 100 + ["2024"] * 300, dtype=object)
    codes = np.where(years == "2019", 0, rng.integers(1, 3, 400))
    citations = np.where(years == "2019", rng.poisson(100, 400), rng.poisson(10, 400)).astype(float)
    scores = normalised_citations(citations, years)
    assert scores[years == "2019"].mean() == pytest.approx(1.0)
    papers = TopicPapers(codes, np.zeros(400, dtype=int), years, (0, 1, 2), ("old", "a", "b"))
    values = ReceptionValues(
        np.full(400, "", dtype=object), np.full(400, np.nan), np.full(400, np.nan), citations, ()
    )
    table = reception_table(papers, values, SETTINGS)
    old = table[(table["topic"] == 0) & (table["measure"] == CITATIONS)].iloc[0]
    assert old["value"] == pytest.approx(1.0) and old["evidence"] == "no evidence"


def _two_venues_over_three_years(topic_rates: dict[str, float]) -> tuple[np.ndarray, ...]:
    """600 papers: venue A (accepts 20%) in 2021-23, venue B (accepts 60%) in 2023 only; topic 0
    is 40 papers of each venue's year, accepted at ``topic_rates`` (pool → rate, else the pool's),
    each group's accepted papers exactly its rate's share.
    """
    pools, rates = ["A2021", "A2022", "A2023", "B2023"], [0.2, 0.2, 0.2, 0.6]
    pool = np.repeat(np.arange(4), 150)
    codes = np.tile(np.r_[np.zeros(40, int), np.full(110, -1)], 4)
    hit = np.zeros(600, dtype=bool)
    for at, name in enumerate(pools):
        for code, size in ((0, 40), (-1, 110)):
            rate = topic_rates.get(name, rates[at]) if code == 0 else rates[at]
            members = np.flatnonzero((pool == at) & (codes == code))
            hit[members[: round(rate * size)]] = True
    return hit, codes, pool, np.array([0, 1, 2, 2])


def test_a_topic_received_alike_every_year_is_no_change_and_one_that_turned_is():
    # Accepted as the rest in each venue's year, or at odds 8/3 times the rest's in each: no change.
    # (That venues are compared apart is held by the shuffled runs on OpenReview, where COLM joins
    # CoRL in 2024: by years alone, 97.5% of them found a change.)
    alike = change_test(*_two_venues_over_three_years({}), topics=1, draws=1999)
    assert alike[0] > 0.2
    doubled = {"A2021": 0.4, "A2022": 0.4, "A2023": 0.4, "B2023": 0.8}  # odds ratio 8/3 in each
    assert change_test(*_two_venues_over_three_years(doubled), topics=1, draws=1999)[0] > 0.2
    # Accepted at twice the rest's rate in 2021, at the rest's in 2022 and at none in 2023: a change.
    turned = {"A2021": 0.45, "A2023": 0.0, "B2023": 0.2}
    assert change_test(*_two_venues_over_three_years(turned), topics=1, draws=1999)[0] < 0.001


def test_a_change_over_two_years_has_the_exact_conditional_p_value():
    # Two years, one stratum each: given the topic's 14 hits in all, its hits in the first year
    # are distributed as the product of the two years' hypergeometrics, whatever the odds ratio
    # the years share; the statistic weighs each year's hits against Fisher's noncentral
    # hypergeometric at the Mantel–Haenszel odds ratio (half a paper added to each cell).
    from scipy.stats import hypergeom, nchypergeom_fisher

    hit = np.r_[np.ones(10), np.zeros(10), np.ones(20), np.zeros(60)]
    hit = np.r_[hit, np.ones(4), np.zeros(16), np.ones(30), np.zeros(50)].astype(bool)
    codes = np.tile(np.r_[np.zeros(20, int), np.full(80, -1)], 2)
    pool = np.repeat([0, 1], 100)
    cells = [(10.5, 10.5, 20.5, 60.5), (4.5, 16.5, 30.5, 50.5)]  # topic hit, miss; rest hit, miss
    odds = sum(a * d / 102 for a, _, _, d in cells) / sum(b * c / 102 for _, b, c, _ in cells)
    years = [nchypergeom_fisher(100, 30, 20, odds), nchypergeom_fisher(100, 34, 20, odds)]
    first = np.arange(15)  # the first year's possible hits, the second's being 14 less them
    spread = sum(
        (hits - year.mean()) ** 2 / year.var() for hits, year in zip((first, 14 - first), years, strict=True)
    )
    weight = hypergeom.pmf(first, 100, 30, 20) * hypergeom.pmf(14 - first, 100, 34, 20)
    exact = weight[spread >= spread[10] - 1e-9].sum() / weight.sum()
    found = change_test(hit, codes, pool, np.array([0, 1]), topics=1, draws=9999)[0]
    assert 0.001 < exact < 0.2 and found == pytest.approx(exact, abs=0.006)  # 3 standard errors


def test_a_topic_whose_decisions_changed_is_said_per_year_in_the_section_and_not_in_a_copy_to_share():
    hit, codes, pool, pool_years = _two_venues_over_three_years({"A2021": 0.45, "A2023": 0.0, "B2023": 0.2})
    years = np.array(["2021", "2022", "2023", "2023"], dtype=object)[pool]
    papers = TopicPapers(codes, pool, years, (7,), ("<i>graphs</i>",))
    decisions = np.where(hit, "Accept", "Reject").astype(object)
    values = ReceptionValues(decisions, np.full(600, np.nan), np.full(600, np.nan), np.full(600, np.nan), ())
    rows = year_rows(papers, values, SETTINGS)
    assert rows["year"].tolist() == ["2021", "2022", "2023"] and set(rows["change_evidence"]) == {
        "significant"
    }
    sentence = change_sentence(rows.to_dict("records"))
    assert sentence == (
        "Papers on <i>graphs</i> were accepted at 45% (31%–60%) in 2021, 20% (10%–35%) in 2022 and "
        "10% (5%–19%) in 2023, against 20%, 20% and 40% elsewhere: a change beyond the rest's."
    )
    table = reception_table(papers, values, SETTINGS)
    record = {
        "available": True,
        "papers": 600,
        "given": {"decision": 600, "ratings": 0, "citations": 0},
        "accepted": ["accept"],
        "notes": [],
        "in_report": True,
        "topics": [
            {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
            for r in table.to_dict("records")
        ],
        "changes": [sentence],
    }
    page = str(reception_section(record))
    assert (
        '<ul class="reception-changes">' in page
        and "Papers on &lt;i&gt;graphs&lt;/i&gt; were accepted" in page
    )
    assert 'class="reception-changes"' not in str(reception_section({**record, "in_report": False}))
    # With replicates drawn, each change says how often its topic's change held in them.
    from papertopics.report.inputs import with_reception_robustness

    held = {
        "replicates": 10,
        "reception_years": {"7": {"holds": 3, "replicates": 10, "robustness": "fragile"}},
    }
    graded = with_reception_robustness({**record, "change_topics": [7]}, held)
    page = str(reception_section(graded))
    assert "a change beyond the rest" in page and "s. (Fragile: holds in 3 of 10 resamples.)</li>" in page


@pytest.mark.parametrize("corpus", ["openreview", "acl"])
def test_shuffled_decisions_change_some_topic_across_years_in_at_most_five_percent_of_200_runs(
    corpus, request
):
    from scipy.stats import binomtest

    rate = change_null_rate(request.getfixturevalue(corpus), runs=200)
    assert binomtest(round(rate * 200), 200, 0.05, alternative="greater").pvalue > 0.05, rate


@pytest.mark.parametrize("corpus", ["openreview", "acl"])
def test_a_planted_change_of_30_points_at_120_papers_is_found_in_75_percent_of_runs(corpus, request):
    # Found in 79% (OpenReview) and 91% (ACL) of these 100 runs by the exact test; χ², which
    # over-stated tiny p-values, had found 87% and 99% (bench/reception.md).
    found = change_power(request.getfixturevalue(corpus), 120, 0.3, runs=100)
    assert found["runs"] == 100 and found["found"] >= 0.75 and found["clean"] >= 0.8, found


def _planted_table():
    """1,000 papers in ten topics over two years; topic 12 accepted and rated less than the rest."""
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 10, 1000)
    years = np.where(rng.random(1000) < 0.5, "2024", "2025").astype(object)
    accepted = rng.random(1000) < np.where(codes == 2, 0.15, 0.4)
    decisions = np.where(accepted, "Accept (Poster)", "Reject").astype(object)
    ratings = rng.normal(np.where(codes == 2, 4.9, 5.5), 0.8)
    values = ReceptionValues(decisions, ratings, np.full(1000, 1.0), np.full(1000, np.nan), ())
    labels = ("graphs", "robots", "<b>prompts</b>", *(f"topic {t}" for t in range(13, 20)))
    papers = TopicPapers(codes, pd.factorize(years)[0], years, tuple(range(10, 20)), labels)
    return papers, values


def test_acceptance_is_a_family_of_its_own_whatever_the_outcomes_beside_it():
    # 30 topics, one accepted at 15% against 36%: its acceptance is graded among the topics'
    # acceptance alone, so six outcomes beside it (their shares a family of their own) change
    # neither its p- nor its q-value; in one family with them it was only suggestive.
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 30, 3000)
    accepted = rng.random(3000) < np.where(codes == 4, 0.15, 0.36)
    detail = rng.choice(["Accept (Oral)", "Accept (Poster)", "Accept (Spotlight)"], 3000)
    refused = rng.choice(["Reject", "Withdraw", "Desk Reject"], 3000)
    years = np.full(3000, "2025", dtype=object)
    papers = TopicPapers(
        codes, np.zeros(3000, int), years, tuple(range(30)), tuple(f"t{t}" for t in range(30))
    )
    tables = [
        reception_table(
            papers,
            ReceptionValues(
                np.where(accepted, accept, reject).astype(object),
                np.full(3000, np.nan),
                np.full(3000, np.nan),
                np.full(3000, np.nan),
                (),
            ),
            SETTINGS,
        )
        for accept, reject in ((detail, refused), ("Accept", "Reject"))
    ]
    six, two = (table[table["measure"] == "acceptance"].reset_index(drop=True) for table in tables)
    assert set(tables[0]["outcome"]) - {""} == {*detail, *refused} and set(tables[1]["measure"]) == {
        "acceptance"
    }
    pd.testing.assert_frame_equal(six, two)
    row = six[six["topic"] == 4].iloc[0]
    assert row["evidence"] == "significant" and row["direction"] == "lower"


def test_planted_topic_is_found_said_in_plain_words_and_escaped_in_the_section():
    papers, values = _planted_table()
    table = reception_table(papers, values, SETTINGS)
    found = table[table["evidence"] == "significant"]
    assert {(12, "acceptance", "lower"), (12, "rating", "lower")} <= set(
        zip(found["topic"], found["measure"], found["direction"], strict=True)
    )
    assert (found.sort_values("q_value")["topic"].iloc[:2] == 12).all()  # the strongest evidence
    row = found[(found["topic"] == 12) & (found["measure"] == "acceptance")].iloc[0].to_dict()
    assert finding_sentence(row) == (
        f"Papers on <b>prompts</b> were accepted at {row['value']:.0%} "
        f"({row['low']:.0%}–{row['high']:.0%}), against {row['rest']:.0%} elsewhere."
    )
    per_year = year_rows(papers, values, SETTINGS)
    assert (
        sorted(per_year["year"].unique()) == ["2024", "2025"] and (per_year["low"] <= per_year["value"]).all()
    )
    record = {
        "available": True,
        "papers": 1000,
        "given": {"decision": 1000, "ratings": 1000, "citations": 0},
        "accepted": list(SETTINGS.accepted),
        "fields": {"decision": "decision", "ratings": "ratings", "citations": "citations"},
        "notes": [],
        "in_report": True,
        "topics": [
            {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
            for r in table.to_dict("records")
        ],
    }
    assert brief_lines(record) == findings(record)[:2] and len(findings(record)) == len(found)
    assert all(line.startswith("Papers on <b>prompts</b> were") for line in brief_lines(record))
    page = reception_section(record)
    assert "&lt;b&gt;prompts&lt;/b&gt;" in page and "<b>prompts" not in page
    card = card_blocks(record)[12]
    assert f"Accepted: {row['value']:.0%} ({row['low']:.0%}–{row['high']:.0%}), against" in card
    assert "Mean rating:" in card and "significant" in card and "<b>" not in card
    assert "Built from decisions or reviewers' ratings" in page


def test_a_copy_to_share_leaves_decisions_and_ratings_out(tmp_path):
    papers, values = _planted_table()
    table = reception_table(papers, values, SETTINGS)
    table.to_csv(tmp_path / "reception.csv", index=False)
    rows = [
        {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
        for r in table.to_dict("records")
    ]
    record = {"available": True, "in_report": False, "topics": rows, "findings": []}
    assert reception_section(record) == "" and brief_lines(record) == []
    assert reception_files(record, str(tmp_path / "reception.csv"), None) == {}


@pytest.fixture(scope="module")
def openreview(tmp_path_factory):
    return load_corpus(require_corpus("openreview_metadata.jsonl.gz"), tmp_path_factory.mktemp("openreview"))


@pytest.fixture(scope="module")
def acl(tmp_path_factory):
    return load_corpus(require_corpus("acl_2021_2022_metadata.jsonl.gz"), tmp_path_factory.mktemp("acl"))


@pytest.mark.parametrize("corpus", ["openreview", "acl"])
def test_shuffled_values_flag_some_topic_in_at_most_five_percent_of_200_runs(corpus, request):
    # Decisions and ratings shuffled within each venue's year, citations within years, as tested.
    # Each kind's tests run at BH 5%, so its rate is about 5% by design: the check is that 200 runs
    # give no evidence of more (one-sided binomial test); bench/reception.md has the rates.
    from scipy.stats import binomtest

    rates = null_rate(request.getfixturevalue(corpus), runs=200)
    for kind in FAMILIES:
        flagged_runs = round(rates[kind] * 200)
        assert binomtest(flagged_runs, 200, 0.05, alternative="greater").pvalue > 0.05, (kind, rates)


@pytest.mark.parametrize(
    ("corpus", "kind", "effect"),
    [
        ("openreview", ACCEPTANCE, 0.2),
        ("openreview", RATING, 0.5),
        ("openreview", CITATIONS, 0.5),
        ("acl", ACCEPTANCE, 0.2),
        ("acl", OUTCOME, 0.2),
        ("acl", CITATIONS, 0.5),
    ],
)
def test_planted_effect_at_120_papers_is_found_with_nothing_else_flagged(corpus, kind, effect, request):
    # The planted kind alone: its family's findings do not depend on the other kinds' values.
    found = power(request.getfixturevalue(corpus), kind, 120, effect, runs=100, other_kinds=False)
    assert found["runs"] == 100 and found["found"] >= 0.9 and found["clean"] >= 0.9, found


def test_a_kind_tested_alone_finds_what_it_finds_beside_the_others(openreview):
    for kind in (ACCEPTANCE, RATING):
        beside, alone = (
            power(openreview, kind, 60, 0.3, runs=4, other_kinds=other) for other in (True, False)
        )
        assert {k: beside[k] for k in ("runs", "found", "clean")} == {
            k: alone[k] for k in ("runs", "found", "clean")
        }
        assert alone["clean_any_kind"] is None and beside["clean_any_kind"] is not None


def test_a_report_built_from_decisions_says_so_in_its_header_brief_section_and_cards():
    from papertopics.report import build_report
    from synthetic_report import report_inputs, synthetic_stage_outputs

    inputs = report_inputs(synthetic_stage_outputs(200, 4, 2), with_figures=False)
    real = [t for t in inputs.topic_details if t["topic"] != -1]
    code_of = {t["topic"]: code for code, t in enumerate(real)}
    codes = np.array([code_of.get(topic, -1) for topic in inputs.papers["topic"]])
    rng = np.random.default_rng(7)
    accepted = rng.random(len(codes)) < np.where(codes == 0, 0.1, 0.6)
    values = ReceptionValues(
        np.where(accepted, "Accept", "Reject").astype(object),
        rng.normal(5, 1, len(codes)),
        np.full(len(codes), np.nan),
        np.full(len(codes), np.nan),
        (),
    )
    years = np.full(len(codes), "2024", dtype=object)
    papers = TopicPapers(
        codes, np.zeros(len(codes), int), years, tuple(code_of), tuple(t["label"] for t in real)
    )
    table = reception_table(papers, values, SETTINGS)
    rows = [
        {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
        for r in table.to_dict("records")
    ]
    record = {
        "available": True,
        "papers": len(codes),
        "given": {"decision": len(codes), "ratings": len(codes), "citations": 0},
        "accepted": ["accept"],
        "fields": {"decision": "decision", "ratings": "ratings", "citations": "citations"},
        "notes": [],
        "in_report": True,
        "topics": rows,
    }
    inputs.reception = record
    page = build_report(inputs, title="auto", hover_chars=100)
    assert '<p class="header-confidential">' in page and '<a href="#reception">Reception</a>' in page
    assert '<section id="reception">' in page and 'class="reception-card"' in page
    assert '<div class="brief-reception">' in page  # topic 0 accepted at 10% against 60%: significant
    inputs.reception = {**record, "in_report": False}
    shared = build_report(inputs, title="auto", hover_chars=100)
    assert '<p class="header-confidential">' not in shared and '<section id="reception">' not in shared
    assert '<div class="reception-card">' not in shared and '<div class="brief-reception">' not in shared
