"""Placeholder filled by the manipulation family work."""

__all__ = []
NONDIFF = set()
