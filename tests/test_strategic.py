"""The strategic diagram (Callon's centrality and density, as bibliometrix's thematic map): the
formulas against a hand count on six papers, a planted niche theme in the niche quadrant and a hub
theme in motor or basic, the keywords read from the text where the papers carry no authors'
keywords, and each topic's move from the first period to the last.
"""

from __future__ import annotations

import numpy as np
import pytest
from papertopics.figures.strategic import strategic_diagram
from papertopics.topics.strategic import AUTHORS, BASIC, MOTOR, NICHE, TOPIC_WORDS, strategic_table

# Six papers, two topics; by hand: topic 0 owns a, b, c (it carries b twice, topic 1 once),
# topic 1 owns x, y. Co-occurrences: ab 2, ac 1, bc 1, xy 2, ax 1, by 1; each of a, b, x, y is
# carried by 3 papers, c by 1. e_ab = 4/9, e_ac = e_bc = 1/3, e_xy = 4/9, e_ax = e_by = 1/9.
SIX = [["a", "b"], ["A", "b", "c"], ["a", "x"], ["x", "y"], ["x", "y"], ["y", "b"]]
SIX_TOPICS = np.array([0, 0, 0, 1, 1, 1])


def test_centrality_and_density_match_a_hand_count_on_six_papers():
    table, source = strategic_table(["text"] * 6, SIX, SIX_TOPICS, {0: [], 1: []}, {0: "first", 1: "second"})
    assert source == AUTHORS
    assert table["keywords"].tolist() == ["a; b; c", "x; y"]
    # centrality = 10 × (e_ax + e_by) for both; density = 100 × (4/9 + 1/3 + 1/3) / 3 and 100 × (4/9) / 2.
    assert table["centrality"].tolist() == pytest.approx([10 * 2 / 9, 10 * 2 / 9], abs=1e-4)
    assert table["density"].tolist() == pytest.approx([100 * (10 / 9) / 3, 100 * (4 / 9) / 2], abs=1e-4)
    assert table["quadrant"].tolist() == [MOTOR, BASIC]  # equal centrality, both at its median
    assert table.columns.tolist()[:7] == [
        "topic",
        "label",
        "papers",
        "keywords",
        "centrality",
        "density",
        "quadrant",
    ]


def _planted(seed: int = 0):
    """Six ordinary topics whose papers sometimes carry another's keyword, a niche theme whose
    papers carry only its own four keywords, three of them at a time, and a hub whose papers carry
    one word of another topic each, and whose words other topics' papers carry now and then.
    """
    rng = np.random.default_rng(seed)
    pools = {t: [f"t{t}w{w}" for w in range(5)] for t in range(6)}
    niche, hub = [f"niche{w}" for w in range(4)], [f"hub{w}" for w in range(5)]
    keywords, topics = [], []
    for topic in range(6):
        for _ in range(40):
            held = list(rng.choice(pools[topic], 2, replace=False))
            if rng.random() < 0.3:
                held.append(rng.choice(pools[(topic + rng.integers(1, 6)) % 6]))
            if rng.random() < 0.25:
                held.append(rng.choice(hub))
            keywords.append(held)
            topics.append(topic)
    for _ in range(40):
        keywords.append(list(rng.choice(niche, 3, replace=False)))
        topics.append(6)
    for _ in range(40):
        keywords.append([*rng.choice(hub, 2, replace=False), rng.choice(pools[int(rng.integers(0, 6))])])
        topics.append(7)
    return keywords, np.array(topics)


def test_a_planted_niche_is_niche_and_a_hub_is_central():
    keywords, topics = _planted()
    labels = {t: f"topic {t}" for t in range(8)}
    table, _ = strategic_table([""] * len(topics), keywords, topics, dict.fromkeys(range(8), []), labels)
    quadrant = dict(zip(table["topic"], table["quadrant"], strict=True))
    assert quadrant[6] == NICHE and quadrant[7] in (MOTOR, BASIC), table
    assert table.loc[table["topic"] == 6, "centrality"].item() == 0  # its keywords meet no other's
    assert table["centrality"].max() == table.loc[table["topic"] == 7, "centrality"].item()


def test_without_authors_keywords_the_topic_keywords_are_read_from_the_text():
    texts = [
        "Graph neural networks for molecules.",
        "Message passing graph neural networks.",
        "Molecules and graph neural networks.",
        "Reinforcement learning with a reward model.",
        "Reward shaping for reinforcement learning agents.",
        "Graph neural networks meet reinforcement learning.",
    ]
    words = {0: ["graph neural", "molecules", "message passing"], 1: ["reinforcement learning", "reward"]}
    table, source = strategic_table(texts, [[]] * 6, SIX_TOPICS, words, {0: "graphs", 1: "rl"})
    assert source == TOPIC_WORDS
    assert table["keywords"].tolist() == [
        "graph neural; message passing; molecules",
        "reinforcement learning; reward",
    ]
    # The one tie between them: paper 5 carries "graph neural" (4 papers) and "reinforcement learning" (3).
    assert table["centrality"].tolist() == pytest.approx([10 / 12, 10 / 12], abs=1e-4)


def test_each_topics_move_from_the_first_period_to_the_last_and_the_figure():
    keywords, topics = _planted(1)
    period = np.arange(len(topics)) % 2  # every other paper in each period
    labels = {t: f"<i>topic</i> {t}" for t in range(8)}
    table, _ = strategic_table(
        [""] * len(topics), keywords, topics, dict.fromkeys(range(8), []), labels, (period, ["2024", "2025"])
    )
    assert (table["first_period"] == "2024").all() and (table["last_period"] == "2025").all()
    assert table.loc[table["topic"] == 6, "first_centrality"].item() == 0
    figure = strategic_diagram(table, source=AUTHORS)
    names = [trace.name for trace in figure.data]
    assert "move from 2024 to 2025 (topics with 10+ papers in both)" in names
    assert (table["first_papers"] + table["last_papers"] == table["papers"]).all()
    bubbles = next(trace for trace in figure.data if trace.name == "topics")
    assert len(bubbles.x) == 8 and "&lt;i&gt;topic&lt;/i&gt; 6" in bubbles.text
    # Placed by percentile rank: the niche (centrality 0) leftmost, the hub rightmost.
    rightmost = table["topic"].iloc[int(np.argmax(bubbles.x))]
    assert rightmost == 7 and table["topic"].iloc[int(np.argmin(bubbles.x))] == 6
    assert {a.text for a in figure.layout.annotations} >= {"motor", "niche", "emerging or declining", "basic"}


def test_the_report_draws_the_diagram_lists_each_quadrants_topics_and_offers_the_table():
    from papertopics.report import build_report
    from synthetic_report import report_inputs, synthetic_stage_outputs

    inputs = report_inputs(synthetic_stage_outputs(200, 4, 2), with_figures=False)
    keywords, topics = _planted()
    labels = {code: "<b>niche</b>" if code == 6 else f"theme {code}" for code in range(8)}
    table, source = strategic_table([""] * len(topics), keywords, topics, dict.fromkeys(range(8), []), labels)
    inputs.strategic = table
    inputs.topic_settings = {**inputs.topic_settings, "strategic_keywords": source}
    page = build_report(inputs, title="auto", hover_chars=100)
    assert 'id="strategic-diagram"' in page and "strategic.csv" in page
    assert "<strong>niche</strong> (well developed but tied little to the rest" in page
    assert '<a href="#topic-6">&lt;b&gt;niche&lt;/b&gt;</a>' in page and "<b>niche</b>" not in page
