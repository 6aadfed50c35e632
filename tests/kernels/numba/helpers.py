"""What the tests of the compiled kernels (dygraph.kernels.numba) share: running a block on
the NumPy paths, to compare the two."""

import contextlib

from dygraph.backend import compiled


@contextlib.contextmanager
def kernels_off():
    """Run the block on the NumPy paths: the compiled kernels turned off, then back to
    their default."""
    compiled.set_enabled(False)
    try:
        yield
    finally:
        compiled.set_enabled(None)


def numpy_path(fn, *args, **kwargs):
    """fn(*args, **kwargs) with the compiled kernels off."""
    with kernels_off():
        return fn(*args, **kwargs)
