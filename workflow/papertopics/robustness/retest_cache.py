"""Each replicate's re-tested findings kept between runs of the finding_robustness job, keyed by
what they were computed from, so that a rerun recomputes only the re-tests whose inputs changed:
editing a decision re-tests the decisions' findings, and reads the trends', people's, venues',
bursts', ratings' and citations' from here (at 10,000 abstracts those were most of the job:
bench/robustness-cost.md).

A re-test's key is a digest of the package's code and the libraries' versions, the stage's knobs,
the kind of re-test, the replicate's papers and topics, and the data the re-test reads (files or
arrays); a table is found again only where all of them are the same, so what it holds is what
the re-test would compute. The folder keeps only the tables the job last used.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from importlib.metadata import version
from pathlib import Path

import numpy as np

from papertopics import storage

_LOG = logging.getLogger(__name__)
_PACKAGE = Path(__file__).resolve().parents[1]


def digest(*parts: bytes | str) -> str:
    """A hex digest of ``parts``, each length-prefixed (so that no two sequences read alike)."""
    found = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        found.update(len(data).to_bytes(8, "little"))
        found.update(data)
    return found.hexdigest()


def array_digest(*arrays: np.ndarray) -> str:
    """A digest of ``arrays``' values and types (text arrays by their values, one per item)."""
    parts = []
    for array in arrays:
        array = np.asarray(array)
        if array.dtype == object:
            parts += ["object", json.dumps([str(item) for item in array.tolist()], ensure_ascii=False)]
        else:
            parts += [array.dtype.str, repr(array.shape), np.ascontiguousarray(array).tobytes()]
    return digest(*parts)


def files_digest(paths: Iterable[str]) -> str:
    """A digest of the files' contents, in the order given."""
    return digest(*(Path(path).read_bytes() for path in paths))


def code_digest() -> str:
    """A digest of the papertopics package's source and the versions of the libraries the
    re-tests compute with: a change to any test, or a library that draws other random numbers
    or counts terms otherwise, keys every table anew.
    """
    sources = sorted(_PACKAGE.rglob("*.py"))
    # The versions as installed: reading them imports none of the libraries.
    return digest(
        *(version(library) for library in ("numpy", "pandas", "scipy", "scikit-learn")),
        *(part for path in sources for part in (str(path.relative_to(_PACKAGE)), path.read_bytes())),
    )


class RetestCache:
    """The re-tested tables of ``folder``, under keys that begin with ``scope`` (``code_digest``
    and the stage's knobs, digested); ``prune`` removes the tables this job did not use.
    """

    def __init__(self, folder: str, scope: str) -> None:
        self.folder = Path(folder)
        self.scope = scope
        self.used: set[str] = set()
        self.found = 0
        self.computed = 0

    def table(self, kind: str, inputs: str, replicate, retest: Callable):
        """``retest(replicate)`` (a table of plain columns: numbers and text), or the table it gave
        before for the same code, knobs, ``kind``, ``inputs`` (a digest of the data it reads) and
        replicate.
        """
        # Pandas loads only in the stages that read tables, not in parse, corpus or gather jobs.
        import pandas as pd

        key = digest(
            self.scope, kind, inputs, array_digest(replicate.rows, replicate.labels, replicate.outlier)
        )
        name = f"{kind}-{key[:32]}.json"
        self.used.add(name)
        path = self.folder / name
        if path.exists():
            self.found += 1
            kept = storage.read_json(path)
            return pd.DataFrame(kept["data"], columns=kept["columns"])
        self.computed += 1
        table = retest(replicate)
        self.folder.mkdir(parents=True, exist_ok=True)
        storage.write_json(path, table.to_dict(orient="split", index=False))
        return table

    def prune(self) -> None:
        """Remove the tables this job did not use (an older run's), and say how many were found."""
        for path in self.folder.glob("*.json"):
            if path.name not in self.used:
                path.unlink()
        _LOG.info(
            "re-tests: %d tables kept from an earlier run, %d computed (%s)",
            self.found,
            self.computed,
            self.folder,
        )
