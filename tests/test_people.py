"""Who works on each topic: authors, institutions and countries read from every export that
carries them, counted fractionally, and the experts and rises per topic.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import REPO
from papertopics.errors import PipelineInputError
from papertopics.ingest.affiliations import institution_key, normalise_country
from papertopics.ingest.parse import input_columns, parse_dump
from papertopics.people.authorship import experts, people_columns, people_table, top_names
from papertopics.people.trends import GradingLevels, excess_trend, rising
from papertopics.periods.assign import paper_periods
from papertopics.settings import PeopleSettings

FIXTURES = REPO / "tests" / "data" / "people"
FILES = [
    "wos_people.txt",
    "scopus_people.csv",
    "openalex_people.json",
    "pubmed_people.nbib",
    "openreview_people.jsonl",
]
SETTINGS = PeopleSettings(
    in_report=True,
    top=10,
    experts=20,
    min_papers=1,
    affiliation_column=None,
    country_column=None,
    confidence=0.95,
    false_discovery_rate=0.05,
    suggestive_q=0.25,
)
LEVELS = GradingLevels(confidence=0.95, false_discovery_rate=0.05, suggestive_q=0.25)
LEVELS_KNOBS = {"confidence": 0.95, "false_discovery_rate": 0.05, "suggestive_q": 0.25}

# Counted by hand from the five files (each paper one unit, split equally across the entries of
# its authors whom the export places; an author at several addresses counts at the first):
#   WoS 1: Tsinghua/China 1/3, Stanford/USA 2/3.  WoS 2: Oxford/England 1 (Brown and Li at Oxford first).
#   Scopus 1: TU Munich/Germany 1/2, Peking/China 1/2.
#   Scopus 2: Stanford/United States 1/3, Oxford/United Kingdom 1/3, Google Research/United States 1/3.
#   OpenAlex 1: Stanford/US 1/2, Tsinghua/CN 1/2.  OpenAlex 2: Oxford 1 (the only institution); GB 1/2, DE 1/2.
#   PubMed 1: Stanford/U.S.A. 1/2, Charite/Germany 1/2.  PubMed 2: Peking/China 1.
#   OpenReview 1: Stanford/United States 1/2, Tsinghua/China 1/2 (the third author has none).
#   OpenReview 2: TU Munich/DEU 1/2, Oxford/UK 1/2.
HAND_COUNT = {
    ("country", "United States"): 2 / 3 + 2 / 3 + 1 / 2 + 1 / 2 + 1 / 2,
    ("country", "China"): 1 / 3 + 1 / 2 + 1 / 2 + 1 + 1 / 2,
    ("country", "United Kingdom"): 1 + 1 / 3 + 1 / 2 + 1 / 2,
    ("country", "Germany"): 1 / 2 + 1 / 2 + 1 / 2 + 1 / 2,
    ("institution", "stanford university"): 2 / 3 + 1 / 3 + 1 / 2 + 1 / 2 + 1 / 2,
    ("institution", "tsinghua university"): 1 / 3 + 1 / 2 + 1 / 2,
    ("institution", "university oxford"): 1 + 1 / 3 + 1 + 1 / 2,
    ("institution", "technical university munich"): 1 / 2 + 1 / 2,
    ("institution", "peking university"): 1 / 2 + 1,
    ("institution", "google research"): 1 / 3,
    ("institution", "charite universitatsmedizin berlin"): 1 / 2,
}


def fixture_papers() -> pd.DataFrame:
    """The five files parsed as the pipeline parses them, as the paper table's columns."""
    papers = [paper for name in FILES for paper in parse_dump(FIXTURES / name, 20).papers]
    table = pd.DataFrame(input_columns(papers, reserved={"id"}))
    table.insert(0, "id", [paper["id"] for paper in papers])
    return table


def test_every_country_is_written_three_ways_in_the_fixture_and_read_as_one():
    spellings = {
        "United States": ["USA", "United States", "US", "U.S.A."],
        "China": ["Peoples R China", "China", "CN"],
        "United Kingdom": ["England", "United Kingdom", "GB", "UK"],
        "Germany": ["Germany", "DE", "DEU"],
    }
    text = "".join((FIXTURES / name).read_text(encoding="utf-8") for name in FILES)
    for country, written in spellings.items():
        assert all(spelling in text for spelling in written), country
        assert {normalise_country(spelling) for spelling in written} == {country}
    assert normalise_country("Atlantis") is None and normalise_country("") is None


def test_each_export_gives_each_placed_author_an_institution_and_a_country():
    papers = fixture_papers().set_index("title")
    wos = papers.loc["Sparse attention for long document retrieval"]
    assert wos["affiliations"] == "Tsinghua Univ; Stanford Univ; Stanford Univ"
    assert wos["countries"] == "China; United States; United States"
    scopus = papers.loc["Instruction tuning small language models with synthetic dialogues"]
    assert scopus["affiliations"] == "Stanford University; University of Oxford; Google Research"
    pubmed = papers.loc["Predicting sepsis from routine vital signs with a recurrent network."]
    assert (
        pubmed["affiliations"] == "Stanford University; Charite - Universitatsmedizin Berlin"
    )  # first AD each
    assert pubmed["countries"] == "United States; Germany"
    openalex = papers.loc["Fair ranking of job candidates with noisy group labels"]
    assert (openalex["affiliations"], openalex["countries"]) == (
        "University of Oxford",
        "United Kingdom; Germany",
    )


def test_fractional_counts_of_institutions_and_countries_equal_the_hand_count():
    papers = fixture_papers()
    assert len(papers) == 10
    long = people_table(papers, people_columns(list(papers.columns), SETTINGS))
    counted = long[long["kind"] != "author"].groupby(["kind", "key"])["weight"].sum()
    countries = long[long["kind"] == "country"].groupby("name")["weight"].sum()
    by_name = {("country", name): value for name, value in countries.items()}
    institutions = {key: value for key, value in counted.items() if key[0] == "institution"}
    assert {**by_name, **institutions} == pytest.approx(HAND_COUNT)
    # Every paper is one unit of each kind it carries.
    assert long.groupby(["kind", "row"])["weight"].sum().to_numpy() == pytest.approx(1.0)


def test_institution_variants_are_grouped_conservatively():
    assert (
        institution_key("Univ. of Oxford") == institution_key("University of Oxford") == "university oxford"
    )
    assert institution_key("STANFORD UNIV") == institution_key("Stanford University")
    assert institution_key("Oxford Brookes University") != institution_key("University of Oxford")
    assert institution_key("MIT") != institution_key(
        "Massachusetts Institute of Technology"
    )  # nothing fuzzier


def test_columns_named_in_the_config_are_read_and_a_missing_one_is_named():
    papers = pd.DataFrame({"Author Names": ["A; B"], "Org": ["Univ X; Univ Y"], "Nation": ["FR; Italy"]})
    named = PeopleSettings(True, 10, 20, 1, affiliation_column="org", country_column="Nation", **LEVELS_KNOBS)
    assert people_columns(list(papers.columns), named) == {
        "author": "Author Names",
        "institution": "Org",
        "country": "Nation",
    }
    long = people_table(papers, people_columns(list(papers.columns), named))
    assert sorted(long.loc[long["kind"] == "country", "name"]) == ["France", "Italy"]
    wrong = PeopleSettings(
        True, 10, 20, 1, affiliation_column="institution_names", country_column=None, **LEVELS_KNOBS
    )
    with pytest.raises(
        PipelineInputError, match=r"people.affiliation_column is 'institution_names' .*Org, Nation"
    ):
        people_columns(list(papers.columns), wrong, source="data/raw/x.csv")


def test_placeholders_and_blanks_are_no_entries():
    papers = pd.DataFrame(
        {
            "authors": ["A; B; C", "D"],
            "affiliations": ["Univ X; Unknown Institution; ", "N/A"],
            "countries": ["US; ; DE", ""],
        }
    )
    long = people_table(papers, people_columns(list(papers.columns), SETTINGS))
    places = long[long["kind"] == "institution"]
    assert places[["row", "name", "weight"]].values.tolist() == [[0, "Univ X", 1.0]]
    countries = long[long["kind"] == "country"]
    assert countries[["row", "name", "weight"]].values.tolist() == [
        [0, "United States", 0.5],
        [0, "Germany", 0.5],
    ]


def test_top_names_and_experts_of_a_topic():
    papers = fixture_papers()
    topic = np.array([0, 1, 0, 1, 0, 1, 0, 0, 1, 1])
    labels = {0: "retrieval and vision", 1: "language and robots"}
    long = people_table(papers, people_columns(list(papers.columns), SETTINGS))
    top = top_names(long, topic, labels, 2)
    countries = top[(top["topic"] == 0) & (top["kind"] == "country")]
    # Topic 0: WoS 1, Scopus 1, OpenAlex 1, PubMed 1 and 2: China 1/3 + 1/2 + 1/2 + 1, USA 2/3 + 1/2 + 1/2.
    assert countries["name"].tolist() == ["China", "United States"]
    assert countries["papers"].tolist() == pytest.approx([7 / 3, 5 / 3])
    assert countries["share"].tolist() == pytest.approx([7 / 15, 5 / 15])
    table = experts(long, topic, papers["year"].to_numpy(), labels, 3)
    first, second = (row for _, row in table[table["topic"] == 0].head(2).iterrows())
    # Two authors wrote two papers each in topic 0, ranked by their fractional papers: Lei Wang
    # (Scopus 1 of two authors, 2021; PubMed 2 alone, 2023) and Ana Garcia (WoS 1 of three, 2021;
    # PubMed 1 of two, 2023); Web of Science, Scopus and PubMed all write them "Wang, Lei", "Garcia, Ana".
    assert (first["author"], first["papers"], first["years"]) == ("Wang, Lei", 2, "2021; 2023")
    assert (second["author"], second["papers"], second["years"]) == ("Garcia, Ana", 2, "2021; 2023")
    assert [first["fractional_papers"], second["fractional_papers"]] == pytest.approx(
        [1 / 2 + 1, 1 / 3 + 1 / 2]
    )
    assert (first["institutions"], second["institutions"]) == (
        "Peking University",
        "Stanford Univ; Stanford University",
    )


def test_a_share_that_moves_with_the_corpus_is_not_a_rise_and_one_beyond_it_is():
    totals = np.array([100, 100, 100, 100])
    corpus_share = np.array([[0.1, 0.2, 0.3, 0.4]])
    with_corpus = excess_trend(totals * corpus_share, totals, corpus_share, [0, 1, 2, 3])
    assert with_corpus.slope[0] == pytest.approx(0.0) and with_corpus.p_value[0] == pytest.approx(1.0)
    beyond = excess_trend([[10, 25, 40, 55]], totals, [[0.1, 0.1, 0.1, 0.1]], [0, 1, 2, 3])
    assert beyond.slope[0] == pytest.approx(0.15)
    assert beyond.p_value[0] < 1e-6 and beyond.slope_low[0] < 0.15 < beyond.slope_high[0]


def test_a_planted_rise_in_one_topic_is_found_and_named():
    rng = np.random.default_rng(3)
    year_names = ["2021", "2022", "2023", "2024"]
    years = np.repeat(year_names, 500)
    topic = np.tile(np.repeat(np.arange(10), 50), 4)
    countries = rng.choice(
        ["United States", "China", "Germany", "France"], size=len(years), p=[0.4, 0.3, 0.2, 0.1]
    )
    countries[topic == 0] = rng.choice(["United States", "China", "Germany"], size=200, p=[0.4, 0.35, 0.25])
    # In topic 0, France goes from 10% (5 of 50 papers) to 40% (20 of 50); elsewhere nothing moves.
    for step, year in enumerate(year_names):
        countries[np.nonzero((years == year) & (topic == 0))[0][: 5 + 5 * step]] = "France"
    papers = pd.DataFrame({"id": [f"p{i}" for i in range(len(years))], "year": years, "countries": countries})
    long = people_table(papers, people_columns(list(papers.columns), SETTINGS))
    periods = paper_periods(papers, "year", [])
    labels = {number: f"topic {number}" for number in range(10)}
    table = rising(long, topic, periods, labels, 5, LEVELS)
    found = table[table["grade"] != "no evidence"].sort_values("q")
    assert found[["topic", "name", "direction"]].values.tolist()[0] == [0, "France", "rising"]
    france = found.iloc[0]
    assert (france["first_share"], france["last_share"]) == (0.1, 0.4)
    # Planted: 10 points a year in the topic, less the corpus's own rise (8.4% to 12.8%) over 3 years.
    beyond_corpus = 10 - (12.8 - 8.4) / 3
    assert france["low_points"] < beyond_corpus < france["high_points"]
    assert france["grade"] == "significant"
    # Nothing else is significant (suggestive calls may be noise: one in four, by their level).
    assert (table["grade"] == "significant").sum() == 1


def test_who_is_rising_says_how_often_each_held_in_the_resamples_a_fragile_one_in_red():
    from papertopics.people.trends import RISING_COLUMNS
    from papertopics.report.people_section import rising_items

    row = {
        "kind": "country",
        "topic": 0,
        "label": "robots <b>",
        "papers": 30.0,
        "first_period": "2021",
        "first_share": 0.1,
        "last_period": "2024",
        "last_share": 0.4,
        "corpus_first_share": 0.1,
        "corpus_last_share": 0.12,
        "slope_points": 9.3,
        "low_points": 5.0,
        "high_points": 13.6,
        "p": 1e-5,
        "q": 1e-4,
        "grade": "significant",
        "direction": "rising",
    }
    table = pd.DataFrame(
        [
            {**row, "name": "France", "holds": 9, "replicates": 10, "robustness": "robust"},
            {**row, "name": "Chile", "q": 0.01, "holds": 3, "replicates": 10, "robustness": "fragile"},
            {
                **row,
                "name": "Peru",
                "q": 0.5,
                "grade": "no evidence",
                "holds": 0,
                "replicates": 10,
                "robustness": "",
            },
        ]
    )
    assert set(RISING_COLUMNS) < set(table.columns)
    items = rising_items(table)
    assert [sentence.split(" ")[0] for sentence, _ in items] == ["France", "Chile"]
    assert str(items[0][1]) == ' <span class="held">(robust: holds in 9 of 10 resamples)</span>'
    assert str(items[1][1]) == ' <span class="held fragile">(fragile: holds in 3 of 10 resamples)</span>'
    # Without replicates, no mark.
    assert str(rising_items(table.assign(replicates=0))[0][1]) == ""
