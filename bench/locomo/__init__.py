"""The LoCoMo retrieval benchmark: dataset, ingest, presets, scoring, runner, report."""
