"""Placeholder: the layers layers of dygraph.nn are written here."""

__all__ = []
