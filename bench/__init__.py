"""Benchmarks: `python -m bench` prints one table of measured ratios (docs/performance.md)."""
