"""Sentence embeddings from a local model, never from the network: the backends (torch, torch in
bfloat16, ONNX Runtime), each an ``Encoder``, and the choice between them. Where the model is
found lives in ``papertopics.embed.models``.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from papertopics import storage
from papertopics.embed.cache import EmbeddingCache, embed_missing
from papertopics.embed.models import (
    effective_max_seq_length,
    model_fingerprint,
    model_not_here,
    resolve_model_location,
)
from papertopics.embed.onnx_backend import OnnxEncoder
from papertopics.errors import PipelineInputError

BACKENDS = ("torch", "torch-bf16", "onnx", "onnx-int8")
AUTO_BACKEND = "auto"
_LOG = logging.getLogger(__name__)


def embedding_text(paper: dict) -> str:
    """What a paper is embedded as: its title (when the dump has one) and cleaned abstract."""
    title = paper.get("title")
    return f"{title}. {paper['text']}" if title else paper["text"]


_CPU_INFO = "/proc/cpuinfo"
# The CPU flags (as Linux names them) of the instructions torch's bfloat16 probes look for.
_BF16_FLAGS = {"avx512_bf16", "amx_tile"}


def cpu_flags(cpu_info: str = _CPU_INFO) -> set[str] | None:
    """The first CPU's flags as the Linux kernel lists them (only those it has enabled), or None
    where there is no such list (another OS, or a CPU whose list has another name).
    """
    try:
        with open(cpu_info, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                name, _, value = line.partition(":")
                if name.strip() == "flags":
                    return set(value.split())
    except OSError:
        return None
    return None


def cpu_has_bf16(cpu_info: str = _CPU_INFO) -> bool:
    """Whether this CPU multiplies bfloat16 natively (AVX512-BF16 or AMX); elsewhere bf16 is emulated, slowly.

    Read from the kernel's CPU flags where it lists them: asking torch means importing it,
    seconds that a run finding every abstract in the embedding cache would spend on nothing else.
    """
    flags = cpu_flags(cpu_info)
    if flags is not None:
        return bool(flags & _BF16_FLAGS)
    # The model's libraries load only in the jobs that embed.
    import torch

    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(torch.cpu, probe, lambda: False)() for probe in probes)


def resolve_backend(backend: str, device: str = "cpu") -> str:
    """``auto``: torch on a GPU; on a CPU, torch-bf16 where it has bf16 instructions (much faster
    than fp32 there, with nearly the same vectors), else torch.

    Not onnx-int8: in the backends' benchmark it was no faster than torch fp32, and its clusters'
    agreement with the labels fell by more than the 0.01 NMI a default may lose (bench/results.md).
    """
    if backend != AUTO_BACKEND:
        return backend
    if device != "cpu":
        return "torch"
    return "torch-bf16" if cpu_has_bf16() else "torch"


def device_problem(backend: str, device: str) -> str | None:
    """Why ``embedding.backend`` cannot run on ``embedding.device``, or None."""
    if device != "cpu" and not resolve_backend(backend, device).startswith("torch"):
        return (
            f"embedding.device {device} needs a torch backend; embedding.backend {backend} runs on "
            "the CPU only. Set embedding.backend to auto or torch, or embedding.device to cpu."
        )
    return None


def encoder_identity(model: str, backend: str, max_seq_length: int, device: str = "cpu") -> dict:
    """Everything besides the text that determines an embedding (the embedding cache's key);
    ``backend`` as resolved, so that ``auto`` shares entries with the backend it picked. A GPU
    computes slightly different vectors, so it is part of the key (the CPU is not).
    """
    location = resolve_model_location(model)
    identity = {
        "model": model,
        "files": model_fingerprint(location),
        "backend": backend,
        "max_seq_length": effective_max_seq_length(location, max_seq_length),
    }
    if device != "cpu":
        identity["device"] = device
    return identity


@runtime_checkable
class Encoder(Protocol):
    """What every backend offers: one unit-length float32 vector per text, in the texts' order."""

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """The texts' unit-length embeddings, one row each, in ``batch_size`` batches."""
        ...


class TorchEncoder:
    """sentence-transformers on torch: fp32 (the reference backend), or with its matrix products
    in bfloat16 (``bf16``; weights, sums and the output stay fp32, so vectors keep cosine ~1 to fp32).
    """

    def __init__(
        self, model: str, max_seq_length: int, threads: int, bf16: bool = False, device: str = "cpu"
    ):
        # The model's libraries load only in the jobs that embed.
        import torch

        torch.set_num_threads(max(1, threads))
        self.model = load_model(model, max_seq_length, device)
        self.bf16 = bf16
        self.device = device

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """The texts' unit-length embeddings, with bfloat16 matrix products when ``bf16``."""
        # The model's libraries load only in the jobs that embed.
        import torch

        with torch.autocast(self.device, dtype=torch.bfloat16, enabled=self.bf16):
            return embed_texts(self.model, texts, batch_size=batch_size)


def load_encoder(
    model: str, backend: str, max_seq_length: int, model_cache_dir: str, threads: int, device: str = "cpu"
) -> Encoder:
    """The ``Encoder`` of the chosen backend (``auto`` resolved for ``device``)."""
    backend = resolve_backend(backend, device)
    if backend not in BACKENDS:
        raise PipelineInputError(f"embedding.backend {backend!r} is not one of {', '.join(BACKENDS)}.")
    problem = device_problem(backend, device)
    if problem:
        raise PipelineInputError(problem)
    if backend.startswith("torch"):
        return TorchEncoder(model, max_seq_length, threads, bf16=backend == "torch-bf16", device=device)

    location = resolve_model_location(model)
    if not Path(location).is_dir():
        raise PipelineInputError(
            f"embedding.backend {backend} needs a local model folder; {model!r} is not one "
            "(use the packaged model, a folder, or embedding.backend: torch)."
        )
    return OnnxEncoder(
        location, backend, effective_max_seq_length(location, max_seq_length), model_cache_dir, threads
    )


def load_model(model: str, max_seq_length: int, device: str = "cpu"):
    """Load a sentence-transformers model with every hub download switched off."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    # The model's libraries load only in the jobs that embed.
    from sentence_transformers import SentenceTransformer

    location = resolve_model_location(model)
    try:
        encoder = SentenceTransformer(location, local_files_only=True, device=device)
    except Exception as error:  # the library raises several types for "not found offline"
        raise PipelineInputError(model_not_here(model, f"({error})")) from None
    try:
        encoder.max_seq_length = min(max_seq_length, encoder.max_seq_length or max_seq_length)
    except AttributeError:
        # A model with no token window to set (a static-embedding model, model2vec's format)
        # embeds every token of a text: there is nothing to cut.
        _LOG.info("%s has no token limit to set: every token of an abstract is embedded", model)
    if device == "cpu":
        # The model's libraries load only in the jobs that embed.
        import torch

        if any(parameter.dtype in (torch.float16, torch.bfloat16) for parameter in encoder.parameters()):
            # Half-precision weights (as static-embedding models ship) on a CPU: computed in float32,
            # which every CPU kernel and torch's bfloat16 autocast accept.
            encoder.float()
    return encoder


class EncoderOnDemand:
    """``load_model``'s model, loaded at its first ``encode`` of a text its cache lacks.

    The topics stage embeds a few phrases to choose its labels' second phrases (and the guide's
    names, when given). Unit vectors (``normalize_embeddings=True``, as the labels ask) are kept in
    the run's embedding cache (``cache_dir``), under a key of their own: a rerun of the topics
    stage whose phrases are all there, like a placed update whose topics keep their labels, skips
    the 4 s of importing sentence-transformers and torch and loading the model. Without a cache
    folder, or for vectors not normalised, the model is loaded at the first ``encode``.
    """

    def __init__(self, model: str, max_seq_length: int, cache_dir: str | None = None):
        self.model = model
        self.max_seq_length = max_seq_length
        self._cache = (
            None
            if cache_dir is None
            # load_model's vectors are those of the torch backend on the CPU, normalised here.
            else EmbeddingCache(
                cache_dir, {**encoder_identity(model, "torch", max_seq_length), "normalized": True}
            )
        )
        self._loaded = None

    def _encoder(self):
        if self._loaded is None:
            self._loaded = load_model(self.model, self.max_seq_length)
        return self._loaded

    def encode(self, texts: list[str], normalize_embeddings: bool = False, **kwargs):
        """The model's ``encode``; unit vectors come from the cache where it has them."""
        if self._cache is None or not normalize_embeddings or kwargs:
            return self._encoder().encode(texts, normalize_embeddings=normalize_embeddings, **kwargs)
        vectors, _ = embed_missing(
            list(texts), self._cache, lambda: _Normalized(self._encoder()), batch_size=32
        )
        return vectors


class _Normalized:
    """A model whose ``encode`` gives unit vectors (what ``embed_missing`` asks an encoder for)."""

    def __init__(self, encoder):
        self._encoder = encoder

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        return self._encoder.encode(texts, batch_size=batch_size, normalize_embeddings=True)


def embed_texts(encoder, texts: list[str], batch_size: int, progress_every: int = 8) -> np.ndarray:
    """L2-normalised float32 embeddings, logging progress every few batches."""
    chunk = batch_size * progress_every
    parts = []
    for start in range(0, len(texts), chunk):
        parts.append(
            encoder.encode(
                texts[start : start + chunk],
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            ).astype(np.float32)
        )
        _LOG.info("embedded %d/%d abstracts", min(start + chunk, len(texts)), len(texts))
    if not parts:
        return np.zeros((0, encoder.get_sentence_embedding_dimension()), dtype=np.float32)
    return np.vstack(parts)


def window_size(model: str, max_seq_length: int) -> int:
    """How many of the model's tokens it reads of a text (``max_seq_length`` capped at its own)."""
    return effective_max_seq_length(resolve_model_location(model), max_seq_length)


def over_window(texts: list[str], model: str, max_seq_length: int) -> tuple[np.ndarray | None, int]:
    """Which texts are longer, in the model's own tokens, than the window it reads (the model
    embeds those from their first tokens), and the window's size; None where the model folder has
    no ``tokenizer.json`` to count with (a name left to the Hugging Face cache).
    """
    location = resolve_model_location(model)
    window = window_size(model, max_seq_length)
    tokenizer_file = Path(location) / "tokenizer.json"
    if not tokenizer_file.is_file():
        return None, window
    # The model's libraries load only in the jobs that embed.
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    # With the special tokens, as sentence-transformers counts them against max_seq_length.
    lengths = [len(encoding.ids) for encoding in tokenizer.encode_batch_fast(texts)]
    return np.array(lengths, dtype=np.int64) > window, window


def gather_embeddings(ids: list[str], embedding_files: list[dict[str, np.ndarray]]) -> np.ndarray:
    """Stack per-dump embeddings into one matrix in the order of ``ids``."""
    row_of = {}
    for stored in embedding_files:
        for identifier, vector in zip(stored["ids"].tolist(), stored["vectors"], strict=True):
            row_of.setdefault(identifier, vector)
    missing = [identifier for identifier in ids if identifier not in row_of]
    if missing:
        raise PipelineInputError(f"no embedding for {len(missing)} papers (e.g. {missing[0]}); rerun embed.")
    return np.vstack([row_of[identifier] for identifier in ids]).astype(np.float32)


def corpus_embeddings(papers_path: str, embedding_paths: list[str]) -> tuple[list[dict], np.ndarray]:
    """The corpus's papers (``papers.jsonl``) and their embeddings, gathered from the per-dump
    embedding files in the corpus's order.
    """
    papers = storage.read_jsonl(papers_path)
    stored = [storage.read_arrays(path) for path in embedding_paths]
    return papers, gather_embeddings([p["id"] for p in papers], stored)
