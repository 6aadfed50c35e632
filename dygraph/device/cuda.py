"""`paddle.device.cuda`: GPU queries, answered by CuPy.

Without CuPy or a GPU, `device_count()` is 0; `synchronize`, `empty_cache` and the
memory counts raise a RuntimeError that says how to install CuPy, and the names shared
with `paddle.device` (peaks, properties, streams) answer as they do there.

Example:
    >>> from dygraph.device import cuda
    >>> cuda.device_count() >= 0
    True
"""

from dygraph.backend import cuda_device_count
from dygraph.device.memory import (
    max_memory_allocated,
    max_memory_reserved,
    reset_max_memory_allocated,
    reset_max_memory_reserved,
)
from dygraph.device.properties import (
    get_device_capability,
    get_device_name,
    get_device_properties,
)
from dygraph.device.streams import Event, Stream, current_stream, stream_guard

__all__ = ["device_count", "synchronize", "empty_cache", "memory_allocated",
           "memory_reserved", "max_memory_allocated", "max_memory_reserved",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "get_device_name",
           "get_device_capability", "get_device_properties", "Stream", "Event",
           "current_stream", "stream_guard"]


def device_count():
    """The number of GPUs CuPy sees (0 without CuPy).

    Example:
        >>> isinstance(device_count(), int)
        True
    """
    return int(cuda_device_count())


def _device_id(device):
    """The GPU number of None (the current GPU, else 0), an int, 'gpu:N' or a CUDAPlace."""
    from dygraph.framework.place import CUDAPlace, _current, _parse_device

    if device is None:
        place = _current[0]
        return place.device_id if isinstance(place, CUDAPlace) else 0
    if isinstance(device, int):
        return device
    place = _parse_device(device)
    if not isinstance(place, CUDAPlace):
        raise ValueError(f"expected a GPU device, but got {device!r}")
    return place.device_id


def _cupy(device):
    from dygraph.backend import require_cupy
    from dygraph.framework.place import CUDAPlace

    device_id = _device_id(device)
    return require_cupy(CUDAPlace(device_id)), device_id


def synchronize(device=None):
    """Wait until GPU `device` has finished its queued work.

    Example:
        >>> synchronize()  # doctest: +SKIP
    """
    cp, device_id = _cupy(device)
    with cp.cuda.Device(device_id):
        cp.cuda.Device(device_id).synchronize()


def empty_cache():
    """Free the unused blocks of CuPy's memory pools.

    Example:
        >>> empty_cache()  # doctest: +SKIP
    """
    cp, _ = _cupy(None)
    cp.get_default_memory_pool().free_all_blocks()
    cp.get_default_pinned_memory_pool().free_all_blocks()


def memory_allocated(device=None):
    """Bytes of GPU memory held by tensors (CuPy's pool, in use).

    Example:
        >>> memory_allocated('gpu:0') >= 0  # doctest: +SKIP
        True
    """
    cp, device_id = _cupy(device)
    with cp.cuda.Device(device_id):
        return int(cp.get_default_memory_pool().used_bytes())


def memory_reserved(device=None):
    """Bytes of GPU memory reserved by CuPy's pool (in use or cached).

    Example:
        >>> memory_reserved('gpu:0') >= 0  # doctest: +SKIP
        True
    """
    cp, device_id = _cupy(device)
    with cp.cuda.Device(device_id):
        return int(cp.get_default_memory_pool().total_bytes())
