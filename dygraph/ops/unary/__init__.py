"""Elementwise unary math: exp/log, trigonometry, rounding, erf, special functions."""
