"""The benchmarks: one module a benchmark, each run as `python -m bench.<module>` (see the Makefile's
bench targets and docs/benchmarks.md); the working folder and workflow runs they share with the
tests are tests/workflow_support.py's, which bench.common imports.
"""
