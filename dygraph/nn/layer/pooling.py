"""Placeholder: the pooling layers of dygraph.nn are written here."""

__all__ = []
