"""Placeholder: the conv layers of dygraph.nn are written here."""

__all__ = []
