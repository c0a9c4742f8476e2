"""The trend test across periods and the burst detector: checked by hand and by simulation."""

from __future__ import annotations

import numpy as np
import pytest
from papertopics.changes.bursts import detect_bursts, kleinberg_states, term_counts, without_nested
from papertopics.changes.trends import FALLING, FLAT, RISING, cochran_armitage, direction, period_scores
from papertopics.stats import NO_EVIDENCE, SIGNIFICANT, SUGGESTIVE, benjamini_hochberg, grade

RUNS = 2000


def test_cochran_armitage_matches_agrestis_worked_example():
    # Agresti, Categorical Data Analysis (2002), table 3.7: malformation by maternal alcohol use,
    # scores 0, 0.5, 1.5, 4, 7; he reports M² = 6.57, P = 0.01.
    test = cochran_armitage([48, 38, 5, 1, 1], [17114, 14502, 793, 127, 38], [0, 0.5, 1.5, 4, 7])
    assert test.z**2 == pytest.approx(6.57, abs=0.005)
    assert test.p_value == pytest.approx(0.0104, abs=0.0005)
    assert test.slope > 0 and test.slope_low > 0  # significant at 5%: the interval leaves out 0


def test_the_slope_is_the_least_squares_slope_of_membership_and_its_interval_matches_the_test():
    counts, totals, scores = np.array([3, 16, 38]), np.array([430, 610, 760]), np.array([2017, 2018, 2019])
    test = cochran_armitage(counts, totals, scores)
    membership = np.concatenate(
        [np.r_[np.ones(a), np.zeros(n - a)] for a, n in zip(counts, totals, strict=True)]
    )
    year = np.repeat(scores, totals)
    assert test.slope == pytest.approx(np.polyfit(year, membership, 1)[0])
    # 0.7% → 2.6% → 5.0% (the trial of issue #20): about +2.2 points a year, far from 0.
    assert 100 * test.slope == pytest.approx(2.17, abs=0.01)
    assert test.p_value < 1e-4 and test.slope_low > 0.01
    half = (test.slope_high - test.slope_low) / 2
    assert test.slope / (half / 1.959964) == pytest.approx(test.z)


def test_a_topic_absent_everywhere_has_no_trend_and_no_error():
    test = cochran_armitage([[0, 0, 0], [5, 5, 5]], [100, 100, 100], [0, 1, 2])
    assert test.p_value[0] == 1.0 and test.slope[0] == 0.0
    assert test.p_value[1] == pytest.approx(1.0)


def test_scores_are_years_with_their_gaps_or_the_dumps_places():
    assert period_scores(["2018", "2020", "2021"], "year").tolist() == [2018, 2020, 2021]
    assert period_scores(["b", "a", "c"], "dump").tolist() == [0, 1, 2]


def test_grades_and_directions_in_words():
    graded = grade([0.01, 0.2, 0.5, 0.04], 0.05, 0.25)
    assert graded.tolist() == [SIGNIFICANT, SUGGESTIVE, NO_EVIDENCE, SIGNIFICANT]
    assert direction([0.02, -0.01, 0.03, -0.02], graded).tolist() == [RISING, FALLING, FLAT, FALLING]


def _simulated_counts(rng, shares_per_period: np.ndarray, papers: int) -> np.ndarray:
    """RUNS × topics × periods: each period's papers drawn from that period's topic shares."""
    return np.stack([rng.multinomial(papers, shares, size=RUNS) for shares in shares_per_period], axis=-1)


def _significant_trends(counts: np.ndarray, papers: int) -> tuple[np.ndarray, np.ndarray]:
    test = cochran_armitage(counts, papers, np.arange(counts.shape[-1]))
    return benjamini_hochberg(test.p_value, axis=-1) < 0.05, test.slope


def test_thirty_topics_without_a_trend_rarely_give_a_significant_one():
    # The target: at most 6% of 2,000 runs report any significant trend (5% expected).
    rng = np.random.default_rng(20)
    counts = _simulated_counts(rng, np.full((3, 30), 1 / 30), 600)
    significant, _ = _significant_trends(counts, 600)
    assert significant.any(axis=1).mean() <= 0.06


def test_a_planted_rise_of_three_points_a_period_is_found_in_most_runs():
    # One of 30 topics at 3% → 6% → 9% of 600 papers per period: found in at least 80% of runs.
    rng = np.random.default_rng(21)
    shares = np.empty((3, 30))
    for period, planted in enumerate([0.03, 0.06, 0.09]):
        shares[period, 0], shares[period, 1:] = planted, (1 - planted) / 29
    significant, slope = _significant_trends(_simulated_counts(rng, shares, 600), 600)
    assert (significant[:, 0] & (slope[:, 0] > 0)).mean() >= 0.80


def test_kleinbergs_model_puts_a_jump_in_the_burst_state_and_a_steady_rate_in_the_base_one():
    spans = kleinberg_states([[5, 5, 30, 28, 5], [10, 10, 10, 10, 10]], [100] * 5)
    assert spans.state.tolist() == [[False, False, True, True, False], [False] * 5]
    assert spans.saving[0, 2:4].sum() > 0


def test_a_higher_transition_cost_needs_a_bigger_jump():
    counts = [[5, 5, 12, 5, 5]]
    assert kleinberg_states(counts, [100] * 5, transition_cost=0.5).state[0, 2]
    assert not kleinberg_states(counts, [100] * 5, transition_cost=4.0).state[0].any()


TERMS, PERIODS, PERIOD_PAPERS = 300, 5, 600


def _burst_runs(seed: int, planted: bool) -> list[list]:
    rng = np.random.default_rng(seed)
    rates = np.broadcast_to(rng.uniform(0.005, 0.10, size=(TERMS, 1)), (TERMS, PERIODS)).copy()
    if planted:  # term 0: 2% of the papers, tripled in the last two periods
        rates[0] = [0.02, 0.02, 0.02, 0.06, 0.06]
    totals = np.full(PERIODS, PERIOD_PAPERS)
    return [detect_bursts(rng.binomial(PERIOD_PAPERS, rates), totals, 2.0, 1.0, 0.05) for _ in range(RUNS)]


def test_terms_without_a_burst_rarely_give_one():
    # 300 terms at steady rates (0.5%-10% of 600 papers in each of 5 periods): at most 6% of runs
    # report any burst.
    runs = _burst_runs(30, planted=False)
    assert np.mean([bool(found) for found in runs]) <= 0.06


def test_a_planted_burst_is_found_in_most_runs():
    runs = _burst_runs(31, planted=True)
    hits = [any(b.term == 0 and b.start <= 4 and b.end >= 3 for b, _ in found) for found in runs]
    assert np.mean(hits) >= 0.80


def test_terms_are_counted_per_period_with_a_paper_in_two_dumps_counted_in_both():
    texts = ["graph neural networks for molecules", "graph neural networks again", "planning with graphs"]
    found = term_counts(
        texts, np.array([0, 1, 1, 2]), np.array(["a", "a", "b", "b"]), ["a", "b"], "english", 2
    )
    column = list(found.terms).index("graph neural networks")
    assert found.counts[column].tolist() == [2, 1]
    assert found.totals.tolist() == [2, 2]
    assert "planning" not in found.terms  # in one paper only


def test_nested_phrases_bursting_together_are_listed_once():
    from papertopics.changes.bursts import Burst

    terms = np.array(
        ["language models", "large language models", "language", "robustness", "llms", "gans"], dtype=object
    )
    bursts = [
        (Burst(1, 3, 4, 9.0, 0.0), 0.0),
        (Burst(0, 3, 4, 8.0, 0.0), 0.0),
        (Burst(2, 0, 1, 7.0, 0.0), 0.0),
    ]
    bursts.append((Burst(3, 3, 4, 5.0, 0.0), 0.0))
    # The initials of a phrase bursting at the same time are that phrase ("llms"); others' are not.
    bursts += [(Burst(4, 4, 4, 6.0, 0.0), 0.0), (Burst(5, 4, 4, 4.0, 0.0), 0.0)]
    kept = without_nested(bursts, terms)
    assert [terms[b.term] for b, _ in kept] == ["large language models", "language", "robustness", "gans"]


def test_a_word_spread_as_the_corpus_is_has_no_concentration_and_a_topic_term_has_much():
    import scipy.sparse as sp
    from papertopics.changes.bursts import topic_concentration

    rng = np.random.default_rng(3)
    topics = rng.choice(20, size=2000)
    style = rng.random(2000) < 0.05  # a word of the period's style: any topic alike
    field = (topics == 4) & (rng.random(2000) < 0.5)  # a research term: half of topic 4's papers
    holds = sp.csr_matrix(np.column_stack([style, field]).astype(np.int8))
    concentration = topic_concentration(holds, topics)
    assert abs(concentration[0]) < 0.05
    assert concentration[1] > 0.6  # DP 0.95 (all in a 5% topic), less about 0.26 expected for 50 papers
