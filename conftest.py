"""Docstring examples run in a scratch directory: some save checkpoints to relative paths."""

import pytest

# The compiled kernels import Numba at the top: without it (the `fast` extra), or with one
# that does not import, their modules are not collected, and the ops run their NumPy paths.
try:
    import numba  # noqa: F401

    collect_ignore_glob = []
except ImportError:
    collect_ignore_glob = ["dygraph/kernels/numba/*.py"]


@pytest.fixture(autouse=True)
def _doctests_in_a_scratch_dir(request, tmp_path, monkeypatch):
    if isinstance(request.node, pytest.DoctestItem):
        monkeypatch.chdir(tmp_path)
