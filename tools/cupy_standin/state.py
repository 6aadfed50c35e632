"""The stand-in's shared state: the capture in progress, the pinned-memory allocator a
copy from the host goes through, CuPy's messages, and the counts of calls and host reads.

Example:
    >>> _capturing()
    False
"""

import collections

__all__ = ["stats", "calls_by_name", "observers", "count_call"]

D2H = "the current stream is capturing, so D2H transfers are disallowed"
CUBLAS = "calling cuBLAS API during stream capture is currently unsupported"
CUSOLVER = "calling cuSOLVER API during stream capture is currently unsupported"

stats = {"calls": 0, "host_reads": 0, "graph_calls": 0, "bfloat16_products": 0}
# Calls by the name of what was called (function, method or kernel), for finding the
# calls a step could do without.
calls_by_name = collections.Counter()
# Functions called with the name of each call into a function, method or kernel (the calls
# calls_by_name counts), for attributing calls to what made them (benchmarks/gpu_calls.py).
observers = []


def count_call(name):
    """Count one call into CuPy (a function, method, kernel, view or graph launch)."""
    stats["calls"] += 1
    calls_by_name[name] += 1
    for observe in observers:
        observe(name)


class _State:
    capture = None  # the records of the capture in progress, or None
    # (array, its values before the capture wrote it): a real capture runs no kernel, so
    # the writes the stand-in made while capturing are undone at its end
    saved = []
    pinned = None  # the pinned-memory allocator a copy from the host goes through


_STATE = _State()


def _capturing():
    return _STATE.capture is not None


def _d2h():
    """A read of device values on the host: a synchronisation with the GPU (counted), which
    a capture refuses."""
    if _capturing():
        raise RuntimeError(D2H)
    stats["host_reads"] += 1


def _h2d(nbytes):
    """A copy from the host: it takes pinned memory, as CuPy's asynchronous copies do."""
    _STATE.pinned(max(int(nbytes), 1))
    if _capturing():
        raise RuntimeError("cudaErrorStreamCaptureUnsupported: operation not permitted "
                           "when stream is capturing")


def _default_pinned(size):
    return size


_STATE.pinned = _default_pinned
