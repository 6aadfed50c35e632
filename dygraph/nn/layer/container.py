"""Placeholder: the container layers of dygraph.nn are written here."""

__all__ = []
