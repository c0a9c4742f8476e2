"""The databases' exports read as they come: one small sample per format under tests/data/exports/
(invented papers, written in each export's own layout), read field by field, with publisher lines
cut, placeholders rejected and a damaged file of each kind stopping with one line.
"""

from __future__ import annotations

import gzip
import json
import logging
import re
from pathlib import Path

import pytest
from conftest import PARSE_KNOBS
from papertopics import storage
from papertopics.errors import PipelineInputError
from papertopics.ingest import stages as ingest_stages
from papertopics.ingest.export_records import abstract_from_inverted_index
from papertopics.ingest.parse import input_columns, parse_dump
from papertopics.text import cut_boilerplate, is_placeholder

SAMPLES = Path(__file__).parent / "data" / "exports"
# Anything of a publisher's notice left in an abstract or a keyword.
PUBLISHER_LINE = re.compile(
    r"©|\(C\) \d{4}|copyright|all rights reserved|published by|no abstract", re.IGNORECASE
)

# sample: (format, records read, titles kept, years, rejected as empty, of them placeholders, cuts)
EXPECTED = {
    "wos_savedrecs.txt": (
        "wos",
        4,
        [
            "Soil moisture retrieval from Sentinel-1 backscatter with a physics-guided neural network",
            "Early warning of harmful algal blooms from satellite chlorophyll time series",
            "Crop type mapping with few labels: self-training on multi-temporal imagery",
        ],
        ["2019", "2020", "2021"],
        1,
        0,
        2,
    ),
    "wos_tab_delimited.txt": (
        "wos-tab",
        3,
        [
            "Graph neural networks for traffic forecasting under sensor outages",
            "Ride-hailing demand and public transit: a causal analysis of service changes",
            "Electric bus charging schedules that respect the grid",
        ],
        ["2021", "2022", "2023"],
        0,
        0,
        1,
    ),
    "scopus.csv": (
        "scopus",
        4,
        [
            "Federated learning for hospital readmission prediction without sharing records",
            "Explaining sepsis alerts to clinicians: a user study",
            "Wearable sensors predict post-operative complications",
        ],
        ["2020", "2021", "2022"],
        1,
        1,
        3,
    ),
    "zotero.bib": (
        "bibtex",
        4,
        [
            "Sparse Mixture-of-Experts Routing with Lipschitz Guarantees",
            "Causal discovery from event sequences of IT systems",
            "On the Tokenisation of Numbers in Large Language Models",
        ],
        ["2021", "2022", "2023"],
        1,
        1,
        1,
    ),
    "endnote.ris": (
        "ris",
        3,
        [
            "Reinforcement learning for insulin dosing in type 1 diabetes",
            "Speech biomarkers of early Parkinson's disease from smartphone recordings",
            "Counting cells in histology slides with point supervision",
        ],
        ["2020", "2021", "2022"],
        0,
        0,
        1,
    ),
    "openalex_works.json": (
        "openalex",
        3,
        [
            "Attributing heatwave mortality to climate change in 40 cities",
            "Downscaling precipitation with diffusion models",
        ],
        ["2021", "2023"],
        1,
        0,
        1,
    ),
    "pubmed.nbib": (
        "medline",
        3,
        [
            "Deep learning detection of diabetic retinopathy in handheld fundus photographs taken in primary care.",
            "Natural language processing of radiology reports to find incidental pulmonary nodules.",
            "Federated survival analysis across cancer registries.",
        ],
        ["2020", "2021", "2022"],
        0,
        0,
        2,
    ),
    "arxiv_snapshot.jsonl": (
        "arxiv",
        3,
        [
            "Contrastive pretraining for tabular anomaly detection",
            "Fair ranking under uncertain group labels",
            "Sparse autoencoders find interpretable features in protein language models",
        ],
        ["2021", "2019", "2023"],
        0,
        0,
        0,
    ),
}


def sample(name: str):
    return parse_dump(SAMPLES / name, min_abstract_chars=20)


def by_title(parsed) -> dict[str, dict]:
    return {paper["title"]: paper for paper in parsed.papers}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_sample_reads_as_written(name):
    fmt, read, titles, years, empty, placeholders, cuts = EXPECTED[name]
    parsed = sample(name)
    summary = parsed.summary()
    assert parsed.format == fmt
    assert summary["records_read"] == read
    assert [paper["title"] for paper in parsed.papers] == titles
    assert [paper["year"] for paper in parsed.papers] == years
    assert summary["rejected_by_reason"] == ({"empty": empty} if empty else {})
    assert (summary["placeholders"], summary["boilerplate_cut"]) == (placeholders, cuts)
    for paper in parsed.papers:
        assert not PUBLISHER_LINE.search(paper["abstract"]), paper["abstract"]
        assert not PUBLISHER_LINE.search(paper["extra"].get("keywords", ""))
        assert paper["abstract"].endswith((".", "?"))  # the cut leaves whole sentences
        assert paper["authors"] and paper["display_name"].startswith(paper["title"][:40])


def test_wos_plain_text_fields():
    paper = by_title(sample("wos_savedrecs.txt"))[EXPECTED["wos_savedrecs.txt"][2][0]]
    assert paper["authors"] == "Okafor, Chidi; Lindqvist, Maja"  # AF, the full names, over AU
    assert paper["abstract"].startswith(
        "Retrieving surface soil moisture from radar backscatter is ill-posed because"
    )
    assert paper["abstract"].endswith("transfers to unseen regions without retraining.")
    assert paper["input_id"] == "WOS:000481234500001"
    assert paper["url"] == "https://doi.org/10.1016/j.rse.2019.111234"
    assert paper["extra"] == {
        "venue": "REMOTE SENSING OF ENVIRONMENT",
        "keywords": "soil moisture; synthetic aperture radar; physics-guided learning",
        "doi": "10.1016/j.rse.2019.111234",
        # C1 "[Okafor, Chidi] Univ Twente, Enschede, Netherlands.": Lindqvist has no address.
        "affiliations": "Univ Twente",
        "countries": "Netherlands",
    }
    assert paper["display_name"].endswith("— Okafor, Chidi and Lindqvist, Maja")


def test_wos_tab_delimited_keeps_quotes_and_reads_utf16_with_or_without_mark(tmp_path):
    raw = (SAMPLES / "wos_tab_delimited.txt").read_bytes()
    assert raw.startswith(b"\xff\xfe")
    text = raw[2:].decode("utf-16-le")
    variants = {
        "bom.txt": raw,
        "no_bom.txt": raw[2:],
        "utf8.txt": text.encode("utf-8"),
        "utf8_bom.txt": b"\xef\xbb\xbf" + text.encode("utf-8"),
    }
    for name, data in variants.items():
        (tmp_path / name).write_bytes(data)
        parsed = parse_dump(tmp_path / name, 20)
        assert parsed.format == "wos-tab" and len(parsed.papers) == 3, name
        first = parsed.papers[0]
        assert 'when "holes" appear' in first["abstract"]
        assert first["authors"] == "Ferreira, Luisa; Chen, Wei"
        assert first["extra"]["venue"] == "TRANSPORTATION RESEARCH PART C"
    assert parse_dump(tmp_path / "no_bom.txt", 20).encoding == "utf-16-le"


def test_scopus_fields_and_placeholder():
    parsed = sample("scopus.csv")
    paper = parsed.papers[0]
    assert paper["authors"] == "Kowalski, Marta; Dubois, Antoine"  # full names, Scopus ids dropped
    assert paper["extra"]["venue"] == "Journal of Biomedical Informatics"
    assert paper["extra"]["keywords"] == "federated learning; readmission; electronic health records"
    assert paper["input_id"] == "2-s2.0-85087654321"
    assert parsed.papers[1]["display_name"].endswith("— Mensah, Kwame")  # one author, "Last, First"
    [rejection] = parsed.rejected
    assert (rejection["location"], rejection["reason"], rejection["placeholder"]) == ("line 4", "empty", True)
    assert "'[No abstract available]' is an export's placeholder" in rejection["detail"]


def test_bibtex_latex_decoded():
    papers = by_title(sample("zotero.bib"))
    moe = papers["Sparse Mixture-of-Experts Routing with Lipschitz Guarantees"]
    assert moe["authors"] == "Müller, Jörg; García, Ana; Østergaard, Lars"
    assert moe["extra"]["venue"] == "Advances in Neural Information Processing Systems"  # @string resolved
    assert moe["extra"]["keywords"] == "mixture of experts; robustness; routing"
    assert moe["input_id"] == "muller2021sparse" and moe["location"] == "entry 'muller2021sparse' (line 4)"
    causal = papers["Causal discovery from event sequences of IT systems"]
    assert causal["authors"] == "Nguyễn, Thị; Schröder, Paul"
    assert "85% of the known propagation paths" in causal["abstract"]
    assert causal["abstract"].endswith("against 52% for Granger tests.")  # {\copyright} line cut
    tokens = papers["On the Tokenisation of Numbers in Large Language Models"]
    assert tokens["authors"] == "Sørensen, Mette; Čapek, Karel" and tokens["year"] == "2023"  # from date
    assert "other tasks & with no retraining" in tokens["abstract"]


def test_ris_fields():
    papers = sample("endnote.ris").papers
    assert papers[0]["extra"]["keywords"] == "reinforcement learning; type 1 diabetes; insulin dosing"
    assert papers[0]["url"] == "https://doi.org/10.1016/j.artmed.2020.101836"
    assert papers[1]["extra"]["venue"] == "Proceedings of Interspeech 2021"  # T1/A1/Y1/N2 tags
    assert papers[1]["abstract"].startswith("Voice changes can precede")
    assert papers[2]["authors"] == "O'Neill, Siobhan; Banerjee, Arjun; Weber, Klaus"


def test_openalex_fields_and_inverted_index_in_order(tmp_path):
    parsed = sample("openalex_works.json")
    heat = parsed.papers[0]
    assert heat["abstract"].startswith("Heat kills, but how much of the toll is due to warming? Comparing")
    assert heat["abstract"].endswith("southern Asia and Latin America.")
    assert heat["authors"] == "Laura Vicedo; Hamid Karimi"
    assert heat["extra"] == {
        "venue": "Nature Climate Change",
        "keywords": "Heatwave; Climate attribution",
        "doi": "10.1038/s41558-021-01111-1",
    }
    assert parsed.papers[1]["url"] == "https://example.org/preprint/2301"  # no DOI, no source
    assert parsed.rejected[0]["location"] == "record 3"  # abstract_inverted_index null
    works = json.loads((SAMPLES / "openalex_works.json").read_text(encoding="utf-8"))["results"]
    (tmp_path / "works.jsonl").write_text("".join(json.dumps(w) + "\n" for w in works), encoding="utf-8")
    (tmp_path / "list.json").write_text(json.dumps(works), encoding="utf-8")
    for name in ("works.jsonl", "list.json"):
        again = parse_dump(tmp_path / name, 20)
        assert again.format == "openalex" and [p["id"] for p in again.papers] == [
            p["id"] for p in parsed.papers
        ]


def test_inverted_index_rebuilt_in_order():
    index = {"learning": [1, 4], "Deep": [0], "is": [2], "machine": [3]}
    assert abstract_from_inverted_index(index, "x") == "Deep learning is machine learning"


def test_medline_fields():
    papers = sample("pubmed.nbib").papers
    assert papers[0]["authors"] == "Andersen, Sofie; Mukherjee, Ravi"  # FAU over AU
    assert papers[0]["extra"]["keywords"] == "deep learning; diabetic retinopathy; screening"  # OT
    assert papers[0]["extra"]["doi"] == "10.1016/j.ophtha.2020.05.012"
    assert papers[1]["extra"]["keywords"] == "Natural Language Processing; Multiple Pulmonary Nodules"  # MH
    assert papers[1]["extra"]["venue"] == "Journal of the American Medical Informatics Association : JAMIA"
    assert (
        papers[2]["input_id"] == "35111222"
        and papers[2]["url"] == "https://pubmed.ncbi.nlm.nih.gov/35111222/"
    )


def test_arxiv_snapshot_year_from_first_version():
    papers = sample("arxiv_snapshot.jsonl").papers
    assert papers[0]["year"] == "2021"  # v1 of April 2021, not v2 of 2022
    assert papers[0]["authors"] == "Ana Petrova; Jonas Berg; Mei Lin"
    assert papers[0]["title"] == "Contrastive pretraining for tabular anomaly detection"  # line break joined
    assert papers[0]["extra"] == {"categories": "cs.LG; stat.ML"}  # not keywords: no label reads them
    assert papers[1]["extra"]["venue"] == "Proceedings of FAccT 2020, pp. 120-130"
    assert papers[1]["url"] == "https://arxiv.org/abs/1906.05678"


def test_keywords_venue_and_doi_are_carried_to_papers_csv_columns():
    papers = sample("scopus.csv").papers
    columns = input_columns(papers, reserved={"id", "abstract"})
    assert columns["keywords"][1] == "sepsis; explainable AI; clinical decision support"
    assert columns["venue"][2] == "npj Digital Medicine"
    assert columns["doi"][0] == "10.1016/j.jbi.2020.103498"


def test_compressed_export(tmp_path):
    path = tmp_path / "lib.bib.gz"
    path.write_bytes(gzip.compress((SAMPLES / "zotero.bib").read_bytes(), mtime=0))
    assert len(parse_dump(path, 20).papers) == 3


# --- what is not an export stays as it was read ---------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "Workshop 2026\n\nAB testing of web pages is a staple of product teams; we study its pitfalls.\n\n"
        "PT boats and other small craft appear in the second abstract, which is long enough.\nER\n",
        "PT J\n\nAn abstract of a dump whose title line looks like a Web of Science tag, with no ER.\n",
        "FNORD Proceedings\n\nAn abstract of a dump whose title begins with the letters FN and more.\n",
        "FN 0\n\nAn abstract of a dump whose title is a Web of Science header tag and a value.\n",
        "PMID-\n\nAn abstract of a dump whose title is a MEDLINE tag without the PubMed id.\n",
    ],
    ids=[
        "abstract-begins-AB",
        "title-PT-without-ER",
        "title-begins-FN",
        "title-is-FN-tag",
        "title-is-PMID-tag",
    ],
)
def test_plain_text_dumps_that_look_a_little_like_exports(tmp_path, content):
    path = tmp_path / "dump.txt"
    path.write_text(content, encoding="utf-8")
    parsed = parse_dump(path, 20)
    assert parsed.format == "txt"
    paragraphs = [block for block in content.split("\n\n")[1:] if block.strip()]
    assert [p["abstract"] for p in parsed.papers] == [" ".join(block.split()) for block in paragraphs]


def test_plain_csv_with_title_and_abstract_is_not_scopus(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text(
        "Title,Abstract,Year\nA,An abstract long enough to be kept here.,2020\n", encoding="utf-8"
    )
    parsed = parse_dump(path, 20)
    assert parsed.format == "csv" and parsed.papers[0]["year"] == "2020"


def test_boilerplate_cut_only_where_it_is_boilerplate():
    kept = [
        "Watermarks matter for the copyright protection of images. We study them.",
        "We estimate R as recently published by Kucharski et al. (2020).",
        "Copyright protection of images matters, and we protect them.",
        "We compare cases (a), (b) and (c) 2019 data from the census in all of them and more.",
        "Costs fell © but no year follows the sign here.",
    ]
    for text in kept:
        assert cut_boilerplate(text) == (text, ""), text
    assert cut_boilerplate("We show X. © 2018 Elsevier Ltd. All rights reserved.") == (
        "We show X.",
        "© 2018 Elsevier Ltd. All rights reserved.",
    )
    assert cut_boilerplate("We show X. 2019 Elsevier Ltd. All rights reserved.")[1] == (
        "2019 Elsevier Ltd. All rights reserved."
    )
    assert cut_boilerplate("© 2018 Elsevier Ltd. All rights reserved.") == (
        "",
        "© 2018 Elsevier Ltd. All rights reserved.",
    )
    assert [
        is_placeholder(t) for t in ("[No abstract available]", "Abstract not available", "No abstract.")
    ] == [True] * 3
    assert not is_placeholder("No abstraction is needed for this result.")


def test_a_dump_of_placeholders_and_boilerplate_only_stops_with_its_count(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text(
        "Title,Abstract,Source title\nA,[No abstract available],J\nB,© 2019 Elsevier Ltd. All rights reserved.,J\n",
        encoding="utf-8",
    )
    with pytest.raises(PipelineInputError, match=r"all 2 records were rejected \(2 empty; first at line 2: "):
        parse_dump(path, 20)


# --- damaged exports: one line naming the file, the record and the problem ---------------------


def damaged(tmp_path: Path, name: str, change) -> str:
    path = tmp_path / name
    path.write_text(change((SAMPLES / name).read_text(encoding="utf-8-sig")), encoding="utf-8")
    with pytest.raises(PipelineInputError) as raised:
        parse_dump(path, 20)
    message = str(raised.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message[len(f"{path}: ") :]


def test_wos_record_cut_short(tmp_path):
    message = damaged(tmp_path, "wos_savedrecs.txt", lambda text: text[: text.rindex("ER\n")])
    assert message.startswith("record 4 (line 64) ends without ER: the file is cut short.")


def test_wos_record_without_er_before_the_next(tmp_path):
    message = damaged(tmp_path, "wos_savedrecs.txt", lambda text: text.replace("ER\n", "", 1))
    assert message.startswith("record 1 (line 3) has no ER before the next record starts at line 28;")


def test_bibtex_entry_with_an_unclosed_brace(tmp_path):
    message = damaged(
        tmp_path,
        "zotero.bib",
        lambda text: text.replace(
            "{Journal of Machine Learning Research}", "{Journal of Machine Learning Research"
        ),
    )
    assert message.startswith(
        "the BibTeX entry at line 15 (@article{nguyen2022causal…) cannot be read: Unexpected block start: `@misc`."
    )
    assert "brace or quote never closed" in message


def test_ris_file_without_er(tmp_path):
    message = damaged(tmp_path, "endnote.ris", lambda text: text[: text.rindex("ER  -")])
    assert message.startswith("record 3 (line 27) ends without ER: the file is cut short.")


def test_ris_record_without_er_before_the_next(tmp_path):
    message = damaged(tmp_path, "endnote.ris", lambda text: text.replace("ER  - \n", "", 1))
    assert message.startswith("record 1 (line 1) has no ER before the next TY at line 16;")


def test_wos_line_that_is_no_tag(tmp_path):
    message = damaged(
        tmp_path, "wos_savedrecs.txt", lambda text: text.replace("LA English", "Language English")
    )
    assert message.startswith(
        "line 11 (record 1 (line 3) of this Web of Science export) is neither a field tag"
    )


def test_medline_record_not_starting_with_pmid(tmp_path):
    message = damaged(tmp_path, "pubmed.nbib", lambda text: text.replace("PMID- 34567890\n", ""))
    assert message.startswith("record 2 (line 29) does not start with PMID- (it starts with OWN);")


@pytest.mark.parametrize(
    "index, problem",
    [
        ({"Heat": [0], "kills": [0]}, "abstract_inverted_index puts both 'Heat' and 'kills' at position 0"),
        ({"Heat": [0], "kills": "1"}, "abstract_inverted_index gives 'kills' the positions \"1\""),
        ({"Heat": [0], "kills": [2]}, "abstract_inverted_index has no word at position 1 (of 0–2)"),
        (["Heat", "kills"], "abstract_inverted_index is list, not an object"),
    ],
    ids=["position-twice", "not-a-list", "gap", "not-an-object"],
)
def test_openalex_malformed_inverted_index(tmp_path, index, problem):
    def corrupt(text):
        page = json.loads(text)
        page["results"][1]["abstract_inverted_index"] = index
        return json.dumps(page)

    assert damaged(tmp_path, "openalex_works.json", corrupt).startswith(f"record 2: {problem}")


def test_medline_line_that_is_no_tag(tmp_path):
    message = damaged(tmp_path, "pubmed.nbib", lambda text: text.replace("LA  - eng", "language english"))
    assert message.startswith("line 16 (record 1) of this MEDLINE export is neither a 'TAG - value' line")


# --- the parse stage on each sample ---------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_parse_stage_on_each_sample(tmp_path, caplog, name):
    fmt, read, titles, years, empty, placeholders, cuts = EXPECTED[name]
    caplog.set_level(logging.INFO)
    papers, summary = tmp_path / "papers.jsonl", tmp_path / "summary.json"
    ingest_stages.parse(str(SAMPLES / name), str(papers), str(summary), PARSE_KNOBS)
    written = storage.read_jsonl(papers)
    record = storage.read_json(summary)
    assert [p["title"] for p in written] == titles and [p["year"] for p in written] == years
    assert (record["format"], record["records_read"], record["kept"]) == (fmt, read, len(titles))
    assert [cut["location"] for cut in record["boilerplate_cuts"]] == [
        cut["location"] for cut in sample(name).boilerplate
    ]
    assert len(record["boilerplate_cuts"]) == cuts and record["placeholders"] == placeholders
    log = caplog.text
    assert (f"publisher boilerplate cut from {cuts} abstracts" in log) == bool(cuts)
    assert (f"{placeholders} placeholder abstracts rejected as empty" in log) == bool(placeholders)
    assert log.count("publisher boilerplate cut from the abstract") == cuts


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_keywords_venue_and_authors_feed_nothing_fitted(name):
    from papertopics.embed.encoders import embedding_text

    for paper in sample(name).papers:
        fitted = embedding_text(paper) + " " + paper["text"]  # what is embedded; what topic words come from
        for field in ("keywords", "venue"):
            for value in split_values(paper["extra"].get(field, "")):
                assert value not in fitted or value in paper["abstract"] or value in paper["title"], (
                    field,
                    value,
                )


def split_values(text: str) -> list[str]:
    return [value.strip() for value in text.split(";") if len(value.strip()) > 3]


def test_report_overview_counts_the_cuts_and_placeholders():
    from papertopics.report.overview import _dump_table

    summary = {**sample("scopus.csv").summary(), "also_in_earlier_dumps": 0, "dump": "<scopus>"}
    table = _dump_table({"dumps": [summary]})
    assert (
        "&lt;scopus&gt;: publisher lines cut from 3 abstracts and 1 placeholders (“[No abstract available]”) "
        "rejected as empty" in table
    )
    assert "abstracts-cut" not in _dump_table(
        {"dumps": [{**summary, "boilerplate_cut": 0, "placeholders": 0}]}
    )
