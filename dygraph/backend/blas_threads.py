"""One BLAS thread for a block of tiny matrix products (the recurrent layers' time steps).

A product like [32, 128] @ [128, 512] is split across OpenBLAS's threads, and the threads
meet again after every call: for hundreds of such products in a row the hand-offs cost
about what the split saves, and on a busy machine a worker thread that is not running
stalls the caller outright. The LSTM benchmark's step with 2 threads in its time loops,
against one (2026-11-25, 2 cores): 0.92x on the idle machine (the GRU's too), 2.2x with
one other busy process (an earlier version of the loops: 2.1x idle, 3-9x loaded). One
thread gives up those 8% for a step time that a neighbour cannot double.
`single_blas_thread()` runs a block with one
thread and restores the previous count afterwards. It acts on the OpenBLAS that NumPy
loaded (found through the process's mapped libraries, Linux) and does nothing where there
is none (Accelerate, MKL, other systems).
"""

import contextlib
import ctypes
import threading

__all__ = ["single_blas_thread", "openblas_libraries"]

# (set, get) symbol pairs: NumPy's wheels bundle scipy-openblas (64-bit ints, renamed
# symbols); system OpenBLAS builds export the plain names.
_SYMBOLS = (
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
)
_funcs = None
_LOCK = threading.Lock()
_STATE = {"depth": 0, "saved": 1}


def _openblas_paths():
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return []
    paths = {line.split()[-1] for line in lines if "openblas" in line.lower()}
    return sorted(p for p in paths if p.startswith("/"))


def openblas_libraries():
    """The OpenBLAS libraries NumPy loaded, opened with ctypes (none where there are none).

    Example:
        >>> all(hasattr(lib, "_name") for lib in openblas_libraries())
        True
    """
    import numpy  # noqa: F401 - NumPy loads its BLAS on import; we look for that library

    for path in _openblas_paths():
        try:
            yield ctypes.CDLL(path)
        except OSError:
            continue


def _find():
    for lib in openblas_libraries():
        for set_name, get_name in _SYMBOLS:
            setter, getter = getattr(lib, set_name, None), getattr(lib, get_name, None)
            if setter is not None and getter is not None:
                setter.argtypes, getter.restype = [ctypes.c_int], ctypes.c_int
                return setter, getter
    return ()


@contextlib.contextmanager
def single_blas_thread():
    """Run the block with one OpenBLAS thread (no-op without OpenBLAS).

    The count is process-wide: blocks that overlap (nested, or in several Python threads)
    share one saved count, which the last block to leave restores.

    Example:
        >>> import numpy as np
        >>> with single_blas_thread():
        ...     np.ones((2, 3)) @ np.ones((3, 2))
        array([[3., 3.],
               [3., 3.]])
    """
    global _funcs
    if _funcs is None:
        _funcs = _find()
    if not _funcs:
        yield
        return
    setter, getter = _funcs
    with _LOCK:
        if not _STATE["depth"]:
            _STATE["saved"] = getter()
            if _STATE["saved"] != 1:
                setter(1)
        _STATE["depth"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _STATE["depth"] -= 1
            if not _STATE["depth"] and _STATE["saved"] != 1:
                setter(_STATE["saved"])
