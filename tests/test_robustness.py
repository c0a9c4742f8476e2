"""The robustness stage's parts: replicates drawn, the neighbour graph restricted to them, each
topic's best match and stability, and the grades said in the report.
"""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from papertopics.mapping.cluster import OUTLIER
from papertopics.mapping.reduce import exact_neighbours
from papertopics.report.stability_marks import stability_phrase, topic_stability
from papertopics.robustness.findings import FRAGILE, ROBUST, SUPPORTED, robustness_grade
from papertopics.robustness.replicates import replicate_seed, restricted_graph, subsample
from papertopics.robustness.stability import best_matches, stability_grade, trusted


def test_a_replicates_seed_and_sample_depend_on_its_number_alone():
    seeds = [replicate_seed(42, number) for number in range(1, 11)]
    assert len(set(seeds)) == 10
    assert seeds[:3] == [replicate_seed(42, number) for number in range(1, 4)]
    assert replicate_seed(43, 1) != seeds[0]
    rows = subsample(1000, 0.8, seeds[0])
    assert len(rows) == 800 and len(set(rows.tolist())) == 800 and (np.diff(rows) > 0).all()
    assert subsample(1000, 0.8, seeds[0]).tolist() == rows.tolist()
    assert subsample(1000, 0.8, seeds[1]).tolist() != rows.tolist()


def test_the_restricted_graph_keeps_each_papers_nearest_drawn_neighbours_in_order():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(200, 8)).astype(np.float32)
    indices, distances = exact_neighbours(vectors, 15, "cosine")
    rows = subsample(200, 0.8, 7)
    kept, near = restricted_graph(indices, distances, rows, 10)
    assert kept.shape == near.shape == (160, 10)
    # The drawn papers' own exact graph, searched afresh, agrees wherever a row kept ten neighbours.
    fresh, fresh_distances = exact_neighbours(vectors[rows], 10, "cosine")
    full = (kept >= 0).all(axis=1)
    assert full.mean() > 0.9
    assert (kept[full] == fresh[full]).all()
    assert np.allclose(near[full], fresh_distances[full], atol=1e-5)
    # A row short of drawn neighbours marks the rest -1 at its farthest kept neighbour's distance.
    short = ~full
    if short.any():
        row = np.flatnonzero(short)[0]
        missing = kept[row] < 0
        assert np.isfinite(near[row]).all()
        assert (near[row][missing] == near[row][~missing].max()).all()


def test_a_topic_found_again_scores_one_a_merged_or_halved_topic_at_most_a_half():
    # Main run: topics 0 (papers 0-39), 1 (40-79), 2 (80-99); the replicate draws every paper.
    topic_of = np.repeat([0, 1, 2], [40, 40, 20])
    rows = np.arange(100)
    same = topic_of.copy()
    matched, jaccard = best_matches(topic_of, rows, same, [0, 1, 2])
    assert matched.tolist() == [0, 1, 2] and jaccard.tolist() == [1.0, 1.0, 1.0]
    # The replicate merges 0 and 1 and splits 2 in halves, one of them left as outliers.
    merged = np.where(topic_of == 2, OUTLIER, 0)
    merged[90:] = 5
    matched, jaccard = best_matches(topic_of, rows, merged, [0, 1, 2])
    assert jaccard[:2].tolist() == [0.5, 0.5]
    assert matched[2] == 5 and jaccard[2] == pytest.approx(0.5)  # the outliers count against it
    # A main topic made of two of the replicate's (papers 0-79), and one that is half of one (0-19).
    merged_topic = np.where(np.arange(100) < 80, 0, 1)
    half_topic = np.where(np.arange(100) < 20, 0, 1)
    for main in (merged_topic, half_topic):
        _, jaccard = best_matches(main, rows, same, [0])
        assert jaccard[0] == pytest.approx(0.5)


def test_only_the_drawn_papers_count():
    topic_of = np.repeat([0, 1], [50, 50])
    rows = np.arange(0, 100, 2)  # half of each topic drawn
    matched, jaccard = best_matches(topic_of, rows, np.repeat([7, 8], [25, 25]), [0, 1])
    assert matched.tolist() == [7, 8] and jaccard.tolist() == [1.0, 1.0]
    matched, jaccard = best_matches(topic_of, rows, np.full(50, OUTLIER), [0, 1])
    assert matched.tolist() == [OUTLIER, OUTLIER] and jaccard.tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    ("value", "grade", "is_trusted"),
    [
        (0.9, "highly stable", True),
        (0.85, "highly stable", True),
        (0.8, "stable", True),
        (0.7, "doubtful", True),
        (0.55, "not to be trusted", False),
        (0.5, "dissolved", False),
        (None, "", True),
    ],
)
def test_grades_follow_clusterboots_cut_offs(value, grade, is_trusted):
    assert stability_grade(value) == grade
    assert trusted(value) is is_trusted


def test_the_report_reads_the_stability_and_says_when_a_topic_is_not_to_be_trusted():
    topics = pd.DataFrame(
        {
            "id": [-1, 0, 1],
            "stability": ["", 0.81, 0.42],
            "stability_grade": ["", "stable", "dissolved"],
            "replicates": [10, 10, 10],
        }
    )
    found = topic_stability(topics)
    assert set(found) == {0, 1}
    assert stability_phrase(found[0]) == "stability 0.81, stable (10 resamples)"
    assert stability_phrase(found[1]) == "stability 0.42, dissolved (10 resamples): not to be trusted"
    assert topic_stability(topics.drop(columns=["stability"])) == {}
    assert topic_stability(topics.assign(stability="")) == {}


def _compare_settings():
    from papertopics.settings import CompareSettings
    from workflow_support import default_config

    return CompareSettings(**default_config()["compare"])


def _year_periods(years: np.ndarray):
    from papertopics.periods.assign import Periods

    names = sorted(set(years.tolist()))
    return Periods(
        by="year", names=names, rows=np.arange(len(years)), period=years.astype(object), left_out=0
    )


@pytest.mark.parametrize(
    ("holds", "stability", "grade"),
    [
        (8, 0.8, ROBUST),
        (10, 0.7, SUPPORTED),  # held every time, but its topic only doubtful
        (5, 0.9, SUPPORTED),
        (4, 0.9, FRAGILE),
        (10, 0.55, FRAGILE),  # its topic not to be trusted
    ],
)
def test_a_findings_grade_needs_its_replicates_and_its_topic(holds, stability, grade):
    assert robustness_grade(holds, 10, stability) == grade
    assert robustness_grade(0, 0, stability) == ""


def test_a_planted_trend_holds_in_every_replicate_that_finds_its_topic_and_shuffled_years_in_none():
    from papertopics.robustness.findings import Replicate, count_holds
    from papertopics.robustness.retests import replicate_trends

    rng = np.random.default_rng(3)
    papers = 1200
    topic_of = np.repeat(np.arange(6), 200)
    years = rng.choice(["2020", "2021", "2022", "2023", "2024"], size=papers)
    # Topic 0 rises: its papers drawn towards the later years.
    later = rng.choice(["2020", "2021", "2022", "2023", "2024"], size=200, p=[0.05, 0.1, 0.2, 0.3, 0.35])
    years[topic_of == 0] = later
    periods = _year_periods(years)
    tested = sorted(set(years.tolist()))
    settings = _compare_settings()
    findings = pd.DataFrame({"topic": [0, 1], "direction": ["rising", "rising"]})

    def replicates(match):
        drawn = []
        for number in range(1, 6):
            rows = subsample(papers, 0.8, number)
            # The replicate numbers its topics its own way (10 + the main run's).
            drawn.append(
                Replicate(
                    rows=rows, labels=topic_of[rows] + 10, outlier=np.zeros(len(rows), bool), match=match
                )
            )
        return drawn

    def retest(replicate):
        return replicate_trends(replicate, periods, tested, settings)

    everywhere = {topic: topic + 10 for topic in range(6)}
    holds, counted = count_holds(findings, replicates(everywhere), retest)
    assert counted == 5 and holds.tolist() == [5, 0]
    # Unmatched in a replicate, it cannot hold there; nor with the other direction.
    holds, _ = count_holds(findings, replicates({1: 11}), retest)
    assert holds.tolist() == [0, 0]
    holds, _ = count_holds(findings.assign(direction="falling"), replicates(everywhere), retest)
    assert holds.tolist() == [0, 0]
    # Years shuffled across the papers: nothing rises, in any replicate.
    periods = _year_periods(rng.permutation(years))
    holds, _ = count_holds(findings, replicates(everywhere), retest)
    assert holds.tolist() == [0, 0]


def test_the_drawn_papers_keep_their_periods():
    from papertopics.robustness.retests import drawn_periods

    years = np.array(["2020", "2021", "2022", "2023"] * 5, dtype=object)
    rows = np.array([1, 2, 5, 19])
    drawn = drawn_periods(_year_periods(years), rows)
    assert drawn.rows.tolist() == [0, 1, 2, 3]
    assert drawn.period.tolist() == ["2021", "2022", "2021", "2023"]


def test_a_topics_low_acceptance_holds_in_the_replicates_and_shuffled_decisions_do_not():
    from papertopics.reception.table import ReceptionSettings, TopicPapers, reception_table
    from papertopics.reception.values import ReceptionValues
    from papertopics.robustness.findings import Replicate, count_holds
    from papertopics.robustness.retests import replicate_reception

    rng = np.random.default_rng(5)
    papers = 800
    topic_of = np.repeat(np.arange(4), 200)
    accepted = rng.random(papers) < np.where(topic_of == 0, 0.12, 0.35)  # topic 0 rejected far more
    decisions = np.where(accepted, "Accept", "Reject").astype(object)
    nothing = np.full(papers, np.nan)
    found = TopicPapers(
        topic_of,
        np.zeros(papers, dtype=int),
        np.full(papers, "2024", dtype=object),
        (0, 1, 2, 3),
        ("a", "b", "c", "d"),
    )
    settings = ReceptionSettings(("accept",), 10, 0.95, 0.05, 0.25)
    main = reception_table(
        found, ReceptionValues(decisions, nothing, nothing, nothing, ()), settings, describe=False
    )
    finding = main[(main["topic"] == 0) & (main["evidence"] == "significant")]
    assert finding["direction"].tolist() == ["lower"]
    replicates = []
    for number in range(1, 6):
        rows = subsample(papers, 0.8, number)
        replicates.append(
            Replicate(
                rows=rows,
                labels=topic_of[rows] + 20,
                outlier=np.zeros(len(rows), bool),
                match={t: t + 20 for t in range(4)},
            )
        )

    def held(decided):
        values = ReceptionValues(decided, nothing, nothing, nothing, ())
        return count_holds(
            finding,
            replicates,
            lambda r: replicate_reception(r, found, values, settings),
            ("measure", "outcome"),
        )[0][0]

    assert held(decisions) == 5
    assert held(rng.permutation(decisions)) == 0


def test_the_grades_columns_follow_the_column_named_or_come_last():
    from papertopics.robustness.findings import with_robustness

    table = pd.DataFrame({"topic": [0, 1], "finding": [True, False], "share 2024": [0.1, 0.2]})
    graded = with_robustness(table, np.array([9, 2]), 10, {0: 0.8, 1: 0.9}, table["finding"], after="finding")
    assert graded.columns.tolist() == ["topic", "finding", "holds", "replicates", "robustness", "share 2024"]
    assert graded["robustness"].tolist() == [ROBUST, ""]
    assert with_robustness(table, np.array([9, 2]), 10, {}, [True, True]).columns[-1] == "robustness"


def _relabelled_replicates(topic_of: np.ndarray, offset: int, count: int = 5):
    """``count`` replicates of 80% of the papers that find every topic again, numbered ``offset`` up."""
    from papertopics.robustness.findings import Replicate

    drawn = []
    for number in range(1, count + 1):
        rows = subsample(len(topic_of), 0.8, number)
        match = {int(t): int(t) + offset for t in np.unique(topic_of)}
        drawn.append(
            Replicate(
                rows=rows, labels=topic_of[rows] + offset, outlier=np.zeros(len(rows), bool), match=match
            )
        )
    return drawn


def _people_tested(countries: np.ndarray, years: np.ndarray):
    from papertopics.people.authorship import people_table
    from papertopics.people.trends import GradingLevels
    from papertopics.robustness.retests import people_tested

    papers = pd.DataFrame({"year": years, "countries": countries})
    long = people_table(papers, {"author": None, "institution": None, "country": "countries"})
    return people_tested(long, _year_periods(years), 5, GradingLevels(0.95, 0.05, 0.25))


def test_a_planted_rise_of_a_country_in_a_topic_holds_in_the_replicates_and_shuffled_countries_do_not():
    from papertopics.people.trends import rising
    from papertopics.robustness.findings import count_holds
    from papertopics.robustness.retests import replicate_rising

    rng = np.random.default_rng(3)
    year_names = ["2021", "2022", "2023", "2024"]
    years = np.repeat(year_names, 500).astype(object)
    topic_of = np.tile(np.repeat(np.arange(10), 50), 4)
    countries = rng.choice(["United States", "China", "Germany"], size=len(years), p=[0.45, 0.35, 0.2])
    countries = countries.astype(object)
    # In topic 0, France goes from 10% (5 of 50 papers) to 70% (35 of 50); elsewhere it holds 10%.
    france = rng.random(len(years)) < 0.1
    countries[france & (topic_of != 0)] = "France"
    for step, year in enumerate(year_names):
        countries[np.nonzero((years == year) & (topic_of == 0))[0][: 5 + 10 * step]] = "France"
    people = _people_tested(countries, years)
    labels = {number: f"topic {number}" for number in range(10)}
    main = rising(people.long, topic_of, people.periods, labels, 5, people.levels)
    finding = main[(main["grade"] == "significant") & (main["name"] == "France")]
    assert finding[["topic", "direction"]].values.tolist() == [[0, "rising"]]
    replicates = _relabelled_replicates(topic_of, 30)

    def held(tested):
        return count_holds(finding, replicates, lambda r: replicate_rising(r, tested), ("kind", "name"))[0]

    assert held(people).tolist() == [5]
    assert held(_people_tested(rng.permutation(countries), years)).tolist() == [0]
    # Unmatched in every replicate, it holds in none.
    unmatched = [replace(r, match={}) for r in replicates]
    assert count_holds(finding, unmatched, lambda r: replicate_rising(r, people), ("kind", "name"))[0] == [0]


def test_a_country_planted_in_a_topic_is_over_represented_in_the_replicates_and_shuffled_in_none():
    from papertopics.people.trends import over_represented
    from papertopics.robustness.findings import count_holds
    from papertopics.robustness.retests import replicate_over_represented

    rng = np.random.default_rng(7)
    topic_of = np.repeat(np.arange(8), 100)
    countries = rng.choice(["United States", "China", "Germany", "France"], size=800, p=[0.4, 0.3, 0.2, 0.1])
    countries = countries.astype(object)
    countries[topic_of == 2] = rng.choice(
        ["France", "China"], size=100, p=[0.5, 0.5]
    )  # France: 5 times its share
    years = np.full(800, "2024", dtype=object)
    people = _people_tested(countries, years)
    labels = {number: str(number) for number in range(8)}
    main = over_represented(people.long, topic_of, labels, 5, people.levels)
    finding = main[(main["grade"] == "significant") & (main["name"] == "France") & (main["topic"] == 2)]
    assert finding["direction"].tolist() == ["over"]
    replicates = _relabelled_replicates(topic_of, 50)

    def held(tested):
        return count_holds(
            finding, replicates, lambda r: replicate_over_represented(r, tested), ("kind", "name")
        )[0]

    assert held(people).tolist() == [5]
    assert held(_people_tested(rng.permutation(countries), years)).tolist() == [0]


def test_a_replicate_names_a_person_as_the_main_run_spells_them():
    from papertopics.people.authorship import people_table
    from papertopics.people.trends import GradingLevels
    from papertopics.robustness.retests import people_tested

    # Two spellings of one institution; the main run shows the one most papers use.
    papers = pd.DataFrame({"institutions": ["MIT"] * 3 + ["mit"] * 2})
    long = people_table(papers, {"author": None, "institution": "institutions", "country": None})
    years = np.full(5, "2024", dtype=object)
    tested = people_tested(long, _year_periods(years), 1, GradingLevels(0.95, 0.05, 0.25))
    assert tested.long["name"].tolist() == ["MIT"] * 5


def _venue_groups(venues: np.ndarray):
    from papertopics.periods.assign import Periods

    return Periods(
        by="venue",
        names=sorted(set(venues.tolist())),
        rows=np.arange(len(venues)),
        period=venues,
        left_out=0,
        ordered=False,
    )


def test_a_venue_planted_to_hold_more_of_a_topic_does_so_in_the_replicates_and_shuffled_venues_do_not():
    from papertopics.changes.venues import compare_groups
    from papertopics.people.trends import GradingLevels
    from papertopics.robustness.findings import count_holds
    from papertopics.robustness.retests import replicate_venues

    rng = np.random.default_rng(11)
    topic_of = np.repeat(np.arange(6), 150)
    venues = rng.choice(["ACL", "ICML", "NeurIPS"], size=900).astype(object)
    venues[topic_of == 4] = rng.choice(["ACL", "ICML", "NeurIPS"], size=150, p=[0.8, 0.1, 0.1])
    levels = GradingLevels(0.95, 0.05, 0.25)
    clustered = np.ones(900, bool)
    labels = {number: str(number) for number in range(6)}
    main = compare_groups(topic_of, clustered, _venue_groups(venues), labels, 0.95, 0.05, 0.25)
    finding = main[(main["grade"] == "significant") & (main["venue"] == "ACL") & (main["topic"] == 4)]
    assert finding["direction"].tolist() == ["over"]
    replicates = _relabelled_replicates(topic_of, 70)

    def held(groups):
        return count_holds(finding, replicates, lambda r: replicate_venues(r, groups, levels), ("venue",))[0]

    assert held(_venue_groups(venues)).tolist() == [5]
    assert held(_venue_groups(rng.permutation(venues))).tolist() == [0]
    # The papers a replicate left as outliers are not counted: all of them outliers, nothing holds.
    outliers = [replace(r, outlier=np.ones(len(r.rows), bool)) for r in replicates]
    held_by_outliers = count_holds(
        finding, outliers, lambda r: replicate_venues(r, _venue_groups(venues), levels), ("venue",)
    )[0]
    assert held_by_outliers.tolist() == [0]


def test_a_planted_change_since_the_period_before_holds_in_the_replicates_and_shuffled_years_in_none():
    from papertopics.robustness.findings import count_holds
    from papertopics.robustness.retests import replicate_comparison

    rng = np.random.default_rng(5)
    topic_of = np.repeat(np.arange(6), 200)
    years = rng.choice(["2023", "2024"], size=len(topic_of))
    # Topic 0 grows from 2023 to 2024: four in five of its papers are from 2024.
    years[topic_of == 0] = rng.choice(["2023", "2024"], size=200, p=[0.2, 0.8])
    settings = _compare_settings()
    findings = pd.DataFrame({"topic": [0, 0, 1], "direction": ["rising", "falling", "rising"]})

    def holds(periods, replicates):
        found, counted = count_holds(
            findings,
            replicates,
            lambda replicate: replicate_comparison(replicate, periods, "2023", "2024", settings),
        )
        assert counted == len(replicates)
        return found.tolist()

    assert holds(_year_periods(years), _relabelled_replicates(topic_of, 10)) == [5, 0, 0]
    # A replicate that does not find the topic cannot hold it.
    unmatched = [replace(r, match={}) for r in _relabelled_replicates(topic_of, 10)]
    assert holds(_year_periods(years), unmatched) == [0, 0, 0]
    # Years shuffled across the papers: no topic's share moves beyond chance in any replicate.
    assert holds(_year_periods(rng.permutation(years)), _relabelled_replicates(topic_of, 10)) == [0, 0, 0]


def test_the_comparison_is_re_tested_only_where_the_changes_stage_tested_it():
    from papertopics.robustness.retests import COMPARISON_COLUMNS, comparison_findings

    row = {
        "topic": 3,
        "label": "graphs",
        "baseline_clustered_papers": 4,
        "target_clustered_papers": 20,
        "baseline_clustered_share": 0.04,
        "target_clustered_share": 0.2,
        "change_pp": 16.0,
        "change_low_pp": 8.0,
        "change_high_pp": 24.0,
        "p_value": 0.001,
        "q_value": 0.004,
        "grade": "significant",
        "target_papers": 22,
    }
    changes = {"comparable": True, "tested": True, "baseline": "2023", "target": "2024"}
    found = comparison_findings({**changes, "comparison": [row, {**row, "topic": 4, "change_pp": -2.0}]})
    assert found.columns.tolist() == COMPARISON_COLUMNS
    assert found["direction"].tolist() == ["rising", "falling"]
    assert found[["baseline", "target"]].iloc[0].tolist() == ["2023", "2024"]
    assert comparison_findings({**changes, "tested": False, "comparison": [row]}).empty
    assert comparison_findings({"comparable": False}).empty


def _burst_texts(rng, topic_of: np.ndarray, years: np.ndarray) -> list[str]:
    """Each paper its topic's words and two common ones; topic 0's papers of 2023 and 2024 about
    "quantum annealing" too.
    """
    common = ["method", "results", "approach", "analysis", "evaluation", "framework", "setting"]
    texts = []
    for topic, year in zip(topic_of.tolist(), years.tolist(), strict=True):
        words = [f"alpha{topic}", f"beta{topic}", *rng.choice(common, size=2, replace=False)]
        if topic == 0 and year in {"2023", "2024"}:
            words.append("quantum annealing")
        texts.append(". ".join(words))
    return texts


def test_a_terms_burst_in_a_topic_holds_in_the_replicates_and_shuffled_texts_in_none():
    from papertopics.changes.signals import term_bursts
    from papertopics.robustness.findings import count_holds
    from papertopics.robustness.retests import BurstsTested, burst_findings, replicate_bursts

    rng = np.random.default_rng(7)
    topic_of = np.repeat(np.arange(6), 200)
    years = rng.choice(["2020", "2021", "2022", "2023", "2024"], size=len(topic_of))
    texts = _burst_texts(rng, topic_of, years)
    periods = _year_periods(years)
    tested = sorted(set(years.tolist()))
    settings = _compare_settings()
    labels = {t: f"topic {t}" for t in range(6)}
    main = term_bursts(texts, pd.DataFrame({"topic": topic_of}), periods, tested, labels, settings, "english")
    findings = burst_findings(main)
    planted = findings[findings["term"] == "quantum annealing"]
    assert planted[["topic", "start"]].values.tolist() == [[0, "2023"]]
    by = ("term", "start")

    def holds(found: BurstsTested, replicates) -> list[int]:
        counted, drawn = count_holds(planted, replicates, lambda r: replicate_bursts(r, found), by)
        assert drawn == len(replicates)
        return counted.tolist()

    found = BurstsTested(texts, periods, tested, settings, "english")
    assert holds(found, _relabelled_replicates(topic_of, 10)) == [5]
    # In a replicate that does not find topic 0, the burst is no finding about it.
    assert holds(found, [replace(r, match={}) for r in _relabelled_replicates(topic_of, 10)]) == [0]
    # The texts shuffled across the papers: no term bursts in a topic, in any replicate.
    shuffled = [texts[i] for i in rng.permutation(len(texts))]
    assert holds(replace(found, texts=shuffled), _relabelled_replicates(topic_of, 10)) == [0]


def test_the_stage_grades_each_burst_of_bursts_csv_by_its_leading_topic(tmp_path):
    from types import SimpleNamespace

    from papertopics import storage
    from papertopics.changes.signals import term_bursts
    from papertopics.changes.tables import burst_table
    from papertopics.robustness.finding_kinds import Graded, bursts_graded
    from papertopics.settings import FindingSettings
    from workflow_support import default_config

    rng = np.random.default_rng(7)
    topic_of = np.repeat(np.arange(6), 200)
    years = rng.choice(["2020", "2021", "2022", "2023", "2024"], size=len(topic_of))
    texts = _burst_texts(rng, topic_of, years)
    periods = _year_periods(years)
    settings = FindingSettings.from_config(default_config())
    labels = {t: f"topic {t}" for t in range(6)}
    bursts = term_bursts(
        texts,
        pd.DataFrame({"topic": topic_of}),
        periods,
        periods.names,
        labels,
        settings,
        settings.stop_words,
    )
    ids = [f"p{i}" for i in range(len(texts))]
    inputs = SimpleNamespace(
        changes=tmp_path / "changes.json",
        found_bursts=tmp_path / "bursts.csv",
        papers=tmp_path / "papers.jsonl",
    )
    storage.write_json(inputs.changes, {"bursts": bursts})
    storage.write_csv(inputs.found_bursts, burst_table({"bursts": bursts}))
    storage.write_jsonl(inputs.papers, [{"id": i, "text": t} for i, t in zip(ids, texts, strict=True)])
    stability = {t: 0.9 for t in range(6)}
    graded = Graded(
        pd.DataFrame({"id": ids}), _relabelled_replicates(topic_of, 10), stability, settings, periods, None
    )
    table = bursts_graded(inputs, graded)
    planted = table[table["term"] == "quantum annealing"].iloc[0]
    assert (planted["topic"], planted["holds"], planted["replicates"]) == (0, 5, 5)
    assert planted["robustness"] == ROBUST
    assert table.columns.tolist()[-4:] == ["topics", "holds", "replicates", "robustness"]


def test_a_planted_peak_holds_its_shape_in_the_replicates_and_shuffled_years_in_none():
    from papertopics.changes.trajectories import PEAKED, planted_shares
    from papertopics.robustness.findings import count_holds
    from papertopics.robustness.retests import replicate_trends, trajectory_findings

    # Nine years of 300 papers; topic 0 rises from 5% to 25% of them and falls back.
    names = [str(year) for year in range(2016, 2025)]
    topic_of, years = [], []
    for name, share in zip(names, planted_shares(PEAKED, len(names), 0.05, 0.25), strict=True):
        planted = round(300 * share)
        topic_of += [0] * planted + [1 + i % 5 for i in range(300 - planted)]
        years += [name] * 300
    topic_of, years = np.array(topic_of), np.array(years, dtype=object)
    settings = _compare_settings()
    findings = pd.DataFrame({"topic": [0, 0, 1], "shape": [PEAKED, "rising", PEAKED]})

    def holds(periods, replicates) -> list[int]:
        counted, drawn = count_holds(
            trajectory_findings(findings),
            replicates,
            lambda r: trajectory_findings(replicate_trends(r, periods, names, settings)),
        )
        assert drawn == len(replicates)
        return counted.tolist()

    assert holds(_year_periods(years), _relabelled_replicates(topic_of, 10)) == [5, 0, 0]
    unmatched = [replace(r, match={}) for r in _relabelled_replicates(topic_of, 10)]
    assert holds(_year_periods(years), unmatched) == [0, 0, 0]
    shuffled = _year_periods(np.random.default_rng(11).permutation(years))
    assert holds(shuffled, _relabelled_replicates(topic_of, 10)) == [0, 0, 0]


def test_a_topics_changed_acceptance_across_years_holds_in_the_replicates_and_shuffled_in_none():
    from papertopics.reception.table import ReceptionSettings, TopicPapers
    from papertopics.reception.values import ReceptionValues
    from papertopics.reception.years import year_rows
    from papertopics.robustness.findings import count_holds
    from papertopics.robustness.retests import replicate_year_changes, year_change_findings

    rng = np.random.default_rng(13)
    topic_of = np.repeat(np.arange(10), 300)
    years = rng.choice(["2022", "2023", "2024"], size=len(topic_of)).astype(object)
    # Topic 0 was accepted at 60% in 2022 and 10% in 2024; each of the nine others at 30% throughout.
    rate = np.where(topic_of == 0, np.select([years == "2022", years == "2023"], [0.6, 0.35], 0.1), 0.3)
    decisions = np.where(rng.random(len(topic_of)) < rate, "Accept", "Reject").astype(object)
    nothing = np.full(len(topic_of), np.nan)
    pools = pd.factorize(years, sort=True)[0]  # one venue a year
    found = TopicPapers(topic_of, pools, years, tuple(range(10)), tuple("abcdefghij"))
    settings = ReceptionSettings(("accept",), 10, 0.95, 0.05, 0.25)
    main = year_change_findings(
        year_rows(found, ReceptionValues(decisions, nothing, nothing, nothing, ()), settings)
    ).drop_duplicates("topic")
    finding = main[main["grade"] == "significant"]
    assert finding["topic"].tolist() == [0]

    def held(decided, replicates) -> list[int]:
        values = ReceptionValues(decided, nothing, nothing, nothing, ())
        counted, _ = count_holds(
            finding, replicates, lambda r: replicate_year_changes(r, found, values, settings)
        )
        return counted.tolist()

    assert held(decisions, _relabelled_replicates(topic_of, 20)) == [5]
    assert held(decisions, [replace(r, match={}) for r in _relabelled_replicates(topic_of, 20)]) == [0]
    assert held(rng.permutation(decisions), _relabelled_replicates(topic_of, 20)) == [0]


def test_a_trend_planted_in_one_venue_holds_there_in_the_replicates_and_shuffled_years_in_none():
    from papertopics.changes.venue_trends import describe_venue_trends
    from papertopics.robustness.findings import count_holds
    from papertopics.robustness.retests import replicate_venue_trends

    rng = np.random.default_rng(17)
    topic_of = np.repeat(np.arange(6), 300)
    venues = rng.choice(["A", "B"], size=len(topic_of)).astype(object)
    names = ["2020", "2021", "2022", "2023", "2024"]
    years = rng.choice(names, size=len(topic_of)).astype(object)
    # At venue A, topic 0's papers are drawn towards the later years; at B it is as any topic.
    in_a = (topic_of == 0) & (venues == "A")
    years[in_a] = rng.choice(names, size=in_a.sum(), p=[0.04, 0.08, 0.18, 0.3, 0.4])
    settings = _compare_settings()
    labels = {t: f"topic {t}" for t in range(6)}
    clustered = np.ones(len(topic_of), bool)
    main, _ = describe_venue_trends(
        topic_of, clustered, _year_periods(years), _venue_groups(venues), labels, settings
    )
    found = main[main["finding"]]
    assert found[["venue", "topic", "direction"]].values.tolist() == [["A", 0, "rising"]]

    def held(year_of, replicates) -> list[int]:
        periods, groups = _year_periods(year_of), _venue_groups(venues)
        counted, _ = count_holds(
            found, replicates, lambda r: replicate_venue_trends(r, periods, groups, settings), ("venue",)
        )
        return counted.tolist()

    assert held(years, _relabelled_replicates(topic_of, 30)) == [5]
    assert held(years, [replace(r, match={}) for r in _relabelled_replicates(topic_of, 30)]) == [0]
    assert held(rng.permutation(years), _relabelled_replicates(topic_of, 30)) == [0]


def test_a_kept_retest_is_found_again_only_for_the_same_inputs_and_replicate(tmp_path):
    from papertopics.robustness.findings import Replicate
    from papertopics.robustness.retest_cache import RetestCache

    computed = []

    def retest(replicate):
        computed.append(len(replicate.rows))
        return pd.DataFrame({"topic": [3], "name": ["1"], "direction": ["rising"], "grade": ["significant"]})

    first = Replicate(np.arange(5), np.array([3, 3, 4, 4, -1]), np.zeros(5, bool), {})
    other = replace(first, labels=np.array([3, 4, 4, 4, -1]))
    cache = RetestCache(tmp_path, "scope")
    table = cache.table("people_rising", "inputs", first, retest)
    again = RetestCache(tmp_path, "scope")
    kept = again.table("people_rising", "inputs", first, retest)
    assert len(computed) == 1
    pd.testing.assert_frame_equal(kept, table)
    assert kept["name"].tolist() == ["1"]  # a name that reads as a number stays text
    again.table("people_rising", "other inputs", first, retest)
    again.table("people_rising", "inputs", other, retest)
    RetestCache(tmp_path, "other code").table("people_rising", "inputs", first, retest)
    assert len(computed) == 4
    again.prune()  # the other code's table was not used by this job
    assert len(list(tmp_path.glob("*.json"))) == 3


def test_the_reception_retest_by_families_is_the_retest_of_all():
    from papertopics.reception.table import ReceptionSettings, TopicPapers
    from papertopics.reception.values import ReceptionValues
    from papertopics.robustness.findings import Replicate
    from papertopics.robustness.retests import DECISION_FAMILIES, VALUE_FAMILIES, replicate_reception

    rng = np.random.default_rng(8)
    papers = 600
    topic_of = np.repeat(np.arange(4), 150)
    decisions = np.where(rng.random(papers) < np.where(topic_of == 1, 0.1, 0.4), "Accept", "Reject")
    ratings = rng.normal(5 + (topic_of == 2), 1)
    citations = rng.poisson(np.where(topic_of == 3, 20, 5)).astype(float)
    years = rng.choice(["2023", "2024"], papers).astype(object)
    found = TopicPapers(topic_of, rng.integers(0, 2, papers), years, (0, 1, 2, 3), ("a", "b", "c", "d"))
    values = ReceptionValues(decisions.astype(object), ratings, np.zeros(papers), citations, ())
    settings = ReceptionSettings(("accept",), 10, 0.95, 0.05, 0.25)
    rows = subsample(papers, 0.8, 1)
    replicate = Replicate(rows, topic_of[rows], np.zeros(len(rows), bool), {t: t for t in range(4)})
    whole = replicate_reception(replicate, found, values, settings)
    parts = [
        replicate_reception(replicate, found, values, settings, (f,))
        for f in DECISION_FAMILIES + VALUE_FAMILIES
    ]
    assert (whole["grade"] == "significant").sum() >= 3
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole, check_dtype=False)
