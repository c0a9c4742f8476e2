"""The embedding backends' speed (``make bench-quality``), measured interleaved (each backend in
turn, repeated) in one fresh process, so that all see the same machine load. Updates the speed part
of results.json and rewrites results.md.

    PYTHONPATH=workflow python -m bench.backend_speed --docs 128 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import time
from pathlib import Path

from bench import results
from bench.backend_quality import BACKENDS
from bench.common import (
    IJCAI,
    in_fresh_process,
    make_workdir,
    output_arguments,
    read_corpus,
    workdir_config,
)


def interleaved_seconds(
    texts: str,
    model: str,
    max_seq_length: int,
    model_cache_dir: str,
    batch_size: int,
    rounds: int,
    backends: list[str],
) -> dict:
    """Per backend, the median seconds to encode the ``texts`` (a JSON list in a file), the
    backends taking turns for ``rounds`` rounds.
    """
    from papertopics.embed.encoders import load_encoder

    documents = json.loads(Path(texts).read_text())
    encoders = {b: load_encoder(model, b, max_seq_length, model_cache_dir, 2) for b in backends}
    seconds = {b: [] for b in backends}
    for _ in range(rounds):
        for backend, encoder in encoders.items():
            start = time.perf_counter()
            encoder.encode(documents, batch_size=batch_size)
            seconds[backend].append(time.perf_counter() - start)
    return {b: statistics.median(s) for b, s in seconds.items()}


def bench_speed(backends: list[str], docs: int, rounds: int, scratch: Path) -> dict:
    records = read_corpus(IJCAI)[:docs]
    workdir = scratch / "speed"
    shutil.rmtree(workdir, ignore_errors=True)
    make_workdir(workdir, {})
    embedding = workdir_config(workdir)["embedding"]
    texts_path = workdir / "texts.json"
    texts_path.write_text(json.dumps([r["abstract"] for r in records]))
    median = in_fresh_process(
        interleaved_seconds,
        texts=str(texts_path),
        model=embedding["model"],
        max_seq_length=embedding["max_seq_length"],
        model_cache_dir=str(workdir / embedding["model_cache_dir"]),
        batch_size=embedding["batch_size"],
        rounds=rounds,
        backends=backends,
    )["result"]
    return {
        "docs": len(records),
        "rounds": rounds,
        "backends": {
            b: {
                "median_seconds": round(median[b], 3),
                "docs_per_second": round(len(records) / median[b], 1),
                "speedup_over_torch": round(median["torch"] / median[b], 2) if "torch" in median else None,
            }
            for b in backends
        },
        "load_average_at_end": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backends", nargs="+", default=BACKENDS)
    parser.add_argument("--docs", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    output_arguments(parser)
    args = parser.parse_args()
    result = bench_speed(args.backends, args.docs, args.rounds, args.scratch)
    results.save(lambda stored: stored.__setitem__("speed", result), args.results)


if __name__ == "__main__":
    main()
