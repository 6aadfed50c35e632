"""Placeholder filled by the search family work."""

__all__ = []
NONDIFF = set()
