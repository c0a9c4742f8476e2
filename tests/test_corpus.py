from papertopics.ingest.corpus import merge_dumps


def summary(name, kept):
    return {
        "dump": name,
        "title": name.upper(),
        "records_read": kept,
        "kept": kept,
        "duplicates": 0,
        "rejected": 0,
    }


def paper(identifier, dump):
    return {"id": identifier, "dump": dump, "abstract": identifier}


def test_the_same_abstract_in_two_dumps_is_kept_once_with_both_dumps():
    papers, merged = merge_dumps(
        [
            (summary("a", 2), [paper("p1", "a"), paper("p2", "a")]),
            (summary("b", 2), [paper("p2", "b"), paper("p3", "b")]),
        ]
    )
    assert [p["id"] for p in papers] == ["p1", "p2", "p3"]
    assert papers[1]["dumps"] == ["a", "b"] and papers[1]["dump"] == "a"
    assert merged["papers"] == 3 and merged["duplicates_across_dumps"] == 1
    assert [d["also_in_earlier_dumps"] for d in merged["dumps"]] == [0, 1]
