"""Placeholder: the activation layers of dygraph.nn are written here."""

__all__ = []
