"""Sorting, searching, order statistics and membership."""
