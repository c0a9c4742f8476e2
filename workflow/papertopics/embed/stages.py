"""The embed stages, file to file: the corpus embedded (whole, or in shards gathered after).

Each function is what one Snakemake rule runs. Its parameters are named as the rule's inputs,
outputs and params (paths first), because the rule's script passes them by name; heavy libraries
are imported inside the functions, only when the stage that needs them runs.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from papertopics import storage
from papertopics.embed.cache import EmbeddingCache, embed_missing
from papertopics.embed.encoders import (
    embedding_text,
    encoder_identity,
    load_encoder,
    over_window,
    resolve_backend,
    window_size,
)
from papertopics.embed.models import effective_max_seq_length, resolve_model_location
from papertopics.embed.sharding import shard_bounds
from papertopics.settings import EmbeddingSettings

_LOG = logging.getLogger(__name__)


def embed_shard(
    papers: str, embeddings: str, knobs: dict, threads: int = 1, shard: int = 0, shards: int = 1
) -> None:
    """Embed the papers of one dump (or of its shard ``shard`` of ``shards``), reusing cached vectors;
    ``truncated`` marks those longer than the model's window (when it can be counted). ``knobs``:
    ``papertopics.settings.EmbeddingSettings``'s fields.
    """
    records = storage.read_jsonl(papers)
    start, end = shard_bounds(len(records), shard, shards)
    embedder = _Embedder(EmbeddingSettings(**knobs), threads)
    embedder.embed(records[start:end], embeddings, f"papers {start}-{end}")


class _Embedder:
    """Embeds papers through the embedding cache, loading the model at most once, and only when
    some text is not cached: one job can embed many dumps for the cost of one model load.
    """

    def __init__(self, settings: EmbeddingSettings, threads: int):

        model, max_seq_length, device = settings.model, settings.max_seq_length, settings.device
        self.model, self.batch_size, self.max_seq_length = model, settings.batch_size, max_seq_length
        self.backend, self.device = resolve_backend(settings.backend, device), device
        self.cache = EmbeddingCache(
            settings.cache_dir, encoder_identity(model, self.backend, max_seq_length, device)
        )
        self._load = lambda: load_encoder(
            model, self.backend, max_seq_length, settings.model_cache_dir, threads, device
        )
        self.loaded = None
        self.computed = self.cached = 0

    def encoder(self):
        """The model, loaded on first use."""
        if self.loaded is None:
            self.loaded = self._load()
        return self.loaded

    def embed(self, records: list[dict], embeddings: str, what: str) -> None:
        """Write ``records``' embeddings (and which are over the window) to ``embeddings``; log
        how many were embedded now and how many came from the cache, naming them ``what``.
        """
        self.embed_dumps([(records, embeddings, what)])

    def embed_dumps(self, dumps: list[tuple[list[dict], str, str]]) -> None:
        """``embed`` for each of ``dumps`` (records, embeddings file, name), with one encode call
        for all their texts missing from the cache: embedding many small dumps costs what
        embedding their papers as one dump does.
        """
        texts = [[embedding_text(p) for p in records] for records, _, _ in dumps]
        flat = [text for dump_texts in texts for text in dump_texts]
        rebuilt = self.cache.rebuilt
        vectors, missing = embed_missing(flat, self.cache, self.encoder, batch_size=self.batch_size)
        counted: set[str] = set()
        start = 0
        for (records, embeddings, what), dump_texts in zip(dumps, texts, strict=True):
            # Embedded now for this dump: its texts that were missing and no earlier dump had.
            computed = {text for text in dump_texts if text in missing} - counted
            counted |= computed
            self._write(records, dump_texts, vectors[start : start + len(records)], embeddings, what)
            start += len(records)
            self.computed += len(computed)
            self.cached += len(records) - len(computed)
            _LOG.info(
                "%s: %d embedded now (%s on %s), %d from the cache",
                what,
                len(computed),
                self.backend,
                self.device,
                len(records) - len(computed),
            )
        if self.cache.rebuilt > rebuilt:
            _LOG.warning("%d corrupt cache entries were embedded again", self.cache.rebuilt - rebuilt)

    def _write(
        self, records: list[dict], texts: list[str], vectors: np.ndarray, embeddings: str, what: str
    ) -> None:

        truncated, window = self.cache.window_verdicts(texts), window_size(self.model, self.max_seq_length)
        if truncated is None:
            truncated, window = over_window(texts, self.model, self.max_seq_length)
            if truncated is not None:
                self.cache.keep_window_verdicts(texts, truncated)
        counted = {} if truncated is None else {"truncated": truncated}
        if not len(records):
            vectors = np.zeros((0, self.cache.dimension or 0), dtype=np.float32)
        storage.write_arrays(
            embeddings, ids=np.array([p["id"] for p in records], dtype=str), vectors=vectors, **counted
        )
        if truncated is not None and truncated.any():
            _LOG.warning(
                "%s: %d of %d abstracts are longer than the model's window and are embedded from their "
                "first %d tokens",
                what,
                truncated.sum(),
                len(records),
                window,
            )


def embed(
    papers: list[str], embeddings: list[str], summaries: list[str], knobs: dict, threads: int = 1
) -> None:
    """Embed every dump embedded whole (each at most ``embedding.shard_size`` papers) in one job,
    which loads the model once, and only when some abstract is not in the cache: each dump's
    ``papers`` give its own ``embeddings`` file and ``summaries`` record (see ``embedding_summary``).
    ``knobs``: ``papertopics.settings.EmbeddingSettings``'s fields.
    """
    started = time.perf_counter()
    settings = EmbeddingSettings(**knobs)
    embedder = _Embedder(settings, threads)
    embedder.embed_dumps(
        [
            (storage.read_jsonl(dump_papers), dump_embeddings, f"dump {Path(dump_embeddings).stem}")
            for dump_papers, dump_embeddings in zip(papers, embeddings, strict=True)
        ]
    )
    for dump_embeddings, summary in zip(embeddings, summaries, strict=True):
        embedding_summary(dump_embeddings, summary, settings.model, settings.max_seq_length)
    _LOG.info(
        "%d dumps in one job: %d abstracts embedded now (%s on %s, model %s), %d from the cache, in %.1f s",
        len(papers),
        embedder.computed,
        embedder.backend,
        settings.device,
        "loaded once" if embedder.loaded is not None else "not loaded",
        embedder.cached,
        time.perf_counter() - started,
    )


def embed_gather(shards: list[str], embeddings: str, summary: str, knobs: dict) -> None:
    """A dump embedded in shards (one above ``embedding.shard_size`` papers): its ``shards``
    gathered into its embedding file, and its ``summary`` (see ``embedding_summary``).
    ``knobs``: ``papertopics.settings.EmbeddingSettings``' fields (the model's name and window are read).
    """
    settings = EmbeddingSettings(**knobs)
    gather_embedding_shards(shards, embeddings)
    embedding_summary(embeddings, summary, settings.model, settings.max_seq_length)


def embedding_summary(embeddings: str, summary: str, model: str, max_seq_length: int) -> None:
    """A dump's embedding ``summary``: its papers, the model's window, and the papers longer than
    the window (ids; null where they could not be counted), read by the report.
    """
    stored = storage.read_arrays(embeddings)
    location = resolve_model_location(model)
    storage.write_json(
        summary,
        {
            "papers": len(stored["ids"]),
            "window_tokens": effective_max_seq_length(location, max_seq_length),
            "over_window": stored["ids"][stored["truncated"]].tolist() if "truncated" in stored else None,
        },
    )


def gather_embedding_shards(shards: list[str], embeddings: str) -> None:
    """Concatenate a dump's shard embeddings, in shard order, into the dump's embedding file."""
    parts = [storage.read_arrays(path) for path in shards]
    filled = [part for part in parts if len(part["ids"])]
    ids = np.concatenate([part["ids"] for part in filled]) if filled else np.array([], dtype=str)
    vectors = (
        np.vstack([part["vectors"] for part in filled]).astype(np.float32)
        if filled
        else np.zeros((0, 0), np.float32)
    )
    counted = (
        {"truncated": np.concatenate([part["truncated"] for part in parts]).astype(bool)}
        if all("truncated" in part for part in parts)
        else {}
    )
    storage.write_arrays(embeddings, ids=ids, vectors=vectors, **counted)
    _LOG.info("gathered %d embeddings from %d shards", len(ids), len(parts))
