"""Placeholder: the pooling ops of dygraph.nn.functional are written here."""

__all__ = []
NONDIFF = set()
