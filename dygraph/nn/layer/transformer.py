"""Placeholder: the transformer layers of dygraph.nn are written here."""

__all__ = []
