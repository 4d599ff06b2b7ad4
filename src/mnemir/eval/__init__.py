"""Evaluation suites: quality on held-out data, baselines and reports."""
