"""Tests that the README and docs/ run as written."""
