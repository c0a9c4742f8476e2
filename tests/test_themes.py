"""Themes within a topic: the best split of a topic's periods into two eras, its permutation test,
each era's wording, and the planted target on real abstracts (two unrelated IJCAI areas in one
topic, one per era) against a control topic and shuffled periods.
"""

from __future__ import annotations

import gzip
import html
import json

import numpy as np
import pandas as pd
import pytest
from conftest import default_config, require_corpus
from papertopics.changes.compare import CompareSettings
from papertopics.changes.themes import best_split, era_keywords, split_pvalue, topic_themes
from papertopics.periods.assign import Periods


def settings(**overrides) -> CompareSettings:
    return CompareSettings(**{**default_config()["compare"], **overrides})


def unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def two_themes(rng, early: int, late: int, dimensions: int = 32, noise: float = 0.5) -> np.ndarray:
    """Unit vectors about one direction for ``early`` papers, about another for ``late`` ones."""
    centres = np.eye(dimensions)[:2] * 2.0
    return unit(
        np.vstack(
            [
                centres[0] + noise * rng.normal(size=(early, dimensions)),
                centres[1] + noise * rng.normal(size=(late, dimensions)),
            ]
        )
    )


def year_periods(years: list[int]) -> Periods:
    names = [str(y) for y in sorted(set(years))]
    return Periods("year", names, np.arange(len(years)), np.array([str(y) for y in years]), 0)


def table(topics: list[int], outlier: list[bool] | None = None) -> pd.DataFrame:
    return pd.DataFrame({"topic": topics, "outlier": outlier or [False] * len(topics)})


def test_best_split_finds_the_planted_boundary():
    rng = np.random.default_rng(1)
    vectors = two_themes(rng, 60, 90)
    counts = np.array([30, 30, 45, 45])  # the second theme starts with the third period
    split = best_split(vectors, counts, 20)
    assert split.early_papers == 60
    assert split.explained > 0.2
    p, chance = split_pvalue(vectors, counts, 20, split.explained, 199)
    assert p == pytest.approx(1 / 200)
    assert 0 < chance < 0.05


def test_no_split_without_enough_papers_in_both_eras():
    vectors = two_themes(np.random.default_rng(2), 15, 10)
    assert best_split(vectors, np.array([15, 10]), 20) is None


def test_one_theme_throughout_is_no_change():
    rng = np.random.default_rng(3)
    vectors = two_themes(rng, 150, 0)
    counts = np.array([30, 30, 30, 30, 30])
    split = best_split(vectors, counts, 20)
    assert split.explained < 0.05
    p, chance = split_pvalue(vectors, counts, 20, split.explained, 199)
    assert p > 0.05
    assert split.explained - chance < 0.01


def test_explained_is_the_between_era_share_of_the_sum_of_squares():
    vectors = unit(np.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]]))
    split = best_split(vectors, np.array([2, 2]), 1)
    centre = vectors.mean(axis=0)
    total = ((vectors - centre) ** 2).sum()
    within = sum(((v - v.mean(axis=0)) ** 2).sum() for v in (vectors[:2], vectors[2:]))
    assert split.early_papers == 2
    assert split.explained == pytest.approx(1 - within / total)


def test_era_wording_leads_with_what_sets_the_era_apart():
    wording = [
        {"period": "2001", "papers": 30, "keywords": ["kernel", "svm", "learning"]},
        {"period": "2002", "papers": 10, "keywords": ["margin", "kernel", "learning"]},
        {"period": "2003", "papers": 40, "keywords": ["deep", "learning", "networks"]},
    ]
    assert era_keywords(wording, ["2001", "2002"], ["2003"]) == ("kernel", "svm", "margin")
    assert era_keywords(wording, ["2003"], ["2001", "2002"], count=2) == ("deep", "networks")
    # An era whose words are all the other's: its own commonest words.
    assert era_keywords(wording[2:], ["2003"], ["2003"], count=1) == ("deep",)


def test_topic_themes_reports_a_planted_change_and_not_a_steady_topic():
    rng = np.random.default_rng(4)
    planted = two_themes(rng, 80, 80)
    steady = two_themes(rng, 160, 0)
    steady = steady @ np.roll(np.eye(32), 5, axis=1)  # another direction than either theme
    years = [2001 + i // 40 for i in range(160)] * 2
    papers = table([1] * 160 + [2] * 160)
    details = [
        {"topic": 1, "label": "planted", "wording": []},
        {"topic": 2, "label": "steady", "wording": []},
    ]
    found = topic_themes(
        papers,
        np.vstack([planted, steady]),
        year_periods(years),
        ["2001", "2002", "2003", "2004"],
        details,
        settings(),
    )
    by_topic = {t["topic"]: t for t in found["topics"]}
    assert by_topic[1]["changed"] and not by_topic[2]["changed"]
    assert [(e["first"], e["last"], e["papers"]) for e in by_topic[1]["eras"]] == [
        ("2001", "2002", 80),
        ("2003", "2004", 80),
    ]
    assert found["topics"][0]["topic"] == 1
    assert {link["from"] for link in found["view"]["links"]} == {1, 2}


def test_outliers_and_untested_periods_are_left_out():
    rng = np.random.default_rng(5)
    vectors = two_themes(rng, 50, 50)
    years = [2001] * 25 + [2002] * 25 + [2003] * 50
    outlier = [False] * 50 + [True] * 50  # the second theme's papers were HDBSCAN's outliers
    periods = year_periods(years)
    found = topic_themes(
        table([1] * 100, outlier), vectors, periods, ["2001", "2002", "2003"], [], settings()
    )
    assert [(t["papers"], t["changed"]) for t in found["topics"]] == [(50, False)]
    # With 2001 too small to test, 25 clustered papers are left: too few for two eras.
    found = topic_themes(table([1] * 100, outlier), vectors, periods, ["2002", "2003"], [], settings())
    assert found["topics"] == []


def test_groups_without_an_order_get_no_eras():
    periods = Periods("venue", ["a", "b"], np.arange(4), np.array(["a", "a", "b", "b"]), 0, ordered=False)
    found = topic_themes(table([1] * 4), np.eye(4), periods, ["a", "b"], [], settings())
    assert found == {"available": False, "reason": "compare.by is 'venue', whose groups have no order"}


PLANTED_EARLY, PLANTED_LATE, CONTROL = (
    "Planning and Scheduling",
    "Computer Vision",
    "Agent-based and Multi-agent Systems",
)
FIELD_PAPERS = 80
YEARS = [str(year) for year in range(2001, 2007)]


@pytest.fixture(scope="module")
def ijcai_fields(seed_encoder, tmp_path_factory) -> dict[str, np.ndarray]:
    """``FIELD_PAPERS`` real IJCAI abstracts of each of three areas (the corpus's area labels pick
    the papers, as the planted target's truth; the pipeline never sees them), parsed and embedded
    as the pipeline does.
    """
    from papertopics.embed.encoders import embedding_text
    from papertopics.ingest.parse import parse_dump

    path = require_corpus("ijcai_2020_2024_areas.jsonl.gz")
    fields: dict[str, list[str]] = {PLANTED_EARLY: [], PLANTED_LATE: [], CONTROL: []}
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            chosen = fields.get(record["label"])
            if chosen is not None and len(chosen) < FIELD_PAPERS:
                chosen.append(json.dumps({"title": record["title"], "abstract": record["abstract"]}))
    embedded = {}
    for index, (name, lines) in enumerate(fields.items()):
        dump = tmp_path_factory.mktemp("fields") / f"field{index}.jsonl"
        dump.write_text("\n".join(lines) + "\n", encoding="utf-8")
        papers = parse_dump(dump, min_abstract_chars=20).papers
        embedded[name] = seed_encoder.encode([embedding_text(p) for p in papers], batch_size=32)
    return embedded


def planted_run(fields: dict[str, np.ndarray], shuffled: bool) -> dict:
    """Topic 1: the first field's papers in the first three years, the second's in the last three
    (shuffled over all six years when ``shuffled``); topic 2, the control: one field over all six.
    """
    rng = np.random.default_rng(7)
    half = len(YEARS) // 2
    planted = [YEARS[i % half] for i in range(FIELD_PAPERS)] + [
        YEARS[half + i % half] for i in range(FIELD_PAPERS)
    ]
    if shuffled:
        planted = list(rng.permutation(planted))
    control = list(rng.permutation([YEARS[i % len(YEARS)] for i in range(FIELD_PAPERS)]))
    vectors = np.vstack([fields[PLANTED_EARLY], fields[PLANTED_LATE], fields[CONTROL]])
    papers = table([1] * (2 * FIELD_PAPERS) + [2] * FIELD_PAPERS)
    periods = Periods("year", YEARS, np.arange(len(papers)), np.array(planted + control), 0)
    found = topic_themes(papers, vectors, periods, YEARS, [], settings())
    return {t["topic"]: t for t in found["topics"]}


def test_two_real_fields_one_per_era_are_a_changed_theme(ijcai_fields):
    found = planted_run(ijcai_fields, shuffled=False)
    planted, control = found[1], found[2]
    assert planted["changed"], planted
    assert [(e["first"], e["last"], e["papers"]) for e in planted["eras"]] == [
        ("2001", "2003", FIELD_PAPERS),
        ("2004", "2006", FIELD_PAPERS),
    ]
    assert planted["beyond_chance"] > 0.1
    assert not control["changed"], control
    assert control["beyond_chance"] < settings().theme_min_explained


def test_shuffled_periods_are_no_change(ijcai_fields):
    found = planted_run(ijcai_fields, shuffled=True)
    assert not any(t["changed"] for t in found.values()), found


HOSTILE = "<script>alert(1)</script>"


def themes_record() -> dict:
    rng = np.random.default_rng(8)
    vectors = np.vstack([two_themes(rng, 60, 60), two_themes(rng, 120, 0) @ np.roll(np.eye(32), 7, axis=1)])
    years = [1995 + i // 30 for i in range(120)] * 2
    wording = [
        {
            "period": str(year),
            "papers": 30,
            "keywords": [HOSTILE, "kernels"] if year < 1997 else ["deep networks"],
        }
        for year in range(1995, 1999)
    ]
    details = [
        {"topic": 1, "label": HOSTILE, "wording": wording},
        {"topic": 2, "label": "steady", "wording": []},
    ]
    periods = year_periods(years)
    return topic_themes(table([1] * 120 + [2] * 120), vectors, periods, periods.names, details, settings())


def test_the_section_says_the_theme_changed_with_each_eras_words_and_counts_escaped():
    from papertopics.report.themes_subsection import themes_block

    block = themes_block({"themes": themes_record(), "false_discovery_rate": 0.05}, str, {1: "#123456"})
    assert HOSTILE not in block
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert (
        f"this topic&#x27;s theme changed: 1995–1996 &#x27;{escaped}, kernels&#x27; (60 papers), "
        "1997–1998 &#x27;deep networks&#x27; (60 papers)"
    ) in block
    assert block.count('data-topic="') == 1  # the steady topic is not listed
    assert 'id="theme-evolution"' in block


def test_the_evolution_view_links_each_earlier_era_to_its_later_one_with_labels_escaped():
    from papertopics.figures.themes import thematic_evolution

    sankey = thematic_evolution(themes_record(), str, {}).data[0]
    assert all(HOSTILE not in label for label in sankey.node.label)
    assert len(sankey.node.label) == 4
    own = [(s, t) for s, t in zip(sankey.link.source, sankey.link.target, strict=True) if t - s == 2]
    assert sorted(own) == [(0, 2), (1, 3)]


@pytest.mark.parametrize(
    ("text", "chars", "expected"),
    [
        ("natural language processing", 24, "natural language…"),
        ("label distribution shift", 16, "label…"),
        ("one, two, three", 10, "one, two…"),
        ("reinforcement learning,  optimal", 40, "reinforcement learning, optimal"),
        ("supercalifragilistic words", 8, "superca…"),
    ],
)
def test_a_name_is_cut_after_a_whole_word_with_an_ellipsis(text, chars, expected):
    from papertopics.figures.text import shorten

    assert shorten(text, chars) == expected


def test_the_evolution_views_names_end_at_a_word_and_hold_no_double_space():
    from papertopics.figures.themes import thematic_evolution

    record = themes_record()
    label = "reinforcement learning, optimal control and planning"
    next(t for t in record["topics"] if t["topic"] == 1)["label"] = label
    names = [html.unescape(n) for n in thematic_evolution(record, str, {}).data[0].node.label]
    # The label cut after "optimal" (32 characters would end in a space), then the era and its words.
    assert names[0].startswith("reinforcement learning, optimal… 1995–1996")
    assert names[2] == "reinforcement learning, optimal… 1997–1998: deep networks"
    assert names[1] == "steady 1995–1997"  # no words: no colon
    assert all("  " not in name and len(name) <= 70 for name in names)


def test_an_eras_name_keeps_its_keywords_whole():
    from papertopics.figures.themes import era_name

    era = {"first": "2020", "last": "2022", "keywords": ["positive", "classifier", "label distribution", "x"]}
    assert (
        era_name("label learning", era, str)
        == "label learning 2020–2022: positive, classifier, label distribution, x"
    )
    era["keywords"][-1] = "partial labels"
    # 82 characters with every keyword: the last is left out whole, not cut to "partial".
    assert (
        era_name("label learning", era, str)
        == "label learning 2020–2022: positive, classifier, label distribution…"
    )
    # A first keyword too long for the room left is cut after a word.
    era["keywords"] = ["a keyphrase far longer than the room that is left for it in the name"]
    assert (
        era_name("label learning", era, str)
        == "label learning 2020–2022: a keyphrase far longer than the room that…"
    )


def test_the_table_has_a_row_per_topic_tested_with_each_eras_columns():
    from papertopics.changes.themes import theme_table

    found = theme_table(themes_record())
    assert found["topic"].tolist() == [1, 2]
    assert found.loc[0, ["changed", "early_first", "early_last", "early_papers", "late_first"]].tolist() == [
        True,
        "1995",
        "1996",
        60,
        "1997",
    ]
    assert found.loc[0, "early_keywords"] == f"{HOSTILE}; kernels"
    empty = theme_table({"available": False, "reason": "compare.by is 'venue', whose groups have no order"})
    assert empty.empty and "beyond_chance" in empty.columns
