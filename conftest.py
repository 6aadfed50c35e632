"""Docstring examples run in a scratch directory: some save checkpoints to relative paths."""

import pytest


@pytest.fixture(autouse=True)
def _doctests_in_a_scratch_dir(request, tmp_path, monkeypatch):
    if isinstance(request.node, pytest.DoctestItem):
        monkeypatch.chdir(tmp_path)
