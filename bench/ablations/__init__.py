"""The ablation study: variants, baselines and their graphs, the learner script, run records, metrics."""
