"""The benchmarks: one module a benchmark, each run as `python -m bench.<module>` (see the Makefile's
bench targets and docs/benchmarks.md); what they share with the tests is in bench.common.
"""
