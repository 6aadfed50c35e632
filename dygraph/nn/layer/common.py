"""Placeholder: the common layers of dygraph.nn are written here."""

__all__ = []
