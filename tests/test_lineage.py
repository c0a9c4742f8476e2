"""Stable topic ids: matching this run's topics to the previous run's, and keeping history."""

from __future__ import annotations

import numpy as np
import pytest
from papertopics.errors import PipelineInputError
from papertopics.topics.history import TopicHistory
from papertopics.topics.ids import TopicIds
from papertopics.topics.labeller import carry_labels, label_still_fits
from papertopics.topics.lineage import follow_topics, record_run, why_missing
from papertopics.topics.matching import Matching, TopicSnapshot, match_topics, partition_digest, stable_ids

DIMENSIONS = 16


def _directions(count: int, seed: int = 0) -> np.ndarray:
    """Unit vectors far apart (random in 16-d: pairwise cosine near 0)."""
    vectors = np.random.default_rng(seed).normal(size=(count, DIMENSIONS))
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _topic(topic_id: int, papers, centroid, label: str = "") -> TopicSnapshot:
    papers = frozenset(papers)
    return TopicSnapshot(topic_id, label, (), len(papers), np.asarray(centroid, dtype=np.float64), papers)


def _papers(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(count)]


@pytest.fixture
def previous_and_current():
    """Previous run: topics 0..5. Current run (keys 100+, shuffled): 0 and 1 continue under other
    keys, 2 split in two, 3 and 4 merged into one, 5 gone (its papers removed), one topic new
    (only new papers), and one more topic that continues 6 of the previous run by its centroid
    alone (every paper of both is in one run only).
    """
    d = _directions(10)
    a, b, c, m1, m2, gone, drift = (
        _papers(p, n)
        for p, n in (("a", 40), ("b", 30), ("c", 40), ("m", 20), ("n", 15), ("g", 12), ("d", 10))
    )
    previous = [
        _topic(0, a, d[0], "graph neural networks, node classification"),
        _topic(1, b, d[1], "reinforcement learning"),
        _topic(2, c, d[2], "image segmentation"),
        _topic(3, m1, d[3], "auctions"),
        _topic(4, m2, d[4], "voting"),
        _topic(5, gone, d[5], "removed dump"),
        _topic(6, drift, d[6], "old papers only"),
    ]
    rotated = d[6] * 0.95 + d[7] * np.sqrt(1 - 0.95**2)
    current = [
        _topic(100, b + _papers("newb", 5), d[1]),  # continues 1
        _topic(101, c[:22], d[2]),  # larger piece of 2
        _topic(102, m1 + m2, (d[3] + d[4]) / np.linalg.norm(d[3] + d[4])),  # 3 + 4 merged
        _topic(103, _papers("fresh", 25), d[8]),  # new
        _topic(104, a + _papers("newa", 10), d[0]),  # continues 0
        _topic(105, c[22:], d[2]),  # smaller piece of 2
        _topic(106, _papers("late", 9), rotated),  # continues 6 by centroid (cosine 0.95)
    ]
    return previous, current


def test_matching_names_every_kind_of_change(previous_and_current):
    previous, current = previous_and_current
    matching = match_topics(previous, current, min_overlap=0.3, min_similarity=0.7)
    assert matching.continued == {104: 0, 100: 1, 101: 2, 102: 3, 106: 6}
    assert matching.matched_by[104] == "papers" and matching.matched_by[106] == "centroid"
    assert matching.merges == [(102, [3, 4])]
    assert matching.splits == [(2, [101, 105])]
    assert matching.new == [103]
    assert matching.gone == [5]


def test_matching_does_not_depend_on_the_order_of_topics(previous_and_current):
    previous, current = previous_and_current
    forward = match_topics(previous, current, 0.3, 0.7)
    backward = match_topics(previous[::-1], current[::-1], 0.3, 0.7)
    assert forward.continued == backward.continued
    assert sorted(forward.new) == sorted(backward.new) and sorted(forward.gone) == sorted(backward.gone)
    assert {k: sorted(v) for k, v in forward.merges} == {k: sorted(v) for k, v in backward.merges}


def test_centroids_alone_never_match_below_the_threshold(previous_and_current):
    previous, current = previous_and_current
    matching = match_topics(previous, current, min_overlap=0.3, min_similarity=0.99)
    assert 106 not in matching.continued and 106 in matching.new and 6 in matching.gone


def test_a_topic_whose_papers_scattered_is_not_rematched_by_its_centroid():
    d = _directions(5, seed=1)
    spread, other = _papers("s", 30), _papers("x", 60)
    previous = [_topic(0, spread, d[0]), _topic(1, other, d[1])]
    current = [
        _topic(10 + k, spread[10 * k : 10 * (k + 1)] + other[20 * k : 20 * (k + 1)], d[2 + k])
        for k in range(3)
    ]
    current.append(_topic(13, _papers("new", 30), d[0]))  # where topic 0 was, but only new papers
    matching = match_topics(previous, current, 0.3, 0.7)
    assert matching.splits == [(1, [10, 11, 12])]
    assert matching.new == [13] and matching.gone == [0]


def test_stable_ids_keep_continued_ids_and_never_reuse_one():
    ids, next_id = stable_ids([7, 3, 9, 1], {3: 0, 1: 4}, next_id=6)
    assert ids == {7: 6, 3: 0, 9: 7, 1: 4}
    assert next_id == 8


def test_first_run_is_numbered_by_size(tmp_path):
    d = _directions(3)
    current = [_topic(k, _papers(f"t{k}", 10 - k), d[k]) for k in range(3)]
    ids, matching, baseline, run = follow_topics(TopicHistory(tmp_path), current, 0.3, 0.7)
    assert baseline is None and run == 1
    assert ids == {0: 0, 1: 1, 2: 2}
    assert matching.new == [0, 1, 2]


def test_history_follows_runs_and_a_repeated_partition_replaces_its_record(tmp_path):
    history = TopicHistory(tmp_path)
    d = _directions(3)
    first = [_topic(0, _papers("a", 20), d[0], "alpha"), _topic(1, _papers("b", 10), d[1], "beta")]
    ids, _, baseline, run = follow_topics(history, first, 0.3, 0.7)
    record_run(history, run, baseline, first)
    # Second run: the two swap size order (keys 0 and 1 swapped) and a third topic appears.
    second = [
        _topic(0, _papers("b", 10) + _papers("nb", 15), d[1]),
        _topic(1, _papers("a", 20), d[0]),
        _topic(2, _papers("c", 5), d[2]),
    ]
    ids, matching, baseline, run = follow_topics(history, second, 0.3, 0.7)
    assert (run, baseline["run"]) == (2, 1)
    assert ids == {0: 1, 1: 0, 2: 2}
    record_run(
        history,
        run,
        baseline,
        [TopicSnapshot(ids[t.id], "", (), t.size, t.centroid, t.papers) for t in second],
    )
    # The same partition again (a forced rerun): matched against run 1 again, written as run 2.
    again_ids, again, baseline, run = follow_topics(history, second, 0.3, 0.7)
    assert (run, baseline["run"]) == (2, 1)
    assert again_ids == ids and again.new == matching.new == [2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["topics.json"]
    # A gone topic's id is never given again: the next new topic gets 3, not 0.
    third = [_topic(0, _papers("b", 10) + _papers("nb", 15), d[1]), _topic(1, _papers("z", 8), d[2] * -1)]
    ids, matching, _, run = follow_topics(history, third, 0.3, 0.7)
    assert run == 3 and ids == {0: 1, 1: 3} and matching.gone == [0, 2]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'{"format": 1, "run": ', "line 1, column 22: not a topic history record"),
        (b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
        (b'{"format": 0}', "topic history format 0 is not 2"),
        (b"[1, 2]", "topic history format 'list' is not 2"),
    ],
)
def test_a_damaged_history_record_names_the_file_and_the_way_on(tmp_path, content, problem):
    history = TopicHistory(tmp_path)
    d = _directions(1)
    topics = [_topic(0, _papers("a", 20), d[0], "alpha")]
    ids, _, baseline, run = follow_topics(history, topics, 0.3, 0.7)
    record_run(history, run, baseline, topics)
    (tmp_path / "topics.json").write_bytes(content)
    with pytest.raises(PipelineInputError) as raised:
        follow_topics(history, topics, 0.3, 0.7)
    message = str(raised.value)
    assert message.startswith(str(tmp_path / "topics.json")) and problem in message
    assert message.endswith("or run `make reset-topic-ids` to number the topics afresh")


def test_partition_digest_ignores_ids_and_order():
    d = _directions(2)
    one = [_topic(0, ["a", "b"], d[0]), _topic(1, ["c"], d[1])]
    other = [_topic(5, ["c"], d[0]), _topic(2, ["b", "a"], d[1])]
    assert partition_digest(one) == partition_digest(other)
    assert partition_digest(one) != partition_digest([_topic(0, ["a"], d[0]), _topic(1, ["b", "c"], d[1])])


def _fits_phrases(phrases_of: dict[int, set[str]]):
    """A labeller's judgement that names a topic by the phrases given for it."""
    return lambda topic, phrase, main=True: phrase in phrases_of.get(topic, set())


def test_a_label_is_kept_while_each_of_its_phrases_fits_whatever_its_length():
    fits = _fits_phrases({0: {"convolutional neural networks", "markov chain monte carlo", "node"}})
    assert label_still_fits("convolutional neural networks, node (topic 4)", lambda p, main: fits(0, p))
    assert label_still_fits("markov chain monte carlo", lambda p, main: fits(0, p))
    assert not label_still_fits("convolutional neural networks, molecules", lambda p, main: fits(0, p))
    assert not label_still_fits("", lambda p, main: True)
    # The first phrase is judged as the label's main phrase, the second as a phrase of it.
    judged = []
    label_still_fits("convolutional neural networks, node", lambda p, main: judged.append((p, main)) or True)
    assert judged == [("convolutional neural networks", True), ("node", False)]


def test_carry_labels_keeps_fitting_labels_and_keeps_labels_distinct():
    fresh = {0: "gnn, graphs", 1: "policy, reward", 7: "auctions, bidders"}
    fits = _fits_phrases({0: {"graph neural networks", "gnn"}, 1: {"policy", "reward"}, 7: {"auctions"}})
    earlier = {0: "graph neural networks", 1: "reinforcement learning", 3: "auctions, bidders"}
    labels, relabelled = carry_labels(fresh, fits, earlier)
    assert labels[0] == "graph neural networks"  # kept: it still fits
    assert labels[1] == "policy, reward"  # its old phrase no longer fits
    assert relabelled == [{"id": 1, "from": "reinforcement learning", "to": "policy, reward"}]
    assert labels[7] == "auctions, bidders"  # topic 3's label, but topic 3 is not kept: no clash
    labels, _ = carry_labels(
        {0: "graph neural networks", 2: "graph neural networks"},
        _fits_phrases({0: {"graph neural networks"}}),
        {0: "graph neural networks"},
    )
    assert labels == {0: "graph neural networks", 2: "graph neural networks (topic 2)"}


def test_what_became_of_a_missing_id_names_this_runs_topics_by_stable_id():
    # This run's rows 0, 1, 2 carry stable ids 9, 3, 4: a merge into row 0 is "now 9".
    table = TopicIds(cluster=np.arange(3), size=np.array([30, 20, 10])).with_stable({0: 9, 1: 3, 2: 4})
    matching = Matching(merges=[(0, [5, 6])], splits=[(7, [1, 2])], gone=[8])
    why = why_missing(matching, table)
    assert why[5] == why[6] == "merged with other topics into a topic of this run (now 9)"
    assert why[7] == "split into topics 3, 4"
    assert why[8].startswith("gone")
