"""A results folder is data, never code (issue #62): a kept fit is unpickled only when this
installation's key signed it, one from elsewhere (or edited, truncated, unsigned) is refused
before a byte of it is loaded and refitted with one line naming it; the key is made once, outside
the results, readable by its owner alone; and nothing in the workflow unpickles a file otherwise.
"""

from __future__ import annotations

import ast
import io
import logging
import os
import stat
import subprocess
import sys

import joblib
import numpy as np
import pytest
from papertopics import signed
from papertopics.errors import PipelineInputError
from papertopics.mapping.placement import project

from tests.workflow_support import REPO

WORKFLOW = REPO / "workflow"


class _Trap:
    """Unpickled, it runs code: it creates the file ``marker``."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').close()",)


def trapped_pickle(marker) -> bytes:
    """Joblib's pickle of a fit whose loading creates ``marker`` (a results folder from someone else)."""
    buffer = io.BytesIO()
    joblib.dump({"model": _Trap(marker)}, buffer, compress=3)
    return buffer.getvalue()


def test_the_trap_runs_its_code_when_loaded_without_the_check(tmp_path):
    # What the refusals below keep from happening: loading the file as it comes runs its code.
    joblib.load(io.BytesIO(trapped_pickle(tmp_path / "ran")))
    assert (tmp_path / "ran").exists()


def test_a_signed_fit_loads_back_as_written(tmp_path):
    path = tmp_path / "fit" / "map.joblib"
    value = {"ids": ["a", "b"], "coordinates": np.arange(6.0).reshape(3, 2), "umap": {"metric": "cosine"}}
    signed.dump(value, path)
    assert path.read_bytes().startswith(signed.MAGIC)
    loaded = signed.load(path)
    assert loaded["ids"] == value["ids"] and loaded["umap"] == value["umap"]
    assert np.array_equal(loaded["coordinates"], value["coordinates"])
    # The same value, the same bytes: a rerun publishes the same fit.
    signed.dump(value, tmp_path / "again.joblib")
    assert (tmp_path / "again.joblib").read_bytes() == path.read_bytes()


def signed_with_another_key(payload: bytes, tmp_path, monkeypatch) -> bytes:
    """``payload`` as another installation would sign it (its key in a folder of ``tmp_path``)."""
    with monkeypatch.context() as elsewhere:
        elsewhere.setenv(signed.KEY_FOLDER_VARIABLE, str(tmp_path / "colleague"))
        digest = signed._signature(payload)
    return signed.MAGIC + digest + b"\n" + payload


@pytest.mark.parametrize(
    "how", ["unsigned", "another key", "forged", "swapped", "edited", "truncated", "empty"]
)
def test_a_fit_this_installation_did_not_sign_is_refused_unloaded(tmp_path, monkeypatch, how):
    monkeypatch.setenv(signed.KEY_FOLDER_VARIABLE, str(tmp_path / "mine"))
    marker = tmp_path / "ran"
    trap = trapped_pickle(marker)
    path = tmp_path / "results" / "fit" / "clusters.joblib"
    path.parent.mkdir(parents=True)
    signed.dump({"model": "a fit of mine"}, path)
    mine = path.read_bytes()
    planted = {
        "unsigned": trap,  # a fit kept before fits were signed, or another program's pickle
        "another key": signed_with_another_key(trap, tmp_path, monkeypatch),
        "forged": signed.MAGIC + b"0" * 64 + b"\n" + trap,
        # The signed file with its pickle swapped, a byte changed, or cut short.
        "swapped": mine[: len(signed.MAGIC) + 65] + trap,
        "edited": mine[:-1] + bytes([mine[-1] ^ 1]),
        "truncated": mine[:-7],
        "empty": b"",
    }[how]
    path.write_bytes(planted)
    with pytest.raises(signed.Refused) as refused:
        signed.load(path)
    assert str(path) in str(refused.value) and "not loaded" in str(refused.value)
    assert "\n" not in str(refused.value)
    assert not marker.exists()


def test_the_key_is_made_once_outside_the_results_readable_by_its_owner_alone(tmp_path, monkeypatch):
    monkeypatch.delenv(signed.KEY_FOLDER_VARIABLE)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    key = signed.installation_key()
    path = tmp_path / "config" / "papertopics" / "fit.key"
    assert len(key) == 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert signed.installation_key() == key
    assert os.listdir(path.parent) == ["fit.key"]  # no temporary file left behind
    # Without XDG_CONFIG_HOME (or with a relative one, which the XDG specification ignores): ~/.config.
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert signed.key_folder() == tmp_path / "home" / ".config" / "papertopics"
    assert signed.installation_key() != key


def test_jobs_making_the_key_at_once_share_one(tmp_path):
    # The projections' jobs run side by side and each may be the first to sign a fit.
    code = "from papertopics import signed; print(signed.installation_key().hex())"
    env = {**os.environ, signed.KEY_FOLDER_VARIABLE: str(tmp_path / "keys"), "PYTHONPATH": str(WORKFLOW)}
    runs = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(4)
    ]
    keys = {run.communicate(timeout=120)[0].strip() for run in runs}
    assert len(keys) == 1
    assert (tmp_path / "keys" / "fit.key").read_text().strip() == keys.pop()


def test_a_key_that_cannot_be_kept_or_read_is_one_clear_line(tmp_path, monkeypatch):
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv(signed.KEY_FOLDER_VARIABLE, str(tmp_path / "a-file" / "keys"))
    with pytest.raises(PipelineInputError, match=f"cannot keep the key .* in {tmp_path / 'a-file'}.*set "):
        signed.dump({}, tmp_path / "fit.joblib")
    monkeypatch.setenv(signed.KEY_FOLDER_VARIABLE, str(tmp_path / "keys"))
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "fit.key").write_text("not hex\n")
    with pytest.raises(PipelineInputError, match="fit.key is not a papertopics key"):
        signed.installation_key()


def test_a_projection_refuses_a_foreign_fit_and_refits_saying_which_file(tmp_path, caplog):
    marker = tmp_path / "ran"
    fitted = tmp_path / "results" / "fit" / "map.joblib"
    fitted.parent.mkdir(parents=True)
    fitted.write_bytes(trapped_pickle(marker))
    model = tmp_path / "results" / "reduced" / "map.joblib"
    refits = []

    def fit(models):
        refits.append(models)
        return np.array(["a", "b"]), np.zeros((2, 2), dtype=np.float32), {"n_components": 2}

    with caplog.at_level(logging.WARNING):
        ids, _, placed, settings = project([str(fitted)], "place", str(model), None, fit, {"n_components": 2})
    assert not marker.exists() and len(refits) == 1
    assert ids.tolist() == ["a", "b"] and not placed.any()
    assert settings["update"]["mode"] == "refit" and settings["update"]["refused"] == str(fitted)
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 1 and str(fitted) in lines[0] and "fitting afresh" in lines[0]
    # The refit is this installation's: the next placed run loads it.
    assert signed.load(model)["ids"] == ["a", "b"]


# Calls that unpickle what they read: a file under results/ read this way runs its code.
_UNPICKLING = {
    "pickle.load",
    "pickle.loads",
    "pickle.Unpickler",
    "_pickle.load",
    "_pickle.loads",
    "joblib.load",
    "cloudpickle.load",
    "cloudpickle.loads",
    "dill.load",
    "dill.loads",
    "pandas.read_pickle",
    "shelve.open",
}


def _qualified(node: ast.expr, names: dict[str, str]) -> str | None:
    """The dotted name a call's function resolves to through the module's imports."""
    if isinstance(node, ast.Name):
        return names.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        base = _qualified(node.value, names)
        return f"{base}.{node.attr}" if base else None
    return None


def _keyword(call: ast.Call, name: str):
    found = [keyword.value for keyword in call.keywords if keyword.arg == name]
    return found[0] if found else None


def unpickling_calls(source: str) -> list[tuple[int, str]]:
    """Each call in ``source`` that may unpickle: the unpickling functions, ``torch.load`` without
    ``weights_only=True``, ``numpy.load`` with ``allow_pickle`` anything but False (its default).
    """
    tree = ast.parse(source)
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                names[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.update({alias.asname or alias.name: f"{node.module}.{alias.name}" for alias in node.names})
    found = []
    for call in (node for node in ast.walk(tree) if isinstance(node, ast.Call)):
        name = _qualified(call.func, names)
        if name in _UNPICKLING:
            found.append((call.lineno, name))
        elif name == "torch.load":
            weights_only = _keyword(call, "weights_only")
            if not (isinstance(weights_only, ast.Constant) and weights_only.value is True):
                found.append((call.lineno, f"{name} without weights_only=True"))
        elif name == "numpy.load":
            allow = _keyword(call, "allow_pickle")
            if allow is not None and not (isinstance(allow, ast.Constant) and allow.value is False):
                found.append((call.lineno, f"{name} with allow_pickle"))
    return found


def test_the_scan_finds_each_way_of_unpickling():
    source = """
import pickle, joblib as jl
import numpy as np
import torch
from pandas import read_pickle
from pickle import loads as from_bytes
pickle.load(open("results/fit/x", "rb"))
jl.load("results/fit/map.joblib")
np.load("results/x.npz", allow_pickle=True)
np.load("results/x.npz", allow_pickle=flag)
torch.load("results/model.pt")
torch.load("results/model.pt", weights_only=False)
read_pickle("results/x.pkl")
from_bytes(data)
np.load("results/x.npz")
np.load("results/x.npz", allow_pickle=False)
torch.load("results/model.pt", weights_only=True)
"""
    assert [line for line, _ in unpickling_calls(source)] == [7, 8, 9, 10, 11, 12, 13, 14]


def test_nothing_in_the_workflow_unpickles_but_the_signed_load():
    # papertopics/signed.py unpickles only after the signature held (the refusals above).
    allowed = WORKFLOW / "papertopics" / "signed.py"
    found = {
        f"{path.relative_to(REPO)}:{line}: {name}"
        for path in sorted(WORKFLOW.rglob("*.py"))
        for line, name in unpickling_calls(path.read_text(encoding="utf-8"))
        if path != allowed
    }
    assert found == set()
    assert [name for _, name in unpickling_calls(allowed.read_text(encoding="utf-8"))] == ["joblib.load"]
