"""Reductions, statistics and scans over axes."""
