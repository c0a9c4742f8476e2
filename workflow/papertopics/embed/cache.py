"""Per-abstract embedding cache: one small ``.npy`` file per embedded text.

Entries live under ``<cache_dir>/<encoder key>/<sha[:2]>/<sha>.npy``, where the encoder key
identifies the model files, backend and sequence length, and ``sha`` is the SHA-256 of the
text that was embedded. Each entry is written to a temporary file and renamed into place, so
concurrent jobs never see (or leave) a partial entry; an entry that fails to load or is not a
finite unit vector of the right size is treated as missing and rewritten.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import logging
import os
from pathlib import Path

import numpy as np

from papertopics import storage

_LOG = logging.getLogger(__name__)
_UNIT_TOLERANCE = 1e-3


def text_key(text: str) -> str:
    """The cache key of a text (its SHA-256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def encoder_key(identity: dict) -> str:
    """A short, stable name for everything that determines an embedding besides its text."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]


@functools.cache
def _entry_header(dimension: int) -> bytes:
    """The bytes ``np.save`` writes before the data of a float32 vector of ``dimension`` values."""
    stream = io.BytesIO()
    np.save(stream, np.zeros(dimension, dtype=np.float32))
    return stream.getvalue()[: -4 * dimension]


class EmbeddingCache:
    """Embeddings on disk, one small file per text, under a folder named for the encoder."""

    def __init__(self, directory: str | Path, identity: dict, dimension: int | None = None):
        self.root = Path(directory) / encoder_key(identity)
        self.dimension = dimension
        self.rebuilt = 0  # entries found corrupt, so read as misses
        self._folders_made: set[str] = set()

    def _path(self, key: str) -> str:
        # Plain strings: pathlib's joins cost more than the file access at 10,000 entries.
        return os.path.join(self.root, key[:2], f"{key}.npy")

    def _valid(self, vector: np.ndarray) -> bool:
        if vector.dtype != np.float32 or vector.ndim != 1:
            return False
        if self.dimension is not None and vector.shape[0] != self.dimension:
            return False
        return bool(np.isfinite(vector).all()) and abs(float(np.linalg.norm(vector)) - 1.0) < _UNIT_TOLERANCE

    def _decode(self, data: bytes) -> np.ndarray:
        """The vector an entry holds; its header is compared as bytes when it is the usual one
        (parsing it costs more than reading the file), else read by numpy, which raises if damaged.
        """
        if self.dimension is not None:
            header = _entry_header(self.dimension)
            if len(data) == len(header) + 4 * self.dimension and data.startswith(header):
                return np.frombuffer(data, dtype=np.float32, offset=len(header))
        return np.load(io.BytesIO(data), allow_pickle=False)

    def get(self, text: str) -> np.ndarray | None:
        """The cached vector of ``text``, or None when it is missing or its file is corrupt."""
        path = self._path(text_key(text))
        try:
            with open(path, "rb") as stream:
                vector = self._decode(stream.read())
        except FileNotFoundError:
            return None
        except (OSError, ValueError, EOFError) as error:
            _LOG.warning("embedding cache entry %s is unreadable (%s); embedding again", path, error)
            self.rebuilt += 1
            return None
        if not self._valid(vector):
            _LOG.warning("embedding cache entry %s is not a valid embedding; embedding again", path)
            self.rebuilt += 1
            return None
        if self.dimension is None:
            self.dimension = vector.shape[0]
        return vector

    def put(self, text: str, vector: np.ndarray) -> None:
        """Store ``text``'s vector (float32), atomically."""
        path = self._path(text_key(text))
        folder = os.path.dirname(path)
        if folder not in self._folders_made:
            os.makedirs(folder, exist_ok=True)
            self._folders_made.add(folder)
        vector = np.ascontiguousarray(vector, dtype=np.float32)
        # The same bytes as np.save writes, without formatting the header each time.
        storage.write_bytes(path, _entry_header(vector.shape[0]) + vector.tobytes())

    def _verdicts_path(self, texts: list[str]) -> str:
        # Named for the texts and their order; under the encoder's folder, whose key holds the
        # model and its window (max_seq_length), which the verdicts depend on.
        digest = hashlib.sha256("".join(text_key(text) for text in texts).encode("ascii")).hexdigest()
        return os.path.join(self.root, "windows", f"{digest}.verdicts")

    def window_verdicts(self, texts: list[str]) -> np.ndarray | None:
        """Which of ``texts`` are longer than the model's window, as counted when these texts, in
        this order, were last embedded (``keep_window_verdicts``); None when never counted, or
        when the file is damaged (then counted again).
        """
        path = self._verdicts_path(texts)
        try:
            verdicts = np.load(path, allow_pickle=False)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, EOFError) as error:
            _LOG.warning("window verdicts %s are unreadable (%s); counting again", path, error)
            return None
        if verdicts.dtype != bool or verdicts.shape != (len(texts),):
            _LOG.warning("window verdicts %s do not fit their texts; counting again", path)
            return None
        return verdicts

    def keep_window_verdicts(self, texts: list[str], verdicts: np.ndarray) -> None:
        """Store which of ``texts`` are over the window (counting them costs more than reading
        every cached vector of a dump), atomically.
        """
        path = self._verdicts_path(texts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        stream = io.BytesIO()
        np.save(stream, np.asarray(verdicts, dtype=bool))
        storage.write_bytes(path, stream.getvalue())


def embed_with_cache(
    texts: list[str], cache: EmbeddingCache, load_encoder, batch_size: int
) -> tuple[np.ndarray, int]:
    """Embeddings of ``texts``, computing only the cache misses (the encoder is loaded only then).

    Returns the (n, dimension) float32 matrix and how many texts were embedded now.
    """
    vectors, missing = embed_missing(texts, cache, load_encoder, batch_size)
    return vectors, len(missing)


def embed_missing(
    texts: list[str], cache: EmbeddingCache, load_encoder, batch_size: int
) -> tuple[np.ndarray, set[str]]:
    """``embed_with_cache``, returning the texts embedded now: one encode call for all the misses
    (the model batches texts of a similar length best when it sees them all at once).
    """
    found = [cache.get(text) for text in texts]
    missing = sorted({text for text, vector in zip(texts, found, strict=True) if vector is None})
    computed: dict[str, np.ndarray] = {}
    if missing:
        encoder = load_encoder()
        vectors = encoder.encode(missing, batch_size=batch_size)
        for text, vector in zip(missing, vectors, strict=True):
            cache.put(text, vector)
            computed[text] = vector
        cache.dimension = cache.dimension or vectors.shape[1]
    rows = [
        vector if vector is not None else computed[text] for text, vector in zip(texts, found, strict=True)
    ]
    if not rows:
        return np.zeros((0, cache.dimension or 0), dtype=np.float32), set(missing)
    return np.vstack(rows).astype(np.float32), set(missing)
