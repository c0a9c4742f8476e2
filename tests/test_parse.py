from papertopics.ingest.parse import dump_name, parse_dump

ABSTRACT_A = "We introduce LakeQA, a benchmark for search-centric question answering over data lakes."
ABSTRACT_B = "Decision trees and diffusion models are ostensibly disparate model classes that we unify here."


def write(tmp_path, content: bytes, name="dump.txt"):
    path = tmp_path / name
    path.write_bytes(content)
    return path


def test_title_line_paragraphs_and_joined_lines(tmp_path):
    first_line, second_line = ABSTRACT_A.split(" search-centric ")
    text = f"ICML 2026 论文列表\n\n{first_line}\n search-centric {second_line}\n\n\n\n{ABSTRACT_B}\n"
    parsed = parse_dump(write(tmp_path, text.encode()), min_abstract_chars=20)
    assert parsed.title == "ICML 2026 论文列表"
    assert [p["abstract"] for p in parsed.papers] == [ABSTRACT_A, ABSTRACT_B]
    assert parsed.papers[0]["display_name"] == "LakeQA"
    assert parsed.papers[0]["dump"] == "dump" and parsed.papers[0]["dump_title"] == "ICML 2026 论文列表"


def test_ids_are_stable_when_the_dump_is_reordered(tmp_path):
    first = parse_dump(write(tmp_path, f"T\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}".encode(), "a.txt"), 20)
    second = parse_dump(write(tmp_path, f"T\n\n{ABSTRACT_B}\n\n{ABSTRACT_A}".encode(), "b.txt"), 20)
    assert {p["id"] for p in first.papers} == {p["id"] for p in second.papers}
    assert first.papers[0]["id"] == second.papers[1]["id"]


def test_dump_name_drops_every_extension():
    assert dump_name("data/raw/icml.txt") == "icml"
    assert dump_name("data/raw/arxiv.jsonl.gz") == "arxiv"
