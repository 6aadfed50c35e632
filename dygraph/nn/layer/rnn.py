"""Placeholder: the rnn layers of dygraph.nn are written here."""

__all__ = []
