"""The whole workflow on three real conference years, added one at a time: a field that rises
steadily is a significant rising trend, and the rerun says what moved and how topics flowed.
"""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest
from conftest import CORPORA, make_workdir, run_workflow

pytestmark = pytest.mark.slow
IJCAI = CORPORA / "ijcai_2020_2024_areas.jsonl.gz"
PER_YEAR = 150
# Federated-learning papers per year, as in the trial of issue #20: 0.7% -> 5% -> 16% of the papers.
FEDERATED = {2021: 1, 2022: 8, 2024: 24}


def _year_dump(papers: list[dict], year: int) -> str:
    """``PER_YEAR`` IJCAI papers of ``year``: its first ``FEDERATED[year]`` federated-learning
    papers, then its first other papers (in the corpus's order).
    """
    of_year = [p for p in papers if p["year"] == year]
    federated = [p for p in of_year if "federated" in p["abstract"].lower()][: FEDERATED[year]]
    others = [p for p in of_year if "federated" not in p["abstract"].lower()][: PER_YEAR - len(federated)]
    return "".join(
        json.dumps({k: p[k] for k in ("id", "title", "abstract", "year")}) + "\n" for p in federated + others
    )


def details_topics(results) -> int:
    """The real topics (the outlier group left out) the topics stage wrote."""
    details = json.loads((results / "topics" / "topic_details.json").read_text(encoding="utf-8"))
    return sum(t["topic"] != -1 for t in details["topics"])


@pytest.mark.skipif(not IJCAI.exists(), reason="needs ../shared/corpora (three years of IJCAI papers)")
def test_a_field_rising_over_three_years_is_a_significant_trend_and_the_rerun_says_what_moved(tmp_path):
    with gzip.open(IJCAI, "rt", encoding="utf-8") as lines:
        papers = [json.loads(line) for line in lines]
    # Embedded in float32: the same vectors on every CPU. In bfloat16 they differ with the CPU's
    # features, and on some machines these 450 papers put the federated-learning papers in a
    # 215-paper topic of game theory and allocation instead of a topic of their own.
    workdir = make_workdir(
        tmp_path,
        {f"ijcai{year}.jsonl": _year_dump(papers, year) for year in (2021, 2022)},
        embedding={"backend": "torch"},
    )
    results = workdir / "results"
    run_workflow(workdir)
    first = json.loads((results / "topics" / "changes.json").read_text(encoding="utf-8"))
    assert first["periods"] == ["2021", "2022"] and not first["trends"]["available"]
    assert "3 or more years" in first["trends"]["reason"] and not first["bursts"]["available"]

    (workdir / "data" / "raw" / "ijcai2024.jsonl").write_text(_year_dump(papers, 2024), encoding="utf-8")
    run_workflow(workdir)
    changes = json.loads((results / "topics" / "changes.json").read_text(encoding="utf-8"))
    assert changes["periods"] == ["2021", "2022", "2024"] and changes["period_papers"] == [PER_YEAR] * 3

    # The topic holding most federated-learning papers rises, significantly, with its counts.
    assigned = pd.read_csv(results / "topics" / "papers.csv", keep_default_na=False, dtype={"id": str})
    federated_topic = assigned[assigned["abstract"].str.lower().str.contains("federated")]["topic"].mode()[0]
    trend = next(t for t in changes["trends"]["topics"] if t["topic"] == federated_topic)
    assert (trend["direction"], trend["grade"]) == ("rising", "significant"), trend
    assert trend["slope_low_pp"] > 0 and trend["papers"][0] < trend["papers"][-1]
    trends_csv = pd.read_csv(results / "topics" / "trends.csv", keep_default_na=False)
    assert len(trends_csv) == len(changes["trends"]["topics"]) == details_topics(results)
    assert list(trends_csv.columns[-2:]) == ["papers 2024", "share 2024"]

    # Shares the first run published are recomputed; the rerun says where they moved, if anywhere.
    assert changes["recomputed"]["previous_run"] == 1 and changes["recomputed"]["compared"]
    shares_kept = json.loads((results / "history" / "shares.json").read_text(encoding="utf-8"))
    assert (shares_kept["run"], shares_kept["previous"]["run"]) == (2, 1)
    assert shares_kept["csv"] == (results / "topics" / "dump_shares.csv").read_text(encoding="utf-8")
    # How the first run's topics flowed into this run's: every new paper arrives somewhere.
    flows = json.loads((results / "topics" / "lineage.json").read_text(encoding="utf-8"))["flows"]
    assert flows["links"] and sum(entry["papers"] for entry in flows["new_papers"]) <= PER_YEAR
    # Each topic's wording in each year it has papers in.
    details = json.loads((results / "topics" / "topic_details.json").read_text(encoding="utf-8"))
    assert details["settings"]["wording_by"] == "year"
    wording = next(t for t in details["topics"] if t["topic"] == federated_topic)["wording"]
    assert [w["period"] for w in wording] == [
        p for p, n in zip(changes["periods"], trend["papers"], strict=True) if n
    ]
    assert all(w["keywords"] for w in wording)

    report = (results / "report" / "index.html").read_text(encoding="utf-8")
    for marker in (
        'id="rising-topics"',
        'id="lineage-sankey"',
        'data-filename="trends.csv"',
        'id="recomputed"',
    ):
        assert marker in report
