"""GPU memory statistics: the peaks of the bytes that tensors hold (allocated) and that
CuPy's pool holds (reserved, in use or cached), and their resets.

The counts are CuPy's default memory pool's; the peaks are kept by the allocator that the
backend installs when it imports CuPy (dygraph/backend/gpu_memory.py). Without a usable
GPU each function raises a ValueError, as Paddle's CPU build does.

Example:
    >>> max_memory_allocated('gpu:0') >= 0  # doctest: +SKIP
    True
"""

from dygraph.backend.gpu_memory import TRACKER
from dygraph.device.selection import gpu_of

__all__ = ["max_memory_allocated", "max_memory_reserved", "reset_max_memory_allocated",
           "reset_max_memory_reserved", "reset_peak_memory_stats", "ipc_collect"]


def _pool_counts(cp, device_id):
    with cp.cuda.Device(device_id):
        pool = cp.get_default_memory_pool()
        return int(pool.used_bytes()), int(pool.total_bytes())


def _peaks(device, op):
    cp, device_id = gpu_of(device, op)
    used, reserved = _pool_counts(cp, device_id)
    peak_used, peak_reserved = TRACKER.peaks(device_id)
    # A pool that grew before the tracker saw it (another allocator) still bounds the peak.
    return max(peak_used, used), max(peak_reserved, reserved)


def max_memory_allocated(device=None):
    """The most bytes tensors have held at once on GPU `device` (None: the current
    device), since the start or the last reset.

    Example:
        >>> max_memory_allocated(0) >= 0  # doctest: +SKIP
        True
    """
    return _peaks(device, "max_memory_allocated")[0]


def max_memory_reserved(device=None):
    """The most bytes CuPy's pool has held at once on GPU `device` (in use or cached),
    since the start or the last reset.

    Example:
        >>> max_memory_reserved(0) >= max_memory_allocated(0)  # doctest: +SKIP
        True
    """
    return _peaks(device, "max_memory_reserved")[1]


def reset_max_memory_allocated(device=None):
    """Start the allocated peak of GPU `device` again from the bytes held now.

    Example:
        >>> reset_max_memory_allocated(0)  # doctest: +SKIP
    """
    cp, device_id = gpu_of(device, "reset_max_memory_allocated")
    TRACKER.reset(device_id, used=_pool_counts(cp, device_id)[0])


def reset_max_memory_reserved(device=None):
    """Start the reserved peak of GPU `device` again from the bytes the pool holds now.

    Example:
        >>> reset_max_memory_reserved(0)  # doctest: +SKIP
    """
    cp, device_id = gpu_of(device, "reset_max_memory_reserved")
    TRACKER.reset(device_id, reserved=_pool_counts(cp, device_id)[1])


def reset_peak_memory_stats(device=None):
    """Reset both peaks (allocated and reserved) of GPU `device`.

    Example:
        >>> reset_peak_memory_stats(0)  # doctest: +SKIP
    """
    cp, device_id = gpu_of(device, "reset_peak_memory_stats")
    used, reserved = _pool_counts(cp, device_id)
    TRACKER.reset(device_id, used=used, reserved=reserved)


def ipc_collect():
    """Free GPU memory that other processes received through CUDA IPC and have released.
    DyGraph shares no GPU memory between processes, so with a GPU there is nothing to
    free; without one this raises a RuntimeError, as Paddle's CPU build does.

    Example:
        >>> ipc_collect()  # doctest: +SKIP
    """
    from dygraph.framework.place import is_compiled_with_cuda

    if not is_compiled_with_cuda():
        raise RuntimeError("dygraph.device.ipc_collect needs a GPU, and DyGraph sees none "
                           "here (GPUs need CuPy: pip install 'dygraph-framework[gpu]')")
