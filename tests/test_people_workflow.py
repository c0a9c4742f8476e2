"""The whole workflow on real papers with their authors, affiliations and countries (a JSON Lines
export, countries written as names or ISO codes, with the decisions, ratings and citations an
OpenReview export carries): the people stage's tables, the report's People section and card
lines, escaped, and the map's colouring by reception; a decision edited in the dump reruns the
reception stage and the report, nothing before; and ``people.in_report: false`` leaves people out
of the report, rerunning only the people stage and what follows.
"""

from __future__ import annotations

import base64
import gzip
import json
import re

import pandas as pd
import pycountry
import pytest
from conftest import executed_jobs, make_workdir, planned_jobs, require_corpus, run_workflow, write_config

pytestmark = pytest.mark.slow
PER_YEAR = 50


def _dump() -> tuple[str, list[dict]]:
    with gzip.open(require_corpus("openreview_metadata.jsonl.gz"), "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    chosen = [r for year in range(2021, 2026) for r in [r for r in records if r["year"] == year][:PER_YEAR]]
    rows = []
    for i, record in enumerate(chosen):
        countries = record["countries"] or []
        if i % 3 == 1:  # as an export with ISO codes would write them
            countries = [pycountry.countries.lookup(c).alpha_2 if c else "" for c in countries]
        authors = list(record["authors"])
        if i == 0:
            authors[0] = "Ana <b>Bold</b> & Co"  # a name that must reach the page escaped
        rows.append(
            {
                "id": record["id"],
                "title": record["title"],
                "abstract": record["abstract"],
                "year": record["year"],
                "authors": authors,
                "affiliations": record["affiliations"] or [],
                "countries": countries,
                "decision": record["decision"],
                "ratings": record["ratings"] or [],
                "citations": record["citations"],
            }
        )
    return "".join(json.dumps(row) + "\n" for row in rows), rows


def _map_decisions(page: str) -> list[str]:
    """Each paper's decision as the map's colouring by decision gives it, in the map's order."""
    packed = re.search(r'id="map-data">([^<]*)<', page).group(1)
    data = json.loads(gzip.decompress(base64.b64decode(packed)))
    colouring = next(c for c in data["colourings"] if c["key"] == "decision")
    return [colouring["names"][code] for code in colouring["of_paper"]]


def test_people_tables_section_and_cards_and_the_key_that_leaves_them_out(tmp_path):
    text, rows = _dump()
    workdir = make_workdir(tmp_path, {"openreview.jsonl": text}, umap={"consensus_runs": 1})
    run_workflow(workdir)
    topics = workdir / "results" / "topics"

    record = json.loads((topics / "people.json").read_text(encoding="utf-8"))
    assert record["papers"] == len(rows) == 5 * PER_YEAR
    assert record["papers_with"]["country"] == sum(any(c for c in r["countries"]) for r in rows)
    assert record["periods"] == ["2021", "2022", "2023", "2024", "2025"]
    top = pd.read_csv(topics / "people_top.csv", keep_default_na=False)
    countries = top[top["kind"] == "country"]
    assert "US" not in set(countries["name"]) and "United States" in set(countries["name"])
    assert (countries["share"] <= 1).all() and (top["rank"] >= 1).all()
    # The first expert of each topic: as many papers in the topic as the paper table says.
    papers = pd.read_csv(topics / "papers.csv", keep_default_na=False)
    experts = pd.read_csv(topics / "experts.csv", keep_default_na=False)
    for topic, rows_of_topic in experts.groupby("topic"):
        first = rows_of_topic.iloc[0]
        in_topic = papers[papers["topic"] == topic]["authors"].str.split("; ")
        assert first["papers"] == sum(first["author"] in names for names in in_topic)
        assert len(first["years"].split("; ")) == first["papers"]

    page = (workdir / "results" / "report" / "index.html").read_text(encoding="utf-8")
    assert '<section id="people"><h2>People</h2>' in page and 'href="#people"' in page
    assert "Who works on it" in page and 'data-download="experts-topic-0"' in page
    assert (
        '<select id="people-filter">' in page
        and '<optgroup label="Countries"><option value="0">United States<' in page
    )
    assert "<b>Bold</b>" not in page
    # The map offers colouring by decision, mean rating and citations for their year, with legends.
    packed = re.search(r'id="map-data">([^<]*)<', page).group(1)
    data = json.loads(gzip.decompress(base64.b64decode(packed)))
    assert [c["key"] for c in data["colourings"]] == ["decision", "rating", "citations"]
    # papers.csv has the decisions, ratings and citations beside the other input fields.
    assert {"title", "authors", "decision", "ratings", "citations"} <= set(papers)
    assert not (topics.parent / "assigned").joinpath("papers.csv").read_text().count("Oral")
    decisions = dict(zip(papers["id"], papers["decision"], strict=True))
    assert _map_decisions(page) == [decisions[paper] for paper in data["ids"]]
    assert sorted(set(decisions.values())) == ["Oral", "Poster"]
    assert '<option value="decision">decision</option>' in page
    assert page.count('class="legend colouring-legend"') == 3
    assert ">experts.csv<" in page and ">people_rising.csv<" in page

    # One decision edited in the dump: parsed again, then reception, its findings' re-tests in the
    # replicates (none drawn again) and the report, nothing else.
    edited = next(row for row in rows if row["decision"] == "Poster")
    edited["decision"] = "Reject"
    (workdir / "data" / "raw" / "openreview.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
    )
    ran = executed_jobs(run_workflow(workdir))
    assert ran == {"parse": 1, "reception": 1, "finding_robustness": 1, "report": 1, "publish": 1, "all": 1}
    edited_papers = pd.read_csv(topics / "papers.csv", keep_default_na=False).set_index("input_id")
    assert edited_papers.loc[edited["id"], "decision"] == "Reject"  # by the export's own id
    assert edited_papers.drop(columns="decision").equals(
        papers.set_index("input_id").drop(columns="decision")
    )
    page = (workdir / "results" / "report" / "index.html").read_text(encoding="utf-8")
    assert "Reject" in _map_decisions(page)

    write_config(workdir, umap={"consensus_runs": 1}, people={"in_report": False})
    # The people's findings are re-tested in the replicates from the people stage's tables, so
    # that job reruns with it (it draws no replicate again).
    planned = {"people": 1, "finding_robustness": 1, "report": 1, "publish": 1, "all": 1}
    assert planned_jobs(workdir) == planned
    run_workflow(workdir)
    shared = (workdir / "results" / "report" / "index.html").read_text(encoding="utf-8")
    assert 'id="people"' not in shared and "Who works on it" not in shared and "experts-topic-" not in shared
    assert '<select id="people-filter">' not in shared
    # Nor does the papers' table offered for download carry the authors, affiliations or countries.
    assert "Ana &lt;b&gt;Bold" not in shared
    packed = re.search(r'id="papers-csv">([^<]*)<', shared).group(1)
    header = gzip.decompress(base64.b64decode(packed)).decode("utf-8").splitlines()[0].split(",")
    assert "title" in header and not {"authors", "affiliations", "countries"} & set(header)
