"""Run one benchmark function in this fresh process and print its result as JSON (its last line).

    python -m bench.child bench.pipeline:embedding_step '{"papers": "...", ...}'

bench.common.in_fresh_process starts it, so that what a function measures (seconds, peak RSS,
imports) is its own, not the benchmark's.
"""

from __future__ import annotations

import argparse
import importlib
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("function", help="module:function, e.g. bench.pipeline:embedding_step")
    parser.add_argument("arguments", help="the function's keyword arguments as a JSON object")
    args = parser.parse_args()
    module, name = args.function.split(":")
    result = getattr(importlib.import_module(module), name)(**json.loads(args.arguments))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
