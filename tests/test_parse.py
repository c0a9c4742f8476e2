import pytest

from papertopics.errors import PipelineInputError
from papertopics.parse import dump_name, parse_text_dump

ABSTRACT_A = "We introduce LakeQA, a benchmark for search-centric question answering over data lakes."
ABSTRACT_B = "Decision trees and diffusion models are ostensibly disparate model classes that we unify here."


def write(tmp_path, content: bytes, name="dump.txt"):
    path = tmp_path / name
    path.write_bytes(content)
    return path


def test_title_line_paragraphs_and_joined_lines(tmp_path):
    first_line, second_line = ABSTRACT_A.split(" search-centric ")
    text = f"ICML 2026 论文列表\n\n{first_line}\n search-centric {second_line}\n\n\n\n{ABSTRACT_B}\n"
    parsed = parse_text_dump(write(tmp_path, text.encode()), min_abstract_chars=20)
    assert parsed.title == "ICML 2026 论文列表"
    assert [p["abstract"] for p in parsed.papers] == [ABSTRACT_A, ABSTRACT_B]
    assert parsed.papers[0]["display_name"] == "LakeQA"
    assert parsed.papers[0]["dump"] == "dump" and parsed.papers[0]["dump_title"] == "ICML 2026 论文列表"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_line_endings_and_byte_order_mark(tmp_path, newline, bom):
    text = newline.join(["Title", "", ABSTRACT_A, "", ABSTRACT_B, ""])
    parsed = parse_text_dump(write(tmp_path, bom + text.encode()), min_abstract_chars=20)
    assert parsed.title == "Title"
    assert [p["abstract"] for p in parsed.papers] == [ABSTRACT_A, ABSTRACT_B]


def test_ids_are_stable_when_the_dump_is_reordered(tmp_path):
    first = parse_text_dump(write(tmp_path, f"T\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}".encode(), "a.txt"), 20)
    second = parse_text_dump(write(tmp_path, f"T\n\n{ABSTRACT_B}\n\n{ABSTRACT_A}".encode(), "b.txt"), 20)
    assert {p["id"] for p in first.papers} == {p["id"] for p in second.papers}
    assert first.papers[0]["id"] == second.papers[1]["id"]


def test_accounting_of_duplicates_and_short_paragraphs(tmp_path):
    parsed = parse_text_dump(write(tmp_path, f"T\n\n{ABSTRACT_A}\n\ntoo short\n\n{ABSTRACT_A}".encode()), 20)
    summary = parsed.summary()
    assert summary["records_read"] == 3
    assert summary["kept"] + summary["duplicates"] + summary["rejected"] == 3
    assert (summary["kept"], summary["duplicates"], summary["rejected"]) == (1, 1, 1)
    assert "shorter than 20" in summary["rejections"][0]["reason"]


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty"),
        (b"  \n\n ", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR", "binary"),
        (b"Title\n\ncaf\xe9 au lait is an abstract that is long enough", "not valid UTF-8"),
        (b"Only a title line\n", "no abstracts"),
    ],
)
def test_bad_dumps_raise_clear_errors_naming_the_file(tmp_path, content, message):
    path = write(tmp_path, content, "bad.txt")
    with pytest.raises(PipelineInputError, match=message) as error:
        parse_text_dump(path, min_abstract_chars=20)
    assert str(path) in str(error.value)


def test_dump_name_drops_every_extension():
    assert dump_name("data/raw/icml.txt") == "icml"
    assert dump_name("data/raw/arxiv.jsonl.gz") == "arxiv"
