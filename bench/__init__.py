"""Benchmarks with their targets: run each from the repository root as `python -m bench.<name>`.

Their shared machinery (databases, the app under gunicorn, the HTTP client) is `bench.harness`;
the targets and last figures are in bench/README.md.
"""
