"""The authors' keywords (issue 50): read from the dumps that carry them, and a topic's first label
candidates (papertopics.topics.author_keywords), on real papers of the free-keyword corpus.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import make_workdir, require_corpus, run_workflow
from papertopics.ingest.parse import paper_keywords, parse_dump
from papertopics.topics.author_keywords import keyword_key
from papertopics.topics.curation import Curated
from papertopics.topics.label_display import FROM_AUTHOR_KEYWORDS, FROM_PAPERS
from papertopics.topics.labeller import PaperTexts, label_topics
from papertopics.topics.phrases import label_phrases

EXPORTS = Path(__file__).parent / "data" / "exports"
# Papers a topic of the test corpus holds, each topic a field the corpus's authors name.
PER_TOPIC = 12
FIELDS = ("imitation learning", "in-context learning", "autonomous driving")


def test_keywords_survive_parsing_of_exports_and_of_json_and_table_dumps(tmp_path):
    wos = parse_dump(EXPORTS / "wos_savedrecs.txt", min_abstract_chars=20).papers
    assert paper_keywords(wos[0]) == ["soil moisture", "synthetic aperture radar", "physics-guided learning"]
    ris = parse_dump(EXPORTS / "endnote.ris", min_abstract_chars=20).papers
    assert paper_keywords(ris[0]) == ["reinforcement learning", "type 1 diabetes", "insulin dosing"]
    abstract = "We study how robots learn from demonstrations. " * 4
    (tmp_path / "openreview.jsonl").write_text(
        json.dumps({"title": "T", "abstract": abstract, "keywords": ["Imitation Learning", "Robot Learning"]})
        + "\n",
        encoding="utf-8",
    )
    (tmp_path / "table.csv").write_text(
        f'title,abstract,Author Keywords\nT,"{abstract}","imitation learning, robot learning"\n',
        encoding="utf-8",
    )
    (tmp_path / "plain.csv").write_text(f'title,abstract\nT,"{abstract}"\n', encoding="utf-8")
    assert paper_keywords(parse_dump(tmp_path / "openreview.jsonl", 20).papers[0]) == [
        "Imitation Learning",
        "Robot Learning",
    ]
    assert paper_keywords(parse_dump(tmp_path / "table.csv", 20).papers[0]) == [
        "imitation learning",
        "robot learning",
    ]
    assert paper_keywords(parse_dump(tmp_path / "plain.csv", 20).papers[0]) == []


@pytest.fixture(scope="module")
def corpus():
    """``PER_TOPIC`` real papers for each of ``FIELDS`` (papers carrying that keyword and none of
    the others'), their topics, vectors near their topic's centroid, and their keywords.
    """
    path = require_corpus("openreview_free_keywords.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    fields = [keyword_key(f) for f in FIELDS]
    chosen, topics = [], []
    for topic, field in enumerate(fields):
        others = set(fields) - {field}
        matching = [
            r
            for r in records
            if field in {keyword_key(k) for k in r["keywords"]}
            and not others & {keyword_key(k) for k in r["keywords"]}
        ]
        assert len(matching) >= PER_TOPIC, field
        chosen += matching[:PER_TOPIC]
        topics += [topic] * PER_TOPIC
    rng = np.random.default_rng(0)
    centroids = rng.normal(size=(len(FIELDS), 16))
    vectors = centroids[topics] + 0.1 * rng.normal(size=(len(topics), 16))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return chosen, np.array(topics), vectors


def _labels(corpus, keywords):
    records, topics, vectors = corpus
    curated = Curated(topics, topics, {}, {}, [])
    return label_topics(
        [r["abstract"] for r in records],
        vectors,
        curated,
        {},
        {},
        {},
        0,
        read=PaperTexts([r["title"] for r in records], keywords, 2),
    )


def test_a_keyword_the_topics_papers_share_labels_it_in_the_form_most_write(corpus):
    records, topics, _ = corpus
    field = keyword_key(FIELDS[0])
    keywords = [list(r["keywords"]) for r in records]
    members = np.flatnonzero(topics == 0)
    # The same keyword in two forms: the label takes the one more of the topic's papers write.
    for majority, minority in (
        ("Imitation Learning", "imitation learning"),
        ("imitation learning", "IMITATION learning"),
    ):
        for position, row in enumerate(members):
            form = majority if position < len(members) // 2 + 1 else minority
            keywords[row] = [form if keyword_key(k) == field else k for k in records[row]["keywords"]]
        labelled = _labels(corpus, keywords)
        assert labelled.label_of[0] == majority
        assert labelled.source[0] == FROM_AUTHOR_KEYWORDS


def test_a_second_keyword_half_the_topics_papers_carry_joins_the_first(corpus):
    records, topics, _ = corpus
    members = np.flatnonzero(topics == 2)  # autonomous driving: every paper carries it
    # Its initials on 8 papers restate it; a second name on 6 (half) joins it, on 5 does not.
    for carrying, second in (
        (6, ["autonomous driving", "trajectory prediction"]),
        (5, ["autonomous driving"]),
    ):
        keywords = [list(r["keywords"]) for r in records]
        for position, row in enumerate(members):
            keywords[row] += ["AD"] * (position < 8) + ["Trajectory Prediction"] * (position < carrying)
        label = _labels(corpus, keywords).label_of[2]
        assert [keyword_key(phrase) for phrase in label_phrases(label)] == [keyword_key(k) for k in second]


def test_a_keyword_of_one_paper_names_no_topic(corpus):
    records, topics, _ = corpus
    # Topic 0's papers each carry a keyword of their own, and one carries the field's name.
    keywords = [
        [f"keyword {_letters(row)}"] if topic == 0 else list(r["keywords"])
        for row, (r, topic) in enumerate(zip(records, topics, strict=True))
    ]
    keywords[int(np.flatnonzero(topics == 0)[0])].append("Imitation Learning")
    labelled = _labels(corpus, keywords)
    assert labelled.source[0] == FROM_PAPERS
    assert labelled.label_of[0] == _labels(corpus, None).label_of[0]


def _letters(number: int) -> str:
    """A word of its own for each number (the labeller reads no digits, nor one letter)."""
    return "".join(2 * chr(ord("a") + int(digit)) for digit in str(number))


def test_a_dump_without_keywords_is_labelled_as_before(corpus):
    records, _, _ = corpus
    without = _labels(corpus, None)
    assert _labels(corpus, [[] for _ in records]).label_of == without.label_of
    assert set(without.source.values()) == {FROM_PAPERS}
    with_keywords = _labels(corpus, [r["keywords"] for r in records])
    assert with_keywords.label_of != without.label_of  # the keywords are read where they are given


@pytest.mark.slow
def test_a_dumps_keywords_reach_the_labels_through_the_workflow(corpus, tmp_path):
    """A JSON Lines dump of the test corpus's papers (title, abstract, keywords) through the whole
    workflow: some topic takes one of its papers' keywords as label, and says so.
    """
    records, _, _ = corpus
    lines = [json.dumps({k: r[k] for k in ("title", "abstract", "keywords")}) for r in records]
    workdir = make_workdir(tmp_path, {"papers.jsonl": "\n".join(lines) + "\n"})
    run_workflow(workdir)
    details = json.loads((workdir / "results/topics/topic_details.json").read_text(encoding="utf-8"))
    written = {k for r in records for k in r["keywords"]}
    from_keywords = [d for d in details["topics"] if d["label_source"] == FROM_AUTHOR_KEYWORDS]
    assert from_keywords and all(set(label_phrases(d["label"])) <= written for d in from_keywords)
