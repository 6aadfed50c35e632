"""Docstring examples run in a scratch directory: some save checkpoints to relative paths."""

import importlib.util

import pytest

# The compiled kernels import Numba at the top: without it (the `fast` extra) their
# modules are not collected, and the ops run their NumPy paths.
collect_ignore_glob = [] if importlib.util.find_spec("numba") else ["dygraph/kernels/*.py"]


@pytest.fixture(autouse=True)
def _doctests_in_a_scratch_dir(request, tmp_path, monkeypatch):
    if isinstance(request.node, pytest.DoctestItem):
        monkeypatch.chdir(tmp_path)
