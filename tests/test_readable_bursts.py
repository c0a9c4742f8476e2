"""Bursts a reader can read: no PDF-extraction artefact, no stop-phrase of the corpus, a readable
number per period; and the parse stage's clean-up of glyph codes and ligatures, counted.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from conftest import default_config
from papertopics.changes.compare import CompareSettings, describe_changes
from papertopics.changes.tables import burst_table
from papertopics.ingest.parse import parse_dump
from papertopics.periods.assign import paper_periods
from papertopics.report.overview import extraction_note
from papertopics.text import fix_extraction_artefacts

NO_HISTORY = {"first_run": True, "run": 1, "previous_run": None, "topics": 0}
YEARS = [str(y) for y in range(2001, 2009)]
FILLER = "we study the problem and report results on benchmarks with analysis of the method"


def test_glyph_codes_go_and_ligatures_fold_with_counts():
    text, codes, ligatures = fix_extraction_artefacts(
        "Neural net(cid:173) works for classi\ufb01cation (cid:12) of e\ufb00ects (cid:173) and \ufb02ows"
    )
    assert text == "Neural networks for classification of effects and flows"
    assert (codes, ligatures) == (3, 3)
    assert fix_extraction_artefacts("plain text") == ("plain text", 0, 0)


def _abstract(rng, year_index: int, topic: int, number: int) -> str:
    words = [FILLER, f"topic{topic} words", f"sample{year_index}x{number}"]  # unique: no duplicates
    # The PDF extractor of the early years left soft-hyphen codes in most abstracts, more in
    # topic 0's and 1's, as the eras' topics do (so that, left in, "cid 173" gathers in topics and
    # would burst).
    if year_index < 3 and rng.random() < {0: 0.95, 1: 0.6}.get(topic, 0.05):
        words.append("connec(cid:173) tionist net(cid:173) works with back(cid:173) propagation (cid:173)")
    # A phrase of the corpus's writing: in a third of every year's papers, more in topic 1, and
    # more and more so late (it would burst there).
    if rng.random() < (0.2 if year_index < 5 else 0.6) * (1.6 if topic == 1 else 0.9):
        words.append("state of the art")
    # A real new term, in topic 2 from 2007.
    if year_index >= 6 and topic == 2 and rng.random() < 0.8:
        words.append("diffusion models")
    if rng.random() < 0.1:
        words.append("the \ufb01rst \ufb01nding")
    return " ".join(words)


def _corpus(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "papers.jsonl"
    topics = []
    with path.open("w", encoding="utf-8") as out:
        for index, year in enumerate(YEARS):
            for number in range(200):
                topic = int(rng.integers(0, 5))
                topics.append(topic)
                record = {
                    "title": f"Paper {year}-{number}",
                    "abstract": _abstract(rng, index, topic, number),
                    "year": year,
                }
                out.write(json.dumps(record) + "\n")
    return path, topics


def test_artefacts_and_stop_phrases_never_burst_and_each_period_shows_a_readable_number(tmp_path):
    path, topics = _corpus(tmp_path)
    parsed = parse_dump(path, min_abstract_chars=10)
    assert len(parsed.papers) == len(topics)
    artefacts = parsed.summary()["extraction_artefacts"]
    assert artefacts["papers"] > 300 and artefacts["glyph_codes"] > 500 and artefacts["ligatures"] > 100
    # The report's notes on the input say what was cleaned.
    note = extraction_note({"dumps": [parsed.summary()]})
    assert note.startswith(f"{artefacts['papers']:,} abstracts carried PDF-extraction artefacts")
    one = {"papers": 1, "glyph_codes": 1, "ligatures": 0}
    assert extraction_note({"dumps": [{"extraction_artefacts": one}]}) == (
        "1 abstract carried PDF-extraction artefacts, cleaned before the topics: "
        "1 glyph code such as (cid:173) removed."
    )
    texts = [p["text"] for p in parsed.papers]
    assert not any("cid" in t or "\ufb01" in t for t in texts)
    papers = pd.DataFrame(
        {
            "id": [p["id"] for p in parsed.papers],
            "dumps": "papers",
            "year": [p["year"] for p in parsed.papers],
            "topic": topics[: len(parsed.papers)],
            "outlier": False,
            "display_name": [p["display_name"] for p in parsed.papers],
        }
    )
    details = [{"topic": t, "label": f"topic {t}", "representative_ids": []} for t in range(5)]

    def bursts(texts, **overrides):
        settings = CompareSettings(**{**default_config()["compare"], **overrides})
        _, record = describe_changes(
            papers,
            texts,
            details,
            NO_HISTORY,
            paper_periods(papers, settings.by, ["papers"]),
            settings,
            "english",
        )
        return record

    record = bursts(texts)
    terms = [b["term"] for b in record["bursts"]["bursts"]]
    assert "diffusion models" in terms
    assert not any("cid" in t or "173" in t for t in terms)
    assert not any("state art" in t for t in terms), terms
    assert record["bursts"]["stop_phrases"] > 0 and "benchmarks" in record["bursts"]["stop_phrase_examples"]
    # The same texts with the artefacts left in: "cid" and "173" would burst (what the clean-up
    # prevents), and "state art" would burst without the stop-phrase rule.
    raw = [p["abstract"] for p in parsed.papers]
    assert {"cid", "173"} <= {word for b in bursts(raw)["bursts"]["bursts"] for word in b["term"].split()}
    assert any("state art" in b["term"] for b in bursts(texts, burst_stop_share=1.0)["bursts"]["bursts"])
    # At most bursts_shown per period; every burst, shown or not, in bursts.csv, ranked.
    capped = bursts(raw, bursts_shown=1, burst_stop_share=1.0)
    listed = capped["bursts"]["bursts"]
    assert len(listed) > 2
    for year in YEARS:
        assert sum(b["shown"] and year in b["periods"] for b in listed) <= 1
    table = burst_table(capped)
    assert len(table) == len(listed) and table["rank_score"].is_monotonic_decreasing
    assert (~table["shown"]).any()


def test_a_keyphrase_never_runs_across_punctuation():
    from papertopics.changes.bursts import term_counts

    texts = [
        f"Large language models (LLMs) answer questions; agents plan. Paper {number}." for number in range(6)
    ]
    found = term_counts(texts, np.arange(6), np.array(["2024"] * 6), ["2024"], "english", 2)
    terms = set(found.terms.tolist())
    assert {"large language models", "llms", "answer questions", "agents plan"} <= terms
    # Words on either side of a bracket, a semicolon or a full stop are not one phrase.
    assert not {"language models llms", "models llms", "questions agents", "plan paper"} & terms
