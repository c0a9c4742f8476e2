"""The brief at the top of the report: its title from the dumps, and its sentences from a real
comparison (the changes stage's record of hand-made papers).
"""

from __future__ import annotations

import re

import pandas as pd
import pytest
from conftest import default_config
from papertopics.changes.compare import CompareSettings, describe_changes
from papertopics.periods.assign import paper_periods
from papertopics.report.brief import brief_section, burst_findings, bursts_grade, what_changed
from papertopics.report.brief_corpus import counts_line, reader_notes
from papertopics.report.inputs import ReportInputs
from papertopics.report.title import report_title
from papertopics.report.what_changed_section import changes_section

NO_HISTORY = {"first_run": True, "run": 1, "previous_run": None, "topics": 0}
LABELS = {0: "reinforcement learning", 1: "adversarial examples", 2: "knowledge graphs"}


def _summary(*titles: str) -> dict:
    return {"dumps": [{"dump": f"d{i}", "title": t} for i, t in enumerate(titles)]}


@pytest.mark.parametrize(
    "titles, years, expected",
    [
        (("icml2017", "icml2018", "icml2019"), [2017, 2018, 2019], "ICML 2017–2019"),
        (("ICML 2026 Papers", "ICML 2026 论文列表"), [], "ICML 2026"),
        (("NeurIPS 2019 accepted papers", "NeurIPS 2021 accepted papers"), [], "NeurIPS 2019–2021"),
        (("ijcai_2020", "IJCAI-2021"), [2020, 2021], "IJCAI 2020–2021"),
        (("ijcai",), [2020, 2021, 2024], "IJCAI 2020–2024"),  # one title, the papers' years
        (("icml2017", "neurips2017"), [], "Topics of icml2017 + neurips2017"),  # two venues
        (("arxiv-a", "arxiv-b"), [], "Topics of arxiv-a + arxiv-b"),  # no year anywhere
        (("a", "b", "c", "d", "e"), [], "Topics of a + b + c and 2 more dumps"),
        (("000_5d7e815e", "icml2018"), [], "Topics of 000_5d7e815e + icml2018"),
        (("y2020", "y2021"), [2020, 2021], "Topics of y2020 + y2021"),  # a letter is no venue
    ],
)
def test_the_title_names_the_venue_and_years_of_the_dumps(titles, years, expected):
    assert report_title("auto", _summary(*titles), years) == expected


def test_the_configured_title_wins():
    assert report_title("Area chairs' briefing", _summary("icml2017", "icml2018"), [2017]) == (
        "Area chairs' briefing"
    )


def _papers(counts: dict[int, list[int]], years: list[str]) -> pd.DataFrame:
    """Papers per topic and year: ``counts[topic][i]`` papers of topic ``topic`` in ``years[i]``."""
    rows = [
        (year, topic)
        for topic, per_year in counts.items()
        for year, count in zip(years, per_year, strict=True)
        for _ in range(count)
    ]
    return pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(len(rows))],
            "dumps": [f"icml{year}" for year, _ in rows],
            "year": [year for year, _ in rows],
            "topic": [topic for _, topic in rows],
            "display_name": [f"Paper {i}" for i in range(len(rows))],
            "outlier": [False] * len(rows),
        }
    )


def _changes(papers: pd.DataFrame, texts=None, labels=LABELS, **overrides) -> dict:
    settings = CompareSettings(**{**default_config()["compare"], **overrides})
    details = [
        {"topic": t, "label": labels[t], "representative_ids": []} for t in sorted(set(papers["topic"]))
    ]
    dumps = sorted(set(papers["dumps"]))
    texts = texts if texts is not None else ["nothing to count"] * len(papers)
    periods = paper_periods(papers, settings.by, dumps)
    return describe_changes(papers, texts, details, NO_HISTORY, periods, settings, "english")[1]


def _same(period: str) -> str:
    return period


# Issue #28's three ICML years: adversarial examples 3 of 426 → 15 of 611 → 38 of 760.
ICML = {0: [400, 560, 640], 1: [3, 15, 38], 2: [23, 36, 82]}
YEARS = ["2017", "2018", "2019"]


def test_what_changed_leads_with_the_strongest_trend_in_plain_words_and_keeps_the_test_a_hover_away():
    changes = _changes(_papers(ICML, YEARS))
    changed = what_changed(changes, _same, {})
    assert changed.heading == "What changed, 2017 to 2019"
    # Largest move first (significance is the gate, size the order), each with its interval.
    largest = max(changes["trends"]["topics"], key=lambda r: abs(r["move_pp"]) if r["finding"] else 0)
    assert changed.findings[0].link == f"#topic-{largest['topic']}"
    sentences = [f.sentence for f in changed.findings]
    assert (
        "Adversarial examples rose from 0.7% to 5.0% of papers (3 → 38), +4.4 points (+2.3 to +6.4)."
        in sentences
    )
    # Reinforcement learning: 93.9% → 84.2% of papers, a steady fall, the largest move.
    assert changed.findings[0].sentence.startswith(
        "Reinforcement learning fell from 93.9% to 84.2% of papers (400 → 640), -10.2 points"
    )
    for finding in changed.findings:
        assert "q =" not in finding.sentence and "Cochran" not in finding.sentence
        assert re.search(r"Cochran–Armitage trend test, q = [0-9.e-]+", finding.evidence)
        assert "95% interval" in finding.evidence and "points a year" in finding.evidence
    adversarial = next(f for f in changed.findings if f.subject == "Adversarial examples")
    assert "papers 3 of 426 → 15 of 611 → 38 of 760" in adversarial.evidence
    assert changed.none_found is None and changed.more is None


def test_a_finding_quotes_the_clustered_papers_it_tested_and_the_assigned_outliers_beside_them():
    papers = _papers(ICML, YEARS)
    # Ten of the last year's adversarial-examples papers were outliers assigned to the topic.
    assigned = papers.index[(papers["topic"] == 1) & (papers["year"] == "2019")][:10]
    papers.loc[assigned, "outlier"] = True
    changed = what_changed(_changes(papers), _same, {})
    adversarial = next(f for f in changed.findings if f.subject == "Adversarial examples")
    assert adversarial.sentence == (
        "Adversarial examples rose from 0.7% to 3.7% of papers (3 → 28; 3 → 38 with the outliers assigned to it), "
        "+2.9 points (+1.1 to +4.8)."
    )
    assert "clustered papers 3 of 426 → 15 of 611 → 28 of 760" in adversarial.evidence


def test_the_significant_changes_beyond_five_are_counted_not_told():
    # Seven topics rising from 2 to 30 papers of a thousand, one shrinking to make room.
    counts = {0: [986, 930, 790]} | {t: [2, 10, 30] for t in range(1, 8)}
    labels = {t: f"topic {t}" for t in counts}
    changes = _changes(_papers(counts, YEARS), labels=labels)
    changed = what_changed(changes, _same, {})
    assert len(changed.findings) == 5
    assert changed.more == "3 more significant changes under What changed."


def test_only_suggestive_evidence_is_worded_as_a_lead():
    # 6 → 9 → 12 of about 200 a year: a rise the trend test grades suggestive, not significant.
    changes = _changes(_papers({0: [194, 191, 188], 1: [6, 9, 12]}, YEARS))
    grades = {r["topic"]: r["grade"] for r in changes["trends"]["topics"]}
    assert grades[1] == "suggestive", grades
    sentences = [f.sentence for f in what_changed(changes, _same, {}).findings]
    assert (
        "Adversarial examples may be rising: from 3.0% to 6.0% of papers (6 → 12), a lead worth a look."
        in (sentences)
    )


def test_no_movement_beyond_chance_is_said_so():
    changes = _changes(_papers({0: [100, 100, 100], 1: [10, 10, 10]}, YEARS))
    changed = what_changed(changes, _same, {})
    assert changed.findings == []
    assert (
        changed.none_found == "No topic's share rose or fell beyond what chance explains from 2017 to 2019."
    )


def test_two_periods_give_the_pairwise_test_in_plain_words():
    changes = _changes(_papers({0: [400, 560], 1: [3, 38], 2: [30, 40]}, ["2018", "2019"]))
    changed = what_changed(changes, _same, {})
    assert changed.heading == "What changed, 2018 to 2019"
    strongest = min(changes["comparison"], key=lambda r: r["q_value"])
    assert changed.findings[0].link == f"#topic-{strongest['topic']}"
    sentences = [f.sentence for f in changed.findings]
    assert "Adversarial examples rose from 0.7% to 6.0% of papers (3 → 38)." in sentences
    assert all("Fisher's exact test, q = " in f.evidence for f in changed.findings)


def test_periods_too_small_to_test_say_so_in_the_brief_and_its_notes():
    changes = _changes(_papers({0: [12, 14], 1: [3, 4]}, ["2018", "2019"]))
    changed = what_changed(changes, _same, {})
    assert changed.findings == []
    assert changed.none_found.startswith("Not tested: 2018 and 2019 have fewer than 20 papers")
    three = _changes(_papers({0: [12, 100, 110], 1: [3, 20, 40]}, YEARS))
    inputs = _inputs(_papers({0: [12, 100, 110], 1: [3, 20, 40]}, YEARS), three)
    assert "2017 has fewer than 20 papers: shown, but left out of the tests." in reader_notes(inputs, _same)


def test_bursting_terms_with_their_year():
    counts = {0: [150, 150, 150], 1: [10, 10, 40]}
    papers = _papers(counts, YEARS)
    texts = [
        "diffusion models" if (t == 1 and y == "2019") else "policy learning"
        for t, y in zip(papers["topic"], papers["year"], strict=True)
    ]
    changes = _changes(papers, texts)
    bursts = burst_findings(changes, _same)
    assert any(b.sentence == "“diffusion models” (2019)" for b in bursts), [b.sentence for b in bursts]
    burst = next(b for b in bursts if b.subject == "“diffusion models”")
    assert burst.link == "#topic-1" and "q = " in burst.evidence


def _inputs(papers: pd.DataFrame, changes: dict, outlier_rows: int = 0) -> ReportInputs:
    papers = papers.assign(outlier=["True"] * outlier_rows + ["False"] * (len(papers) - outlier_rows))
    details = [
        {
            "topic": t,
            "label": LABELS[t],
            "size": int((papers["topic"] == t).sum()),
            "share": float((papers["topic"] == t).mean()),
        }
        for t in sorted(set(papers["topic"]))
    ]
    dumps = sorted(set(papers["dumps"]))
    return ReportInputs(
        corpus_summary={"dumps": [{"dump": d, "title": d} for d in dumps]},
        umap_settings={},
        hdbscan_settings={"note": None},
        topic_settings={"reduce_outliers": True},
        topic_details=details,
        topics=pd.DataFrame(),
        papers=papers,
        figures={},
        periods=paper_periods(papers, "auto", dumps),
        changes=changes,
    )


def test_counts_and_notes_in_one_line_each():
    papers = _papers(ICML, YEARS)
    inputs = _inputs(papers, _changes(papers), outlier_rows=452)
    assert counts_line(inputs, _same) == "1,797 papers from 3 years (2017–2019) · 3 topics"
    assert "25% of the papers (452) fit no topic closely; each is counted with its nearest topic." in (
        reader_notes(inputs, _same)
    )


def test_where_no_change_is_significant_the_largest_moves_are_named_as_within_chance():
    # Two years, 30 topics: one nearly doubles its share (20 → 38 of about 700 papers; q = 0.46), too little for
    # Fisher's test corrected across 30 topics; the brief and What changed still name it.
    counts = {t: [24, 23] for t in range(2, 30)} | {0: [8, 3], 1: [20, 38]}
    labels = {t: f"topic {t}" for t in counts} | {1: "adversarial examples, attacks"}
    changes = _changes(_papers(counts, ["2018", "2019"]), labels=labels)
    assert "significant" not in {r["grade"] for r in changes["comparison"]}
    changed = what_changed(changes, _same, {})
    adversarial = next(r for r in changes["comparison"] if r["topic"] == 1)
    assert changed.largest[0].sentence == (
        f"Adversarial examples, attacks: 2.9% → 5.5% of papers, {adversarial['change_pp']:+.1f} points "
        f"({adversarial['change_low_pp']:+.1f} to {adversarial['change_high_pp']:+.1f})."
    )
    assert [f.link for f in changed.largest][:2] == ["#topic-1", "#topic-0"] and len(changed.largest) == 3
    assert changed.largest_note.startswith("The largest moves, all within what chance explains")
    assert (
        "across 30 topics" in changed.largest_note and "not beyond what chance" in changed.largest[0].evidence
    )
    section = str(changes_section(changes, {}, {}))
    assert 'id="pairwise-largest"' in section and "2.9% → 5.5% of papers" in section
    # A significant change leaves the largest moves out.
    rising = _changes(_papers({0: [400, 560], 1: [3, 38], 2: [30, 40]}, ["2018", "2019"]))
    assert what_changed(rising, _same, {}).largest == ()
    assert 'id="pairwise-largest"' not in str(changes_section(rising, {}, {}))


def test_the_brief_leads_with_robust_trends_and_leaves_fragile_ones_to_what_changed():
    from papertopics.report.inputs import with_trend_robustness

    changes = _changes(_papers(ICML, YEARS))
    found = [r for r in changes["trends"]["topics"] if r["finding"]]
    assert {r["topic"] for r in found} == {0, 1, 2}
    # Reinforcement learning (the largest move) held in 3 of 10 resamples; knowledge graphs in 9.
    record = {
        "replicates": 10,
        "trends": {
            "0": {"holds": 3, "replicates": 10, "robustness": "fragile"},
            "1": {"holds": 6, "replicates": 10, "robustness": "supported"},
            "2": {"holds": 9, "replicates": 10, "robustness": "robust"},
        },
    }
    changed = what_changed(with_trend_robustness(changes, record), _same, {})
    assert [f.link for f in changed.findings] == ["#topic-2", "#topic-1"]
    assert changed.findings[0].sentence.endswith("(Robust: holds in 9 of 10 resamples.)")
    assert changed.findings[1].sentence.endswith("(Supported: holds in 6 of 10 resamples.)")
    assert changed.more == (
        "1 fragile one (holding in fewer than half of the resamples, or in a topic not to be trusted) "
        "under What changed."
    )
    # Without replicates the brief is as it was.
    assert with_trend_robustness(changes, {"replicates": 0, "trends": {}}) is changes
    plain = what_changed(changes, _same, {})
    assert plain.findings[0].link == "#topic-0" and "resamples" not in plain.findings[0].sentence


def test_between_two_years_the_brief_leads_with_robust_changes_and_what_changed_marks_a_fragile_one():
    from papertopics.report.inputs import with_trend_robustness

    # 2018 against 2019: every topic's share moved beyond chance; the largest move (topic 0's fall)
    # held in 3 of 10 resamples.
    changes = _changes(_papers({0: [400, 200], 1: [3, 38], 2: [30, 90]}, ["2018", "2019"]))
    assert not changes["trends"]["available"]
    assert {r["topic"] for r in changes["comparison"] if r["grade"] == "significant"} == {0, 1, 2}
    record = {
        "replicates": 10,
        "trends": {},
        "comparison": {
            "0": {"holds": 3, "replicates": 10, "robustness": "fragile"},
            "1": {"holds": 9, "replicates": 10, "robustness": "robust"},
            "2": {"holds": 6, "replicates": 10, "robustness": "supported"},
        },
    }
    graded = with_trend_robustness(changes, record)
    changed = what_changed(graded, _same, {})
    assert [f.link for f in changed.findings] == ["#topic-1", "#topic-2"]
    assert changed.findings[0].sentence.endswith("(Robust: holds in 9 of 10 resamples.)")
    assert changed.findings[1].sentence.endswith("(Supported: holds in 6 of 10 resamples.)")
    assert changed.more == (
        "1 fragile one (holding in fewer than half of the resamples, or in a topic not to be trusted) "
        "under What changed."
    )
    section = str(changes_section(graded, {}, {}))
    assert '<span class="held fragile">(fragile: holds in 3 of 10 resamples)</span>' in section
    assert '<span class="held">(robust: holds in 9 of 10 resamples)</span>' in section
    # Without replicates the brief tells the largest move first, as it did.
    assert with_trend_robustness(changes, {"replicates": 0}) is changes
    plain = what_changed(changes, _same, {})
    assert plain.findings[0].link == "#topic-0" and "resamples" not in plain.findings[0].sentence
    assert "resamples" not in str(changes_section(changes, {}, {}))


def test_the_bursts_grade_is_said_once_where_every_term_named_shares_it():
    robust = [
        {"robustness": "robust", "holds": 10, "replicates": 10},
        {"robustness": "robust", "holds": 8, "replicates": 10},
    ]
    assert bursts_grade(robust) == "robust: each holds in 8 to 10 of 10 resamples"
    assert bursts_grade(robust[:1]) == "robust: holds in 10 of 10 resamples"
    # Grades that differ are said term by term; without replicates nothing is said.
    assert bursts_grade([*robust, {"robustness": "supported", "holds": 6, "replicates": 10}]) is None
    assert bursts_grade([{"term": "diffusion models"}]) is None


def test_a_fragile_burst_is_left_off_the_brief_and_marked_red_under_what_changed():
    from papertopics.report.bursts_subsection import bursts_block
    from papertopics.report.inputs import with_trend_robustness

    papers = _papers({0: [150, 150, 150], 1: [10, 10, 40]}, YEARS)
    texts = [
        "diffusion models" if (t == 1 and y == "2019") else "policy learning"
        for t, y in zip(papers["topic"], papers["year"], strict=True)
    ]
    changes = _changes(papers, texts)
    burst = next(b for b in changes["bursts"]["bursts"] if b["term"] == "diffusion models")
    key = f"1|diffusion models|{burst['start']}"

    def graded(holds: int, grade: str) -> dict:
        record = {"replicates": 10, "bursts": {key: {"holds": holds, "replicates": 10, "robustness": grade}}}
        return with_trend_robustness(changes, record)

    robust = graded(9, "robust")
    # The one term the brief names: its grade said once, in the lead.
    assert [b.sentence for b in burst_findings(robust, _same)] == ["“diffusion models” (2019)"]
    lead = "Terms that burst (robust: holds in 9 of 10 resamples):"
    assert lead in str(brief_section(_inputs(papers, robust), _same, {}))
    assert '<span class="held">(robust: holds in 9 of 10 resamples)</span>' in str(
        bursts_block(robust, _same)
    )
    fragile = graded(2, "fragile")
    assert all("diffusion models" not in b.subject for b in burst_findings(fragile, _same))
    # The brief counts what it leaves out.
    note = "Of the terms that burst, 1 fragile one (holding in fewer than half of the resamples"
    assert note in str(brief_section(_inputs(papers, fragile), _same, {}))
    assert "fragile one" not in str(brief_section(_inputs(papers, robust), _same, {}))
    assert '<span class="held fragile">(fragile: holds in 2 of 10 resamples)</span>' in str(
        bursts_block(fragile, _same)
    )
    # Without replicates nothing is said of resamples.
    assert "resamples" not in str(bursts_block(changes, _same))


def test_a_trajectory_is_told_by_how_often_its_shape_held_not_its_trend():
    from papertopics.report.inputs import with_trend_robustness

    changes = _changes(_papers(ICML, YEARS))
    assert {r["topic"] for r in changes["trends"]["topics"] if r["shape"] != "steady"} == {0, 1, 2}
    robust = {"holds": 9, "replicates": 10, "robustness": "robust"}
    # Every trend held; topic 0's shape (its rise over the three years read as a trajectory) in 2 of 10.
    record = {
        "replicates": 10,
        "trends": {str(t): robust for t in range(3)},
        "shapes": {"0": {"holds": 2, "replicates": 10, "robustness": "fragile"}, "1": robust, "2": robust},
    }
    graded = with_trend_robustness(changes, record)
    changed = what_changed(graded, _same, {})
    assert "#topic-0" not in [f.link for f in changed.findings] and len(changed.findings) == 2
    assert changed.more.startswith("1 fragile one")
    section = str(changes_section(graded, {}, {}))
    assert '<span class="held fragile">(fragile: holds in 2 of 10 resamples)</span>' in section
