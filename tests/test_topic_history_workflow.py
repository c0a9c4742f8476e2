"""The whole workflow rerun on the shipped dumps plus a third dump: persisting topics keep their ids."""

from __future__ import annotations

import gzip
import json
import shutil

import pandas as pd
import pytest
from conftest import CORPORA, planned_jobs, run_workflow

pytestmark = pytest.mark.slow
IJCAI = CORPORA / "ijcai_2020_2024_areas.jsonl.gz"
STAYED_TOGETHER = 0.6


def _third_dump(count: int) -> str:
    """The first ``count`` IJCAI 2024 papers as a JSON Lines dump (title, abstract, year)."""
    with gzip.open(IJCAI, "rt", encoding="utf-8") as lines:
        papers = [json.loads(line) for line in lines]
    chosen = [p for p in papers if p["year"] == 2024][:count]
    return "".join(json.dumps({k: p[k] for k in ("title", "abstract", "year")}) + "\n" for p in chosen)


@pytest.mark.skipif(
    not IJCAI.exists(), reason="needs ../shared/corpora (the third dump is a slice of IJCAI 2024)"
)
def test_rerun_with_a_third_dump_keeps_the_ids_of_topics_that_persist(seed_run, tmp_path):
    workdir = tmp_path / "run"
    shutil.copytree(seed_run, workdir, symlinks=True)
    results = workdir / "results"
    before = pd.read_csv(results / "topics" / "papers.csv", keep_default_na=False, dtype={"id": str})
    first_record = json.loads((results / "history" / "topics.json").read_text(encoding="utf-8"))
    assert (first_record["run"], first_record["previous"]) == (1, None)
    assert json.loads((results / "topics" / "lineage.json").read_text())["first_run"] is True
    assert sorted(t["id"] for t in first_record["topics"]) == list(range(len(first_record["topics"])))

    (workdir / "data" / "raw" / "ijcai2024.jsonl").write_text(_third_dump(40), encoding="utf-8")
    run_workflow(workdir)

    after = pd.read_csv(results / "topics" / "papers.csv", keep_default_na=False, dtype={"id": str})
    lineage = json.loads((results / "topics" / "lineage.json").read_text(encoding="utf-8"))
    assert lineage["first_run"] is False and lineage["previous_run"] == 1 and lineage["run"] == 2
    assert lineage["papers_in_both_runs"] == 38 and lineage["papers_new"] == 40
    second_record = json.loads((results / "history" / "topics.json").read_text(encoding="utf-8"))
    assert second_record["run"] == 2 and second_record["previous"]["run"] == 1

    # Every earlier topic whose papers mostly stayed together in one topic kept its id there,
    # unless it merged there with another earlier topic (only one of them can keep its id).
    topic_now = after.set_index("id")["topic"]
    merged_into = {(f["id"], m["into"]["id"]) for m in lineage["merged"] for f in m["from"]}
    stayed_together = 0
    for old_topic, members in before[before["topic"] != -1].groupby("topic"):
        counts = topic_now.loc[members["id"]].value_counts()
        if counts.iloc[0] >= STAYED_TOGETHER * len(members):
            where = counts.index[0]
            assert where == old_topic or (old_topic, where) in merged_into, (
                f"topic {old_topic} went to {where}"
            )
            stayed_together += 1
    assert stayed_together >= 1
    assert lineage["kept"] and all(t["id"] in set(after["topic"]) for t in lineage["kept"])
    new_ids = set(after["topic"]) - set(before["topic"]) - {-1}
    assert all(i >= first_record["next_id"] for i in new_ids), "an id is never given to another topic"
    explained = {t["id"] for t in lineage["new"]} | {t["id"] for s in lineage["split"] for t in s["into"]}
    assert new_ids <= explained | {m["into"]["id"] for m in lineage["merged"]}

    changes = json.loads((results / "topics" / "changes.json").read_text(encoding="utf-8"))
    assert changes["comparable"] and changes["by"] == "dump" and changes["target"] == "ijcai2024"
    shares = pd.read_csv(results / "topics" / "dump_shares.csv", keep_default_na=False)
    assert set(shares["period"]) == {"000_5d7e815e42406a37", "002_085cfd287f8e6010", "ijcai2024"}
    assert shares.groupby("period")["share"].sum().round(6).eq(1).all()
    report = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert 'id="changes"' in report and 'id="since-previous-run"' in report

    # Nothing changed: nothing reruns, and a forced rerun of topics gives the same ids and events.
    assert planned_jobs(workdir) == {}
    run_workflow(workdir, "--forcerun", "topics")
    again = pd.read_csv(results / "topics" / "papers.csv", keep_default_na=False, dtype={"id": str})
    assert again["topic"].tolist() == after["topic"].tolist()
    assert json.loads((results / "topics" / "lineage.json").read_text(encoding="utf-8")) == lineage
    # The forced rerun found the same partition: it replaced run 2's record, matched against run 1.
    rerun_record = json.loads((results / "history" / "topics.json").read_text(encoding="utf-8"))
    assert rerun_record["run"] == 2 and rerun_record["previous"] == second_record["previous"]
