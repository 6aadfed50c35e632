"""Placeholder: the loss layers of dygraph.nn are written here."""

__all__ = []
