"""The keyphraseness table (papertopics.topics.keyphraseness): which phrases a field uses as names,
counted from real papers' text and their authors' keywords, and the table the package ships.
"""

from __future__ import annotations

import gzip
import json
import tomllib
from pathlib import Path

from conftest import require_corpus
from papertopics.topics.keyphraseness import TABLE, count, keyword_keys, load
from papertopics.topics.phrases import phrase_key
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from bench.keyphraseness_table import write

STOP = frozenset(ENGLISH_STOP_WORDS)


def test_a_keyword_names_itself_its_parenthesised_acronym_and_its_comma_parts():
    keys = keyword_keys("Parameter-Efficient Fine-Tuning (PEFT)")
    assert phrase_key("parameter efficient fine tuning") in keys and ("peft",) in keys
    assert keyword_keys("Economic Paradigms, Auctions") >= {
        phrase_key("auctions"),
        phrase_key("economic paradigms"),
    }


def test_counted_from_real_papers_a_name_is_a_keyword_more_often_than_a_common_word(tmp_path):
    # COLM papers (the first of the file) with their authors' keywords: "reinforcement learning" is listed by a share
    # of the papers writing it; "method", written by most, by almost none.
    path = require_corpus("openreview_free_keywords.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        papers = [json.loads(line) for line in lines][:600]
    table = count(
        [p["abstract"] for p in papers], [p["keywords"] for p in papers], STOP, [p["title"] for p in papers]
    )
    name, word = phrase_key("reinforcement learning"), ("method",)
    assert table.text[word] > table.text[name] > 0
    assert table.keyword[name] >= 5 and table.ratio(name) > 10 * table.ratio(word)
    assert table.names_alone(("reasoning",)) and not table.names_alone(word)
    # Papers without keywords add nothing; written and read back, the counts are the same.
    assert count(["reinforcement learning"], [[]], STOP).text.total() == 0
    write(table, tmp_path / "table.tsv.gz", ["provenance"], least_text=10)
    again = load(tmp_path / "table.tsv.gz")
    assert again.keyword == +table.keyword and all(again.text[k] == table.text[k] for k in again.text)


def test_the_shipped_table_is_small_states_its_provenance_and_is_package_data():
    assert TABLE.stat().st_size <= 5 * 2**20
    with gzip.open(TABLE, "rt", encoding="utf-8") as lines:
        header = [line for line in lines if line.startswith("#")]
    assert any("bench/keyphraseness_table.py" in line for line in header)
    assert any("no title or abstract" in line for line in header)
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert TABLE.name in project["tool"]["setuptools"]["package-data"]["papertopics.topics"]
    shipped = load()
    # Names the field uses alone, and words it only uses inside longer names (issue 61).
    assert shipped.names_alone(("clustering",)) and shipped.names_alone(("navigation",))
    assert not any(shipped.names_alone((w,)) for w in ("program", "precision", "search", "time", "video"))
