"""update: place end to end on the shipped dumps: the first run refits and says so, a new dump is
placed on that fit (the earlier papers' rows unchanged), a planted field is reported as new in its
dump, and a rerun with nothing new plans nothing.
"""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from conftest import good_run
from papertopics import storage
from papertopics.embed.encoders import corpus_embeddings
from papertopics.mapping.similar import similar_papers

from tests.workflow_support import REPO, SEEDS, make_workdir, planned_jobs, run_workflow

PLANTED = REPO / "tests" / "data" / "placement" / "reefs.txt"
ROW = ["topic", "topic_label", "outlier", "x", "y"]


@pytest.mark.slow
def test_a_placed_dump_keeps_the_earlier_papers_and_reports_a_new_field(tmp_path):
    first, later = SEEDS[0], SEEDS[1]
    workdir = make_workdir(tmp_path, {first.name: first.read_bytes()}, update="place")
    run_workflow(workdir)
    clusters = json.loads((workdir / "results/clusters/hdbscan.json").read_text())
    assert "everything was refitted" in clusters["placement"]["note"]
    assert "everything was refitted" in (workdir / "results/report/index.html").read_text()
    before = pd.read_csv(workdir / "results/topics/papers.csv", dtype=str).set_index("id")
    fit = {path.name: path.read_bytes() for path in (workdir / "results/fit").rglob("*.joblib")}
    fit_similar = (workdir / "results/fit/similar.npz").read_bytes()
    # The fit keeps each paper's topic, label and group label, which a placed update keeps.
    kept = storage.read_arrays(workdir / "results/fit/topics.npz")
    fitted = json.loads((workdir / "results/topics/topic_details.json").read_text())
    group_label = {topic: group["label"] for group in fitted["groups"] for topic in group["topics"]}
    assert kept["ids"].tolist() == before.index.tolist()
    assert kept["label"].tolist() == before["topic_label"].tolist()
    assert kept["group_label"].tolist() == [group_label.get(int(t), "") for t in before["topic"]]

    shutil.copy(later, workdir / "data/raw" / later.name)
    shutil.copy(PLANTED, workdir / "data/raw" / PLANTED.name)
    run_workflow(workdir)
    after = pd.read_csv(workdir / "results/topics/papers.csv", dtype=str).set_index("id")
    assert after.loc[before.index, ROW].equals(before[ROW])
    # papers.csv says which papers were placed on the fit: the new dumps' only.
    assert (before["placed"] == "False").all()
    assert (after["placed"] == "True").tolist() == [i not in before.index for i in after.index]
    # Placing needs no neighbour graph of the whole corpus: none was searched.
    assert not storage.read_arrays(workdir / "results/reduced/neighbours.npz")["searched"]
    assert len(after) > len(before)
    # The fit placed on is published again as it was: the next dump is placed on the same map.
    assert {path.name: path.read_bytes() for path in (workdir / "results/fit").rglob("*.joblib")} == fit
    assert (workdir / "results/fit/similar.npz").read_bytes() == fit_similar
    # The new papers' similar papers are searched against all, and added to the fit's kept lists:
    # as an exact search of the whole corpus would list them.
    added = len(after) - len(before)
    assert (
        f"{added} added to the fit's kept lists" in (workdir / "results/logs/similar_papers.log").read_text()
    )
    _, vectors = corpus_embeddings(
        str(workdir / "results/corpus/papers.jsonl"),
        sorted(map(str, (workdir / "results/embeddings").glob("*.npz"))),
    )
    listed = storage.read_arrays(workdir / "results/similar/papers.npz")["indices"]
    assert (listed == similar_papers(vectors, listed.shape[1], exact_up_to=len(vectors))[0]).mean() > 0.99
    placement = json.loads((workdir / "results/clusters/hdbscan.json").read_text())["placement"]
    details = json.loads((workdir / "results/topics/topic_details.json").read_text())
    # The fit, of one dump, worded no period: the placed run words each of its dumps.
    fitted_wording = json.loads((workdir / "results/fit/wording.json").read_text())["topics"]
    assert fitted_wording
    assert not any(fitted_wording.values())
    worded = {entry["period"] for topic in details["topics"] for entry in topic["wording"]}
    assert worded == set(after["dump"])
    assert placement["new_papers"] == len(after) - len(before)
    assert placement["new_topics"] >= 1 and placement["refit_recommended"]  # the map lacks the field
    new = [topic for topic in details["settings"]["placement"]["new_topics"] if topic["dump"] == "reefs"]
    assert len(new) == 1
    planted = after[after["dump"] == "reefs"]
    assert (planted["topic"] == str(new[0]["topic"])).mean() >= 0.75
    assert (after[after["dump"] != "reefs"]["topic"] != str(new[0]["topic"])).all()
    assert f"new in reefs: topic {new[0]['topic']}" in (workdir / "results/report/index.html").read_text()
    assert planned_jobs(workdir) == {}


@pytest.mark.slow
def test_a_fit_from_elsewhere_is_refitted_never_loaded(seed_run, tmp_path, monkeypatch):
    # Issue #62: a finished run's results/fit/ replaced by pickles that would run code when
    # loaded (unsigned, signed with another installation's key, a forged signature), a dump
    # added, make update.
    from papertopics import signed

    from tests.test_signed_fits import signed_with_another_key, trapped_pickle

    workdir = good_run(seed_run, tmp_path)
    marker = tmp_path / "the fit ran code"
    trap = trapped_pickle(marker)
    fit = workdir / "results/fit"
    for path in sorted(fit.rglob("*.joblib")):
        path.write_bytes(trap)
    (fit / "projections/1.joblib").write_bytes(signed_with_another_key(trap, tmp_path, monkeypatch))
    (fit / "map.joblib").write_bytes(signed.MAGIC + b"0" * 64 + b"\n" + trap)
    shutil.copy(PLANTED, workdir / "data/raw" / PLANTED.name)

    run_workflow(workdir, "--config", "update=place")
    assert not marker.exists()
    for log, refused in (
        ("reduce.log", "results/fit/projections/0.joblib"),
        ("consensus_run/1.log", "results/fit/projections/1.joblib"),
        ("map_layout.log", "results/fit/map.joblib"),
    ):
        text = (workdir / "results/logs" / log).read_text()
        lines = [line for line in text.splitlines() if refused in line and "WARNING" in line]
        assert len(lines) == 1 and "not loaded: fitting afresh" in lines[0], text
    clusters = json.loads((workdir / "results/clusters/hdbscan.json").read_text())
    assert "results/fit/projections/0.joblib" in clusters["placement"]["refused"]
    report = (workdir / "results/report/index.html").read_text()
    method = report[report.index('<section id="method">') :]
    assert "update: place did not load results/fit/projections/0.joblib" in method
    # The run completed with the new dump, refitted, and published a fit of its own, signed.
    papers = pd.read_csv(workdir / "results/topics/papers.csv", dtype=str)
    assert "reefs" in set(papers["dump"]) and (papers["placed"] == "False").all()
    assert set(signed.load(fit / "clusters.joblib")["ids"]) == set(papers["id"])
