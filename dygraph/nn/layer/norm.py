"""Placeholder: the norm layers of dygraph.nn are written here."""

__all__ = []
