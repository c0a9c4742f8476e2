import os
import stat

import numpy as np
import pytest
from papertopics import storage


def test_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.json"
    storage.write_json(target, {"version": 1})
    with pytest.raises(RuntimeError), storage.atomic_path(target) as temporary:
        temporary.write_text("half written")
        raise RuntimeError("killed")
    assert storage.read_json(target) == {"version": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_arrays_round_trip_without_pickle(tmp_path):
    ids = np.array(["p1", "p2"])
    vectors = np.arange(6, dtype=np.float32).reshape(2, 3)
    storage.write_arrays(tmp_path / "a.npz", ids=ids, vectors=vectors)
    loaded = storage.read_arrays(tmp_path / "a.npz")
    assert loaded["ids"].tolist() == ["p1", "p2"] and loaded["vectors"].dtype == np.float32
    np.testing.assert_array_equal(loaded["vectors"], vectors)


def test_jsonl_round_trip_keeps_unicode(tmp_path):
    records = [{"title": "ICML 2026 论文列表"}, {"title": "</script>"}]
    storage.write_jsonl(tmp_path / "r.jsonl", records)
    assert storage.read_jsonl(tmp_path / "r.jsonl") == records


def test_jsonl_failing_at_a_later_record_leaves_the_previous_file_and_no_temporary(tmp_path):
    target = tmp_path / "r.jsonl"
    storage.write_jsonl(target, [{"version": 1}])
    # Written line by line: the first records are on disk when the third fails to serialise.
    with pytest.raises(TypeError):
        storage.write_jsonl(target, [{"version": 2}, {"version": 2}, {"version": {2}}])
    assert storage.read_jsonl(target) == [{"version": 1}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]
    assert target.read_bytes() == b'{"version": 1}\n'


def test_new_files_get_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    storage.write_text(tmp_path / "a.txt", "text")
    storage.write_bytes(str(tmp_path / "b.bin"), b"bytes")
    assert (tmp_path / "b.bin").read_bytes() == b"bytes"
    assert [stat.S_IMODE((tmp_path / name).stat().st_mode) for name in ("a.txt", "b.bin")] == [
        0o666 & ~umask
    ] * 2


def test_a_failed_small_write_leaves_no_temporary(tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(OSError):
        storage.write_bytes(str(tmp_path / "taken"), b"bytes")  # a folder is in the way
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_two_writers_of_one_folder_never_share_their_temporary_folder(tmp_path):
    model = tmp_path / "model"
    (model / "old.json").parent.mkdir()
    (model / "old.json").write_text("old")
    with storage.atomic_folder(model) as first, storage.atomic_folder(model) as second:
        assert first != second and first.parent == second.parent == tmp_path
        (first / "config.json").write_text("first")
        (second / "config.json").write_text("second")
        assert (model / "old.json").exists(), "the folder is replaced only when its writer is done"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
    assert [p.name for p in model.iterdir()] == ["config.json"]
    assert (model / "config.json").read_text() == "first"  # the writer that finished last wins


def test_a_failed_folder_write_leaves_the_previous_folder(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("old")
    with pytest.raises(RuntimeError), storage.atomic_folder(model) as temporary:
        (temporary / "config.json").write_text("half")
        raise RuntimeError("killed midway")
    assert (model / "config.json").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
