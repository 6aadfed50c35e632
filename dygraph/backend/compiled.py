"""Compiled CPU kernels through Numba, an optional extra
(`pip install 'dygraph-framework[fast]'`).

NumPy has no kernel for some of what models run: a depthwise convolution, for one, goes
through einsum at a small fraction of BLAS's speed, and a recurrent cell's step is two dozen
NumPy calls on small arrays. Where such an op has a loop that a compiler vectorizes well,
`dygraph.kernels` holds it written for Numba, and the op asks here whether it may use it.
Without Numba (or with DYGRAPH_COMPILED=0, or `set_enabled(False)`) every op runs its NumPy
path, which stays the reference the compiled kernels are tested against.

Kernels compile on their first call per dtype (about a second each) and Numba caches the
machine code next to the module, so later processes load it in milliseconds. A Numba that
is installed but does not import (one built for another NumPy, say) turns the kernels off
with a warning instead of failing the op.

Example:
    >>> import numpy as np
    >>> kernel = kernels("depthwise2d", np, np.ones(2, np.float32))
    >>> kernel is None or hasattr(kernel, "forward")
    True
"""

import importlib
import importlib.util
import os
import warnings

import numpy as np

__all__ = ["available", "enabled", "set_enabled", "kernels", "flat_alike"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_STATE = {"override": None, "installed": None}


def available():
    """Whether Numba is installed (the kernels can be compiled at all).

    Example:
        >>> isinstance(available(), bool)
        True
    """
    if _STATE["installed"] is None:
        _STATE["installed"] = importlib.util.find_spec("numba") is not None
    return _STATE["installed"]


def set_enabled(flag):
    """Turn the compiled kernels on or off (None: the default, on unless DYGRAPH_COMPILED=0).

    Example:
        >>> set_enabled(False); enabled()
        False
        >>> set_enabled(None)
    """
    _STATE["override"] = None if flag is None else bool(flag)


def enabled():
    """Whether ops use the compiled kernels: Numba is installed and they are not turned off.

    Example:
        >>> set_enabled(False); enabled()
        False
        >>> set_enabled(None)
    """
    wanted = _STATE["override"]
    if wanted is None:
        wanted = os.environ.get("DYGRAPH_COMPILED", "1") != "0"
    return wanted and available()


def kernels(name, xp, *arrays):
    """The kernel module `dygraph.kernels.<name>` when it may run on `arrays`: compiled
    kernels are on, the arrays are NumPy's (not CuPy's), none is empty (the NumPy paths
    own the edge cases of empty batches) and all are float32 or all float64; else None,
    and the caller runs its NumPy path.

    Example:
        >>> import numpy as np
        >>> kernels("depthwise2d", np, np.ones(2, np.float16)) is None
        True
        >>> kernels("depthwise2d", np, np.ones((0, 3), np.float32)) is None
        True
    """
    if xp is not np or not enabled():
        return None
    dtype = arrays[0].dtype
    if dtype not in _FLOATS or any(a.dtype != dtype or a.size == 0 for a in arrays):
        return None
    try:
        return importlib.import_module(f"dygraph.kernels.numba.{name}")
    except ImportError as exc:  # Numba present but broken: the NumPy paths still work
        _STATE["installed"] = False
        warnings.warn(f"dygraph: compiled kernels turned off, Numba did not import ({exc}); "
                      "every op runs its NumPy path", RuntimeWarning, stacklevel=2)
        return None


def flat_alike(*arrays):
    """Whether element-wise kernels can walk these arrays side by side as flat buffers:
    one shape, all C-ordered.

    Example:
        >>> import numpy as np
        >>> flat_alike(np.ones(3), np.ones(3)), flat_alike(np.ones((2, 2)), np.ones((2, 2)).T)
        (True, False)
    """
    shape = arrays[0].shape
    return all(a.shape == shape and a.flags.c_contiguous for a in arrays)
