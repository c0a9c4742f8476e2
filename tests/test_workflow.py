"""The whole workflow on the shipped dumps, and which jobs a change plans on a rerun."""

import base64
import gzip
import io
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import (
    REPO,
    SEEDS,
    TOPICS_ONWARD,
    job_counts,
    make_workdir,
    planned_jobs,
    run_workflow,
    write_config,
)
from plotly.offline import get_plotlyjs

pytestmark = pytest.mark.slow


def test_seed_run_outputs_add_up(seed_run):
    results = seed_run / "results"
    papers = pd.read_csv(results / "topics" / "papers.csv", keep_default_na=False)
    topics = pd.read_csv(results / "topics" / "topics.csv", keep_default_na=False)
    corpus = json.loads((results / "corpus" / "summary.json").read_text())

    assert len(papers) == 38 == corpus["papers"] == sum(d["kept"] for d in corpus["dumps"])
    assert sorted(d["title"] for d in corpus["dumps"]) == ["ICML 2026 Papers", "ICML 2026 论文列表"]
    assert papers["id"].is_unique and papers["topic"].notna().all()
    assert set(papers["topic"]) == set(topics["id"])
    assert topics["size"].sum() == 38 and abs(topics["share"].sum() - 1) < 1e-4
    real_topics = topics[topics["id"] != -1]
    assert len(real_topics) >= 2 and real_topics["size"].sum() > 0
    assert real_topics["label"].is_unique
    assert {"LakeQA", "CrispEdit", "V2A"} <= set(papers["display_name"])
    # Each paper's further topics are other topics, and bridges.csv counts them as papers.csv lists them.
    further = papers[["topic", "second_topic", "third_topic"]].to_numpy()
    listed = [(own, other) for own, *others in further.tolist() for other in others if other != -1]
    assert all(own != other and own != -1 for own, other in listed)
    bridges = pd.read_csv(results / "topics" / "bridges.csv", keep_default_na=False)
    by_pair = {(min(pair), max(pair)): listed.count(pair) + listed.count(pair[::-1]) for pair in listed}
    assert bridges.set_index(["topic_a", "topic_b"])["papers"].to_dict() == by_pair
    strategic = pd.read_csv(results / "topics" / "strategic.csv", keep_default_na=False)
    assert strategic.columns.tolist()[:7] == [
        "topic", "label", "papers", "keywords", "centrality", "density", "quadrant"
    ]  # fmt: skip
    assert set(strategic["topic"]) <= set(real_topics["id"]) and len(strategic) >= 2
    assert set(strategic["quadrant"]) <= {"motor", "niche", "emerging or declining", "basic"}

    model_files = {p.name for p in (results / "topics" / "model").iterdir()}
    assert {"topic_embeddings.safetensors", "topics.json", "config.json"} <= model_files
    # auto sizing for the 38 seed abstracts: about n/10 neighbours and topics of about n/12 papers.
    assert json.loads((results / "reduced" / "umap.json").read_text())["n_neighbors"] == 4
    assert json.loads((results / "clusters" / "hdbscan.json").read_text())["min_cluster_size"] == 3

    report = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert report.count(get_plotlyjs()) == 1, "plotly.js must be inlined exactly once"
    assert 'id="bridges-summary"' in report and 'id="bridges-csv"' in report  # the table and its download
    assert 'id="strategic-diagram"' in report and 'id="strategic-csv"' in report
    ours = report.replace(get_plotlyjs(), "")
    assert "<script src" not in ours and "<link" not in ours
    assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", ours), (
        "the report must load nothing from the network"
    )
    packed = re.search(
        r'<script type="application/gzip\+base64" id="papers-csv">([^<]*)</script>', report
    ).group(1)
    embedded = pd.read_csv(
        io.StringIO(gzip.decompress(base64.b64decode(packed)).decode("utf-8")), keep_default_na=False
    )
    assert embedded["id"].tolist() == papers["id"].tolist(), "the report carries every paper"
    for rule in (
        "parse",
        "corpus",
        "embed",
        "neighbours",
        "reduce",
        "consensus_run",
        "map_layout",
        "cluster",
        "topics",
        "changes",
        "evaluate",
        "similar_papers",
        "report",
        "publish",
    ):
        assert list(results.glob(f"benchmarks/{rule}*")), rule
        assert list(results.glob(f"logs/{rule}*")), rule


def dag_edges(workdir: Path) -> set[tuple[str, str]]:
    """(rule, rule that reads its output) for each edge of the planned job graph (--dag)."""
    dot = run_workflow(workdir, "--dag", "--quiet", "all").stdout
    rules = dict(re.findall(r'^\s*(\d+)\[label = "([^"\\]+)', dot, flags=re.MULTILINE))
    return {(rules[a], rules[b]) for a, b in re.findall(r"^\s*(\d+) -> (\d+)", dot, flags=re.MULTILINE)}


def test_the_consensus_runs_are_jobs_of_their_own_beside_reduce_and_map_layout(tmp_path):
    workdir = make_workdir(tmp_path)
    plan = planned_jobs(workdir)
    assert plan["neighbours"] == 1 and plan["reduce"] == 1 and plan["map_layout"] == 1
    assert plan["consensus_run"] == 2  # umap.consensus_runs 3: the reduce stage's run and two more
    edges = dag_edges(workdir)
    # All projections start from the one neighbour graph; none waits for another.
    for projection in ("reduce", "consensus_run", "map_layout"):
        assert ("neighbours", projection) in edges
    assert ("reduce", "consensus_run") not in edges and ("consensus_run", "map_layout") not in edges
    assert {("reduce", "cluster"), ("consensus_run", "cluster")} <= edges

    write_config(workdir, umap={"consensus_runs": 1})
    assert "consensus_run" not in planned_jobs(workdir)


def test_consensus_runs_under_hdbscan_still_count_with_a_warning(tmp_path):
    workdir = make_workdir(tmp_path)
    config = write_config(workdir)
    del config["umap"]["consensus_runs"]
    config["hdbscan"]["consensus_runs"] = 4  # a config written before the key moved
    (workdir / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    run = run_workflow(workdir, "--dry-run", "--quiet", "rules")
    assert "hdbscan.consensus_runs is deprecated and read as umap.consensus_runs" in run.stdout + run.stderr
    assert job_counts(run.stdout)["consensus_run"] == 3


# What a changed setting reruns: the cluster stage and all after it; the cluster spaces and the map.
CLUSTER_ONWARD = {"cluster": 1, **TOPICS_ONWARD}
PROJECTIONS = {"reduce": 1, "consensus_run": 2, "map_layout": 1}


@pytest.fixture(scope="module")
def finished_copy(seed_run, tmp_path_factory):
    """One copy of the finished seed run (with Snakemake's metadata), to plan reruns against."""
    workdir = tmp_path_factory.mktemp("finished") / "run"
    shutil.copytree(seed_run, workdir, symlinks=True)
    assert planned_jobs(workdir) == {}, "a finished run must have nothing to do"
    return workdir


@pytest.fixture()
def finished_run(finished_copy):
    """The copy of the finished seed run, its config and dumps made the seed run's again after the
    test: the tests here only plan, and a dry run changes no stage's output and none of
    Snakemake's metadata, so each test plans from the same finished run.
    """
    config = (finished_copy / "config.yaml").read_bytes()
    dumps = set((finished_copy / "data" / "raw").iterdir())
    yield finished_copy
    (finished_copy / "config.yaml").write_bytes(config)
    for added in set((finished_copy / "data" / "raw").iterdir()) - dumps:
        added.unlink()


def test_changed_min_cluster_size_reruns_cluster_onward(finished_run):
    write_config(finished_run, hdbscan={"min_cluster_size": 5})
    assert planned_jobs(finished_run) == CLUSTER_ONWARD


def test_changed_n_neighbors_reruns_the_neighbour_graph_and_every_projection_without_embedding(finished_run):
    write_config(finished_run, umap={"n_neighbors": 7})
    assert planned_jobs(finished_run) == {"neighbours": 1, **PROJECTIONS, **CLUSTER_ONWARD}


def test_changed_layout_setting_reruns_the_projections_but_not_the_neighbour_graph(finished_run):
    write_config(finished_run, umap={"min_dist": 0.05})
    assert planned_jobs(finished_run) == {**PROJECTIONS, **CLUSTER_ONWARD}


def test_changed_cluster_dimensions_leave_the_map_alone(finished_run):
    write_config(finished_run, umap={"n_components": 4})
    assert planned_jobs(finished_run) == {"reduce": 1, "consensus_run": 2, **CLUSTER_ONWARD}


def test_a_further_consensus_run_is_one_more_job_and_the_earlier_runs_are_kept(finished_run):
    write_config(finished_run, umap={"consensus_runs": 4})
    plan = run_workflow(finished_run, "--dry-run").stdout
    assert job_counts(plan) == {"consensus_run": 1, **CLUSTER_ONWARD}
    outputs = [line for line in plan.splitlines() if "output:" in line]
    assert any("results/reduced/runs/3.npz" in line for line in outputs)
    assert not any("results/reduced/runs/1.npz" in line for line in outputs)


def test_fewer_consensus_runs_recluster_without_projecting_again(finished_run):
    write_config(finished_run, umap={"consensus_runs": 2})
    assert planned_jobs(finished_run) == CLUSTER_ONWARD


def test_config_written_back_in_another_key_order_reruns_nothing(finished_run):
    # What a YAML formatter or yaml.safe_dump does: the same values, every section's keys sorted
    # (placement's and compare's among them, which rules pass on as dicts).
    path = finished_run / "config.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    reordered = yaml.safe_dump(config, sort_keys=True)
    assert reordered != yaml.safe_dump(config, sort_keys=False)
    path.write_text(reordered, encoding="utf-8")
    assert planned_jobs(finished_run) == {}


def test_changed_report_setting_reruns_only_the_report(finished_run):
    write_config(finished_run, report={"title": "My map"})
    assert planned_jobs(finished_run) == {"report": 1, "publish": 1, "all": 1}


def test_changed_number_of_similar_papers_reruns_only_their_search_and_the_report(finished_run):
    write_config(finished_run, report={"similar_papers": 5})
    # keep_fit passes the new lists on with the fit (results/fit/similar.npz): a placed run extends them.
    expected = {"similar_papers": 1, "keep_fit": 1, "report": 1, "publish": 1, "all": 1}
    assert planned_jobs(finished_run) == expected


def test_changed_comparison_reruns_only_the_graded_stages_and_the_report(finished_run):
    # 0.1 is also another compare knob's value: the change is seen all the same (changes.smk).
    # The false discovery rate grades the changes, venues, reception and people alike, and the
    # findings' re-tests in the replicates (none drawn again).
    write_config(finished_run, compare={"false_discovery_rate": 0.1})
    expected = {
        "changes": 1,
        "venues": 1,
        "reception": 1,
        "people": 1,
        "finding_robustness": 1,
        "report": 1,
        "publish": 1,
        "all": 1,
    }
    assert planned_jobs(finished_run) == expected


def test_changed_reception_knob_reruns_only_reception_and_the_report(finished_run):
    write_config(finished_run, reception={"accepted": ["accept"], "in_report": False})
    # And the reception findings' re-tests in the replicates (none drawn again).
    expected = {"reception": 1, "finding_robustness": 1, "report": 1, "publish": 1, "all": 1}
    assert planned_jobs(finished_run) == expected


def test_changed_matching_threshold_reruns_topics_onward(finished_run):
    write_config(finished_run, lineage={"min_overlap": 0.5})
    assert planned_jobs(finished_run) == TOPICS_ONWARD


def test_new_dump_parses_only_that_dump_and_reruns_the_one_embed_job(finished_run):
    # The embed job embeds every dump of at most embedding.shard_size papers; that it embeds only
    # the new dump's papers (the others come from the embedding cache) is tested from its log in
    # tests/test_embedding_cache.py.
    abstracts = SEEDS[0].read_text(encoding="utf-8").split("\n\n")[1:4]
    (finished_run / "data" / "raw" / "new_dump.txt").write_text(
        "New dump\n\n" + "\n\n".join(abstracts), encoding="utf-8"
    )
    plan = planned_jobs(finished_run)
    assert plan == {
        "parse": 1,
        "embed": 1,
        "corpus": 1,
        "periods": 1,
        "neighbours": 1,
        "reduce": 1,
        "consensus_run": 2,
        "map_layout": 1,
        "cluster": 1,
        "topics": 1,
        "keep_fit": 1,
        "topic_stability": 1,
        "finding_robustness": 1,
        "changes": 1,
        "reception": 1,
        "people": 1,
        "venues": 1,
        "evaluate": 1,
        "similar_papers": 1,
        "report": 1,
        "publish": 1,
        "all": 1,
    }


def test_snakemake_lint_is_clean():
    result = run_workflow(REPO, "--lint", check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_snakemakes_own_report_holds_ours_and_the_key_tables(finished_run, tmp_path):
    import zipfile

    archive = tmp_path / "report.zip"
    run_workflow(finished_run, "--report", str(archive))
    names = {Path(name).name for name in zipfile.ZipFile(archive).namelist()}
    assert {"report.html", "index.html", "topics.csv", "dump_shares.csv", "metrics.json"} <= names
