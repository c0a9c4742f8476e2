"""Every supported dump format, encoding and bad input, each with its fixture made here."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pytest
from papertopics.errors import PipelineInputError
from papertopics.ingest.corpus import merge_dumps
from papertopics.ingest.parse import input_columns, parse_dump
from papertopics.text import clean_for_keywords, paper_id

ABSTRACTS = [
    "We introduce LakeQA, a benchmark for question answering over data lakes with many tables.",
    "Graph neural networks over-smooth; we show that residual gating keeps node features apart.",
    "A study of reward hacking in reinforcement learning from human feedback, with mitigations.",
]
TITLES = ["LakeQA: Questions over Lakes", "Gated Residual GNNs", "Reward Hacking in RLHF"]
AUTHORS = [
    ["Ada Lovelace", "Alan Turing", "Grace Hopper"],
    ["Edsger Dijkstra"],
    ["Barbara Liskov", "Ken Thompson"],
]


def write(folder: Path, name: str, content: str | bytes, compressed: bool = False) -> Path:
    data = content.encode("utf-8") if isinstance(content, str) else content
    path = folder / (name + (".gz" if compressed else ""))
    path.write_bytes(gzip.compress(data, mtime=0) if compressed else data)
    return path


def txt_dump(title: str = "Some Conference 2026", abstracts=ABSTRACTS, newline: str = "\n") -> str:
    return newline.join([title, "", *(f"{a}{newline}" for a in abstracts)])


def paper_rows() -> list[dict]:
    return [
        {
            "id": f"conf-{i}",
            "title": TITLES[i],
            "abstract": ABSTRACTS[i],
            "authors": AUTHORS[i],
            "url": f"https://example.org/paper/{i}",
            "year": 2020 + i,
            "label": ["Data", "Graphs", "RL"][i],
            "venue": "Conf",
        }
        for i in range(3)
    ]


def table(delimiter: str, abstract_header: str = "abstract") -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(["id", "title", abstract_header, "authors", "url", "year", "label", "venue"])
    for row in paper_rows():
        writer.writerow(
            [
                row["id"],
                row["title"],
                row["abstract"],
                "; ".join(row["authors"]),
                row["url"],
                row["year"],
                row["label"],
                row["venue"],
            ]
        )
    return out.getvalue()


def assert_structured(parsed, fmt: str) -> None:
    assert parsed.format == fmt
    assert [p["abstract"] for p in parsed.papers] == ABSTRACTS
    first = parsed.papers[0]
    assert first["title"] == TITLES[0]
    assert first["authors"] == "Ada Lovelace; Alan Turing; Grace Hopper"
    assert first["display_name"] == "LakeQA: Questions over Lakes — Ada Lovelace et al."
    assert parsed.papers[2]["display_name"] == "Reward Hacking in RLHF — Barbara Liskov and Ken Thompson"
    assert first["url"] == "https://example.org/paper/0"
    assert (first["year"], first["label"], first["input_id"]) == ("2020", "Data", "conf-0")
    assert first["extra"] == {"venue": "Conf"}
    assert first["id"] == paper_id(ABSTRACTS[0])


# --- formats, each also gzip-compressed -------------------------------------------------

COMPRESSION = pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])


@COMPRESSION
def test_txt_dump(tmp_path, compressed):
    parsed = parse_dump(write(tmp_path, "conf.txt", txt_dump()), min_abstract_chars=20)
    assert (parsed.name, parsed.title, parsed.format) == ("conf", "Some Conference 2026", "txt")
    assert [p["abstract"] for p in parsed.papers] == ABSTRACTS
    assert parsed.papers[0]["display_name"] == "LakeQA"
    assert [p["location"] for p in parsed.papers] == ["line 3", "line 5", "line 7"]


def test_txt_dump_whose_first_line_looks_like_an_abstract_warns(tmp_path):
    assert parse_dump(write(tmp_path, "x.txt", txt_dump()), 20).warnings == []
    long_first = ABSTRACTS[0] + " " + ABSTRACTS[1]
    parsed = parse_dump(write(tmp_path, "y.txt", f"{long_first}\n\n{ABSTRACTS[2]}\n"), 20)
    assert parsed.warnings == [
        f"{tmp_path / 'y.txt'}: the first line ({len(long_first)} characters) is taken as the dump's title, not as "
        "an abstract; if it is an abstract, add a title line above it."
    ]


@COMPRESSION
def test_markdown_dump_headings_title_the_next_paragraph(tmp_path, compressed):
    content = (
        "# Workshop on Lakes\n\n"
        f"## {TITLES[0]}\n{ABSTRACTS[0]}\n\n---\n\n"
        f"## {TITLES[1]}\n\n{ABSTRACTS[1][:40]}\n{ABSTRACTS[1][40:]}\n\n"
        "## A heading with nothing under it\n\n"
        f"{ABSTRACTS[2]}\n"
    )
    parsed = parse_dump(write(tmp_path, "ws.md", content, compressed), min_abstract_chars=20)
    assert parsed.title == "Workshop on Lakes"
    assert [p["text"] for p in parsed.papers][:1] == [ABSTRACTS[0]]
    assert [p.get("title") for p in parsed.papers] == [
        TITLES[0],
        TITLES[1],
        "A heading with nothing under it",
    ]
    assert parsed.papers[1]["abstract"] == ABSTRACTS[1][:40] + " " + ABSTRACTS[1][40:]
    assert parsed.papers[0]["display_name"] == TITLES[0]
    assert parsed.records_read == 3 and not parsed.rejected


def test_markdown_heading_without_paragraph_is_rejected_as_empty(tmp_path):
    content = (
        f"# Dump\n\n## First\n\n{ABSTRACTS[0]}\n\n## Orphan\n\n## Second\n{ABSTRACTS[1]}\n\n## Last orphan\n"
    )
    parsed = parse_dump(write(tmp_path, "ws.md", content), min_abstract_chars=20)
    assert [p["title"] for p in parsed.papers] == ["First", "Second"]
    assert [(r["location"], r["reason"]) for r in parsed.rejected] == [
        ("line 7", "empty"),
        ("line 12", "empty"),
    ]
    assert parsed.records_read == 4


@COMPRESSION
def test_json_lines_dump(tmp_path, compressed):
    content = "\n".join(json.dumps(row) for row in paper_rows()) + "\n\n"
    assert_structured(parse_dump(write(tmp_path, "conf.jsonl", content, compressed), 20), "jsonl")


@COMPRESSION
def test_json_list_dump(tmp_path, compressed):
    content = json.dumps(paper_rows(), indent=2)
    parsed = parse_dump(write(tmp_path, "conf.json", content, compressed), 20)
    assert_structured(parsed, "json")
    assert parsed.title == "conf"  # no title line in JSON: the dump's name


def test_json_openreview_export_with_nested_values(tmp_path):
    notes = [
        {
            "id": f"or{i}",
            "forum": f"or{i}",
            "content": {
                "title": {"value": TITLES[i]},
                "abstract": {"value": ABSTRACTS[i]},
                "authors": {"value": AUTHORS[i]},
                "venue": {"value": "ICLR 2026"},
            },
        }
        for i in range(3)
    ]
    parsed = parse_dump(write(tmp_path, "iclr.json", json.dumps({"notes": notes})), 20)
    assert [p["abstract"] for p in parsed.papers] == ABSTRACTS
    assert parsed.papers[1]["display_name"] == "Gated Residual GNNs — Edsger Dijkstra"
    assert parsed.papers[0]["input_id"] == "or0"
    assert parsed.papers[0]["extra"] == {"forum": "or0", "venue": "ICLR 2026"}


@COMPRESSION
def test_csv_dump(tmp_path, compressed):
    assert_structured(parse_dump(write(tmp_path, "conf.csv", table(","), compressed), 20), "csv")


@COMPRESSION
def test_tsv_dump(tmp_path, compressed):
    assert_structured(parse_dump(write(tmp_path, "conf.tsv", table("\t"), compressed), 20), "tsv")


@pytest.mark.parametrize("header", ["Abstract", "summary", "Paper Abstract", "ABSTRACT_TEXT"])
def test_csv_abstract_column_found_by_name(tmp_path, header):
    parsed = parse_dump(write(tmp_path, "conf.csv", table(",", header)), 20)
    assert parsed.abstract_field == header
    assert [p["abstract"] for p in parsed.papers] == ABSTRACTS


def test_csv_abstract_column_set_in_config(tmp_path):
    parsed = parse_dump(write(tmp_path, "conf.csv", table(",", "body")), 20, abstract_column="body")
    assert [p["abstract"] for p in parsed.papers] == ABSTRACTS


def test_csv_quoted_fields_with_commas_quotes_and_line_breaks(tmp_path):
    content = 'title,abstract\n"A, B","First line\nsecond line with ""quotes"", commas, and enough text."\n'
    parsed = parse_dump(write(tmp_path, "conf.csv", content), 20)
    assert parsed.papers[0]["abstract"] == 'First line second line with "quotes", commas, and enough text.'
    assert parsed.papers[0]["title"] == "A, B"


def test_input_columns_carry_every_field_and_rename_clashes():
    papers = [
        {"title": "T", "year": "2024", "extra": {"venue": "V", "topic": "given"}},
        {"extra": {"pages": "3"}},
    ]
    columns = input_columns(papers, reserved={"id", "topic"})
    assert list(columns) == [
        "title",
        "authors",
        "url",
        "year",
        "label",
        "input_id",
        "venue",
        "input_topic",
        "pages",
    ]
    assert columns["input_topic"] == ["given", ""]
    assert columns["pages"] == ["", "3"]


# --- encodings and text ----------------------------------------------------------------


@pytest.mark.parametrize(
    "encoding",
    ["utf-8", "utf-8-sig", "utf-16", "utf-16-le-bom", "utf-16-be-bom", "utf-32"],
)
def test_unicode_encodings(tmp_path, encoding):
    content = txt_dump(
        "Journées d'Étude — 论文", ["Étude des réseaux neuronaux: naïve Bayes über alles, 论文."]
    )
    if encoding.endswith("-bom"):
        codec = encoding[: -len("-bom")]
        mark = "\ufeff".encode(codec)
        data = mark + content.encode(codec)
    else:
        data = content.encode(encoding)
    parsed = parse_dump(write(tmp_path, "fr.txt", data), 20)
    assert parsed.title == "Journées d'Étude — 论文"
    assert parsed.papers[0]["abstract"] == "Étude des réseaux neuronaux: naïve Bayes über alles, 论文."
    assert not parsed.warnings


def test_cp1252_fallback_is_recorded_as_a_warning(tmp_path):
    content = txt_dump("Café “Lumière”", ["Les réseaux “profonds” apprennent vite – même à Noël."])
    parsed = parse_dump(write(tmp_path, "fr.txt", content.encode("cp1252")), 20)
    assert parsed.encoding == "cp1252"
    assert parsed.papers[0]["abstract"] == "Les réseaux “profonds” apprennent vite – même à Noël."
    assert len(parsed.warnings) == 1 and "fr.txt" in parsed.warnings[0] and "line 1" in parsed.warnings[0]
    assert "save the file as UTF-8" in parsed.warnings[0]


def test_latin1_fallback_when_cp1252_cannot_decode(tmp_path):
    data = (
        txt_dump("Title", ["An abstract with a byte cp1252 leaves undefined: é"]).encode("latin-1") + b"\x81"
    )
    parsed = parse_dump(write(tmp_path, "x.txt", data), 20)
    assert parsed.encoding == "latin-1" and parsed.warnings
    assert parsed.papers[0]["abstract"].startswith("An abstract with a byte cp1252 leaves undefined: é")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_line_endings(tmp_path, newline):
    abstracts = ["First abstract, with a line\nbreak inside it.", "Second abstract stands alone here."]
    content = txt_dump(abstracts=abstracts).replace("\n", newline)
    parsed = parse_dump(write(tmp_path, "x.txt", content), 20)
    assert [p["abstract"] for p in parsed.papers] == [a.replace("\n", " ") for a in abstracts]


def test_nonbreaking_and_zero_width_spaces_are_normalised(tmp_path):
    noisy = (
        "Deep\u00a0learning\u200b models\u202fscale with data;\u2060 soft\u00adhyphen and\u3000wide space."
    )
    clean = "Deep learning models scale with data; softhyphen and wide space."
    parsed = parse_dump(write(tmp_path, "x.txt", txt_dump(abstracts=[noisy])), 20)
    assert parsed.papers[0]["abstract"] == clean
    assert parsed.papers[0]["id"] == paper_id(clean)


def test_line_of_nonbreaking_spaces_separates_paragraphs(tmp_path):
    content = f"Title\n\n{ABSTRACTS[0]}\n\u00a0\u200b\n{ABSTRACTS[1]}\n"
    assert len(parse_dump(write(tmp_path, "x.txt", content), 20).papers) == 2


def test_html_entities_and_tags_are_decoded_for_the_keyword_text(tmp_path):
    scraped = "<p>We grow <i>E.&nbsp;coli</i> &amp; yeast&#39;s cultures in R&D labs, where a &lt; b.</p>"
    row = {"title": "Yeast &amp; <b>bacteria</b>", "abstract": scraped}
    parsed = parse_dump(write(tmp_path, "x.jsonl", json.dumps(row)), 20)
    paper = parsed.papers[0]
    assert paper["text"] == "We grow E. coli & yeast's cultures in R&D labs, where a < b."
    assert paper["abstract"] == scraped  # the input as given, for papers.csv
    assert paper["display_name"] == "Yeast & bacteria"
    assert paper["id"] == paper_id("We grow E. coli & yeast's cultures in R&D labs, where a < b.")


def test_maths_that_looks_like_tags_is_kept():
    assert (
        clean_for_keywords("If a <b and c> d then &notation holds") == "If a <b and c> d then &notation holds"
    )


# --- accounting ------------------------------------------------------------------------


def test_txt_accounting_short_and_duplicate_paragraphs(tmp_path):
    content = txt_dump(
        abstracts=[ABSTRACTS[0], "Too short.", ABSTRACTS[1], ABSTRACTS[0].upper(), ABSTRACTS[2]]
    )
    parsed = parse_dump(write(tmp_path, "x.txt", content), min_abstract_chars=20)
    summary = parsed.summary()
    assert (summary["records_read"], summary["kept"], summary["duplicates"], summary["rejected"]) == (
        5,
        3,
        1,
        1,
    )
    assert summary["rejections"] == [
        {
            "position": 1,
            "location": "line 5",
            "reason": "too_short",
            "detail": "10 characters, fewer than parse.min_abstract_chars = 20",
        }
    ]
    assert summary["duplicate_records"] == [
        {"position": 3, "location": "line 9", "id": paper_id(ABSTRACTS[0]), "same_as": "line 3"}
    ]
    assert summary["rejected_by_reason"] == {"too_short": 1}


def test_min_abstract_chars_is_configurable(tmp_path):
    path = write(tmp_path, "x.txt", txt_dump(abstracts=["Short but real.", ABSTRACTS[0]]))
    assert len(parse_dump(path, min_abstract_chars=20).papers) == 1
    assert len(parse_dump(path, min_abstract_chars=5).papers) == 2


def test_csv_accounting_empty_short_and_unparsable_rows(tmp_path):
    content = (
        "title,abstract,year\n"
        f'A,"{ABSTRACTS[0]}",2020\n'
        "B,,2021\n"
        "C,tiny,2022\n"
        f'D,"{ABSTRACTS[1]}",2023,surplus\n'
        "\n"
        f'E,"{ABSTRACTS[2]}",2024\n'
        ",,\n"
    )
    summary = parse_dump(write(tmp_path, "x.csv", content), 20).summary()
    assert (summary["records_read"], summary["kept"], summary["duplicates"], summary["rejected"]) == (
        6,
        2,
        0,
        4,
    )
    assert [(r["location"], r["reason"]) for r in summary["rejections"]] == [
        ("line 3", "empty"),
        ("line 4", "too_short"),
        ("line 5", "unparsable"),
        ("line 8", "empty"),
    ]
    assert "4 fields where the header has 3" in summary["rejections"][2]["detail"]
    assert summary["rejected_by_reason"] == {"empty": 2, "too_short": 1, "unparsable": 1}


def test_json_lines_accounting_non_objects_and_missing_abstracts(tmp_path):
    lines = [
        json.dumps({"abstract": ABSTRACTS[0]}),
        "[1, 2]",
        json.dumps({"title": "no abstract"}),
        json.dumps({"abstract": None}),
        json.dumps({"abstract": ABSTRACTS[0]}),
    ]
    summary = parse_dump(write(tmp_path, "x.jsonl", "\n".join(lines)), 20).summary()
    assert (summary["records_read"], summary["kept"], summary["duplicates"], summary["rejected"]) == (
        5,
        1,
        1,
        3,
    )
    assert [(r["location"], r["reason"]) for r in summary["rejections"]] == [
        ("line 2", "unparsable"),
        ("line 3", "empty"),
        ("line 4", "empty"),
    ]


def test_same_abstract_in_two_dumps_is_kept_once_with_both_dumps(tmp_path):
    spring = parse_dump(write(tmp_path, "spring.txt", txt_dump(abstracts=ABSTRACTS[:2])), 20)
    rows = [{"abstract": ABSTRACTS[1].replace("&", "&amp;"), "title": "Again"}, {"abstract": ABSTRACTS[2]}]
    autumn = parse_dump(write(tmp_path, "autumn.jsonl", "\n".join(map(json.dumps, rows))), 20)
    papers, summary = merge_dumps([(spring.summary(), spring.papers), (autumn.summary(), autumn.papers)])
    assert len(papers) == 3
    shared = next(p for p in papers if p["id"] == paper_id(ABSTRACTS[1]))
    assert shared["dumps"] == ["spring", "autumn"]
    assert summary["duplicates_across_dumps"] == 1


def test_real_corpus_file_parses_with_full_accounting():
    from conftest import require_corpus

    parsed = parse_dump(require_corpus("ijcai_2020_2024_areas.jsonl.gz"), 20)
    summary = parsed.summary()
    assert summary["records_read"] == 3281
    assert summary["kept"] + summary["duplicates"] + summary["rejected"] == 3281
    assert len({p["label"] for p in parsed.papers}) == 16
    assert all(p["year"].isdigit() and p["input_id"].startswith("ijcai") for p in parsed.papers)
    assert all(
        p["display_name"] == clean_for_keywords(p["title"]) for p in parsed.papers if len(p["title"]) < 150
    )


# --- errors ----------------------------------------------------------------------------


def parse_error(path: Path, **options) -> str:
    with pytest.raises(PipelineInputError) as raised:
        parse_dump(path, min_abstract_chars=options.pop("min_abstract_chars", 20), **options)
    message = str(raised.value)
    assert str(path) in message
    return message


@pytest.mark.parametrize(
    "content",
    [b"", b"  \n\r\n\t ", "\ufeff\n".encode("utf-8"), "\u200b\n\u00a0\n".encode("utf-8")],
    ids=["zero-bytes", "blank", "bom-only", "invisible-only"],
)
def test_empty_file(tmp_path, content):
    assert "the file is empty" in parse_error(write(tmp_path, "x.txt", content))


def test_empty_gzip_file(tmp_path):
    assert "the file is empty" in parse_error(write(tmp_path, "x.jsonl", b"", compressed=True))


def test_binary_file(tmp_path):
    data = bytes(range(256)) * 8
    assert "binary file" in parse_error(write(tmp_path, "x.txt", data))


@pytest.mark.parametrize(
    "data, what",
    [
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "PDF"),
        (b"PK\x03\x04\x14\x00\x06\x00", "xlsx"),
        (gzip.compress(b"Title\n\nabstract"), "name it with a .gz ending"),
        (b"\x89PNG\r\n\x1a\n", "PNG"),
    ],
    ids=["pdf", "xlsx", "gzip-without-gz", "png"],
)
def test_known_binary_formats_are_named(tmp_path, data, what):
    assert what in parse_error(write(tmp_path, "x.csv", data))


def test_control_characters_without_nul_are_binary(tmp_path):
    data = b"Title\n\n" + bytes(c for c in range(1, 32) if c not in (9, 10, 13)) * 100
    assert "binary file" in parse_error(write(tmp_path, "x.txt", data))


def test_corrupt_gzip(tmp_path):
    path = tmp_path / "x.txt.gz"
    path.write_bytes(gzip.compress(txt_dump().encode())[:-12])
    assert "not a readable gzip file" in parse_error(path)


def test_json_line_that_does_not_parse(tmp_path):
    content = json.dumps({"abstract": ABSTRACTS[0]}) + "\n" + '{"abstract": "unterminated\n'
    message = parse_error(write(tmp_path, "x.jsonl", content))
    assert "line 2 is not valid JSON" in message and "Fix or delete that line" in message


def test_json_file_that_does_not_parse(tmp_path):
    message = parse_error(write(tmp_path, "x.json", '[\n  {"abstract": "a"},\n  {"abstract": }\n]'))
    assert "line 3, column 16" in message


def test_json_object_without_a_list_of_papers(tmp_path):
    assert "expected a JSON list" in parse_error(write(tmp_path, "x.json", '{"a": 1, "b": 2}'))


def test_csv_without_an_abstract_column(tmp_path):
    message = parse_error(write(tmp_path, "x.csv", "title,authors\nA,B\n"))
    assert "no abstract column (columns: title, authors)" in message
    assert "parse.abstract_column" in message


def test_configured_abstract_column_missing(tmp_path):
    message = parse_error(write(tmp_path, "x.csv", table(",")), abstract_column="body")
    assert "parse.abstract_column is 'body'" in message and "abstract" in message


def test_json_lines_without_an_abstract_field(tmp_path):
    message = parse_error(write(tmp_path, "x.jsonl", '{"title": "A"}\n{"title": "B"}\n'))
    assert "no abstract field (fields: title)" in message


def test_csv_with_an_unclosed_quote(tmp_path):
    content = f'title,abstract\nA,"{ABSTRACTS[0]}"\nB,"never closed\nC,"{ABSTRACTS[1]}"\n'
    assert "row starting at line 3" in parse_error(write(tmp_path, "x.csv", content))


def test_dump_with_title_line_only(tmp_path):
    assert "no abstracts found after the title line" in parse_error(
        write(tmp_path, "x.txt", "Only a title\n\n")
    )


def test_dump_whose_records_are_all_rejected(tmp_path):
    message = parse_error(write(tmp_path, "x.txt", txt_dump(abstracts=["short one", "short two"])))
    assert "all 2 records were rejected (2 too_short; first at line 3" in message


@pytest.mark.parametrize("content", ["[]", "title,abstract\n"], ids=["json", "csv"])
def test_structured_dump_with_zero_records(tmp_path, content):
    name = "x.json" if content == "[]" else "x.csv"
    assert "no record" in parse_error(write(tmp_path, name, content))


def test_unsupported_extension(tmp_path):
    message = parse_error(write(tmp_path, "x.xlsx", b"data"))
    assert "unsupported file type '.xlsx'" in message and ".csv" in message


def test_report_overview_shows_rejection_reasons():
    from papertopics.report.overview import _dump_table

    dump = {
        "dump": "x",
        "title": "X",
        "records_read": 6,
        "kept": 2,
        "duplicates": 0,
        "also_in_earlier_dumps": 0,
        "rejected": 4,
        "rejected_by_reason": {"empty": 2, "too_short": 1, "unparsable": 1},
    }
    assert "<td>4 (2 empty, 1 too short, 1 unparsable)</td>" in _dump_table({"dumps": [dump]})
