"""Elementwise arithmetic and the ops composed from it."""
