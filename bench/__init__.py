"""Evaluation, outside the product: LoCoMo, ablations, and the benchmarks (``python -m bench.X``)."""
