"""Placeholder filled by the activation family work."""

__all__ = []
NONDIFF = set()
