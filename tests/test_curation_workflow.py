"""Curation through the whole workflow: curate after a run, add a dump, rerun."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest
import yaml
from conftest import make_workdir, planned_jobs, run_workflow, write_config
from test_topic_history_workflow import IJCAI

pytestmark = pytest.mark.slow


def _dump(year: int, count: int) -> str:
    """The first ``count`` IJCAI papers of ``year`` as a JSON Lines dump (title, abstract, year)."""
    with gzip.open(IJCAI, "rt", encoding="utf-8") as lines:
        papers = [json.loads(line) for line in lines]
    chosen = [p for p in papers if p["year"] == year][:count]
    return "".join(json.dumps({k: p[k] for k in ("title", "abstract", "year")}) + "\n" for p in chosen)


@pytest.mark.skipif(not IJCAI.exists(), reason="needs ../shared/corpora (the dumps are slices of IJCAI)")
def test_curation_holds_after_a_new_dump_and_names_what_it_cannot_find(tmp_path):
    dumps = {"ijcai2022.jsonl": _dump(2022, 150), "ijcai2023.jsonl": _dump(2023, 150)}
    workdir = make_workdir(tmp_path / "run", dumps)
    run_workflow(workdir)
    results = workdir / "results"
    first = json.loads((results / "topics" / "topic_details.json").read_text(encoding="utf-8"))
    ids = [t["topic"] for t in first["topics"] if t["topic"] != -1]
    assert len(ids) >= 4, "300 IJCAI papers make at least four topics"
    renamed, (keeper, merged), hidden = ids[0], ids[1:3], ids[-1]
    curation = {
        "rename": {renamed: "Model compression", 999: "A topic that never was"},
        "merge": [[keeper, merged]],
        "hide": [hidden],
        "note": {renamed: "Pruning & <b>quantisation</b>"},
    }
    (workdir / "curation.yaml").write_text(yaml.safe_dump(curation), encoding="utf-8")
    write_config(workdir, topics={"curation": "curation.yaml"})
    # A new curation file reruns the topics stage and what follows it, nothing before.
    assert set(planned_jobs(workdir)) == {
        "topics",
        "keep_fit",
        "changes",
        "venues",
        "evaluate",
        "report",
        "publish",
        "all",
    }

    (workdir / "data" / "raw" / "ijcai2024.jsonl").write_text(_dump(2024, 60), encoding="utf-8")
    run_workflow(workdir)

    details = json.loads((results / "topics" / "topic_details.json").read_text(encoding="utf-8"))
    by_id = {t["topic"]: t for t in details["topics"]}
    assert by_id[renamed]["label"] == "Model compression" and by_id[renamed]["curated"]
    assert by_id[renamed]["note"] == "Pruning & <b>quantisation</b>"
    assert not any(t.get("curated") for t in details["topics"] if t["topic"] != renamed)
    topics = pd.read_csv(results / "topics" / "topics.csv", keep_default_na=False)
    assert topics.set_index("id")["curated"].to_dict()[renamed]
    assert topics["curated"].sum() == 1

    # The merged pair stays one topic, under the first id; the hidden topic is not a topic.
    lineage = json.loads((results / "topics" / "lineage.json").read_text(encoding="utf-8"))
    assert not lineage["first_run"]
    assert keeper in by_id and merged not in by_id and hidden not in by_id
    papers = pd.read_csv(results / "topics" / "papers.csv", keep_default_na=False, dtype={"id": str})
    assert set(papers["topic"]) == set(by_id)
    assert (papers.loc[papers["topic_label"] == "Not a topic", "topic"] == -1).all()
    curated = details["settings"]["curation"]
    assert curated["merged"] == [{"into": keeper, "from": [merged]}]
    assert [h["id"] for h in curated["hidden"]] == [hidden]

    # The id that does not exist is named in the log and the report, and nothing failed.
    assert [m["id"] for m in curated["missing"]] == [999]
    log = (results / "logs" / "topics.log").read_text(encoding="utf-8")
    assert "topic 999 (rename) no longer exists" in log
    report = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert "topic 999 (rename) no longer exists" in report
    assert "(curated label)" in report and "Pruning &amp; &lt;b&gt;quantisation&lt;/b&gt;" in report
    assert "<b>quantisation" not in report

    # A malformed entry stops the run, before any job, with the file and line; results stay.
    (workdir / "curation.yaml").write_text("hide: [31]\nrename: {2: 5}\n", encoding="utf-8")
    failed = run_workflow(workdir, check=False)
    assert failed.returncode != 0
    assert "curation.yaml line 2: rename/2: 5 is not of type 'string'" in failed.stdout + failed.stderr
    assert (results / "report" / "index.html").read_text(encoding="utf-8") == report
    assert (results / "topics" / "topics.csv").exists()
