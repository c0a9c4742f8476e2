"""ONNX Runtime embedding backend: the sentence-transformers model exported once, offline.

The model's transformer is exported with torch's (TorchScript-based) ONNX exporter from the
local weights, optionally quantised to int8 (dynamic quantisation of the weights), and cached
per model and backend. Tokenisation uses the model folder's ``tokenizer.json`` through the
``tokenizers`` library; pooling (mean over tokens) and L2 normalisation follow the model's
sentence-transformers configuration, so the vectors match the torch backend's.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import tempfile
import warnings
from pathlib import Path

import numpy as np

from papertopics import storage
from papertopics.embed.models import model_fingerprint
from papertopics.errors import PipelineInputError

ONNX_BACKENDS = ("onnx", "onnx-int8")
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_PROGRESS_EVERY = 8  # batches between progress lines in the job log
_LOG = logging.getLogger(__name__)


def check_mean_pooling(location: str) -> None:
    """The ONNX backend reimplements the model's pooling; refuse models that do not mean-pool."""
    root = Path(location)
    modules_file = root / "modules.json"
    if not modules_file.is_file():
        raise PipelineInputError(
            f"embedding.backend onnx needs a local sentence-transformers model folder; {location} has no modules.json."
        )
    modules = storage.read_json(modules_file)
    types = [module["type"].rsplit(".", 1)[-1] for module in modules]
    pooling = next((m for m in modules if m["type"].endswith("Pooling")), None)
    settings = storage.read_json(root / pooling["path"] / "config.json") if pooling else {}
    if types != ["Transformer", "Pooling", "Normalize"] or not settings.get("pooling_mode_mean_tokens"):
        raise PipelineInputError(
            f"embedding.backend onnx supports models made of Transformer → mean Pooling → Normalize; "
            f"{location} has {types} (pooling {settings}); use embedding.backend: torch."
        )


@contextlib.contextmanager
def _exclusive(lock_path: Path):
    """Hold an exclusive lock, so that concurrent jobs export the model once."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def export_onnx(location: str, destination: Path, quantise: bool) -> None:
    """Export the transformer of the model at ``location`` to ONNX (int8 weights if ``quantise``)."""
    # The model's libraries load only in the jobs that embed.
    import torch
    from transformers import AutoModel

    transformer = AutoModel.from_pretrained(location, local_files_only=True).eval()

    class LastHiddenState(torch.nn.Module):
        """Keyword-only call into the model, so that the exporter's positional inputs map by name."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    example = tuple(torch.ones((2, 8), dtype=torch.long) for _ in _INPUTS)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")}
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=destination.parent) as scratch:
        exported = Path(scratch) / "fp32.onnx"
        # The tracer warns about shape checks it freezes; BERT's hold for every batch shape.
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                LastHiddenState(transformer),
                example,
                str(exported),
                input_names=list(_INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
        with storage.atomic_path(destination) as temporary:
            if quantise:
                # The model's libraries load only in the jobs that embed.
                from onnxruntime.quantization import QuantType, quantize_dynamic

                # Per-channel scales keep the vectors close to fp32's; per-tensor scales drift much further.
                # The quantiser logs every tensor at INFO on the root logger; keep the job log readable.
                root = logging.getLogger()
                level = root.level
                root.setLevel(logging.WARNING)
                try:
                    quantize_dynamic(
                        str(exported), str(temporary), weight_type=QuantType.QInt8, per_channel=True
                    )
                finally:
                    root.setLevel(level)
            else:
                exported.replace(temporary)
    _LOG.info("exported %s to %s", location, destination)


def cached_onnx_model(location: str, backend: str, model_cache_dir: str) -> Path:
    """The ONNX file for this model and backend, exported on first use."""
    target = (
        Path(model_cache_dir) / f"{Path(location).name}-{model_fingerprint(location)}" / f"{backend}.onnx"
    )
    if target.is_file():
        return target
    with _exclusive(target.with_suffix(".lock")):
        if not target.is_file():  # another job may have exported it while we waited
            _LOG.info("exporting %s to ONNX (%s), once; cached at %s", location, backend, target)
            export_onnx(location, target, quantise=backend == "onnx-int8")
    return target


class OnnxEncoder:
    """Mean-pooled, L2-normalised sentence embeddings from an ONNX export of the model."""

    def __init__(self, location: str, backend: str, max_seq_length: int, model_cache_dir: str, threads: int):
        """``max_seq_length``: the effective limit (see ``papertopics.embed.models.effective_max_seq_length``)."""
        # The model's libraries load only in the jobs that embed.
        import onnxruntime
        from tokenizers import Tokenizer

        check_mean_pooling(location)
        self.max_seq_length = max_seq_length
        self.tokenizer = Tokenizer.from_file(str(Path(location) / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.max_seq_length)
        padding = self.tokenizer.padding or {"pad_id": 0, "pad_token": "[PAD]"}
        self.tokenizer.enable_padding(pad_id=padding["pad_id"], pad_token=padding["pad_token"])
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        # Idle worker threads sleep instead of spinning: spinning only burns CPU that parallel jobs need.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        model_file = cached_onnx_model(location, backend, model_cache_dir)
        self.session = onnxruntime.InferenceSession(
            str(model_file), options, providers=["CPUExecutionProvider"]
        )
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.dimension = json.loads((Path(location) / "config.json").read_text())["hidden_size"]

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """The texts' unit-length embeddings, one row each, in ``batch_size`` batches of similar length."""
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        # Batches of similar length waste little work on padding (as sentence-transformers does).
        order = np.argsort([-len(text) for text in texts], kind="stable")
        for start in range(0, len(texts), batch_size):
            rows = order[start : start + batch_size]
            encodings = self.tokenizer.encode_batch([texts[i] for i in rows])
            feeds = {
                "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
            }
            (hidden,) = self.session.run(None, {k: v for k, v in feeds.items() if k in self.input_names})
            mask = feeds["attention_mask"][:, :, None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
            vectors[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            if (start // batch_size + 1) % _PROGRESS_EVERY == 0 or start + batch_size >= len(texts):
                _LOG.info("embedded %d/%d abstracts", min(start + batch_size, len(texts)), len(texts))
        return vectors
