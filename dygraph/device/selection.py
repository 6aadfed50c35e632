"""Naming and switching devices: what 'gpu:1', 0, None or a Place mean to the functions
of `paddle.device`, and the `device` and `device_guard` context managers.

Paddle's rules: None is the current device; an int is that index of the current device's
kind ('cpu' accepts only 0); 'cuda' is another spelling of 'gpu'. A GPU named where none
can be used (no CuPy, or no GPU) is a ValueError, as in Paddle's CPU build.

Example:
    >>> import dygraph
    >>> with device('cpu'):
    ...     dygraph.device.get_device()
    'cpu'
"""

from dygraph.framework.place import (
    CPUPlace,
    CUDAPlace,
    _parse_device,
    get_device,
    is_compiled_with_cuda,
    set_device,
)

__all__ = ["device", "device_guard", "to_place", "gpu_of"]


def to_place(dev, op="paddle.device"):
    """The Place that `dev` (None, an int, a string or a Place) names.

    Example:
        >>> to_place(None), to_place(0), to_place('cpu')
        (CPUPlace, CPUPlace, CPUPlace)
    """
    if dev is None:
        return _parse_device(get_device())
    if isinstance(dev, bool) or not isinstance(dev, (int, str, CPUPlace, CUDAPlace)):
        raise TypeError(f"{op}: a device is a Place, an int or a string such as 'gpu:0', "
                        f"got {type(dev).__name__}")
    if isinstance(dev, int):
        if dev < 0:
            raise ValueError(f"{op}: device index must be non-negative, got {dev}")
        if get_device() == "cpu":
            if dev != 0:
                raise ValueError(f"{op}: CPU device only supports index 0, got {dev}")
            return CPUPlace()
        return CUDAPlace(dev)
    place = _parse_device(dev.strip() if isinstance(dev, str) else dev)
    if isinstance(place, CUDAPlace) and not is_compiled_with_cuda():
        raise ValueError(f"{op}: the device should not be {dev!r}, since DyGraph sees no GPU "
                         "here (GPUs need CuPy: pip install 'dygraph-framework[gpu]')")
    return place


def gpu_of(dev, op):
    """(cupy, GPU index) for a device that must be a usable GPU; a ValueError naming `op`
    otherwise (Paddle's CPU build answers its GPU-only functions with a ValueError).

    Example:
        >>> gpu_of('cpu', 'max_memory_allocated')  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: dygraph.device.max_memory_allocated needs a GPU, ...
    """
    place = None
    if is_compiled_with_cuda():
        place = to_place(dev, f"dygraph.device.{op}")
    if not isinstance(place, CUDAPlace):
        where = "the device is the CPU" if place is not None else "DyGraph sees no GPU here"
        raise ValueError(f"dygraph.device.{op} needs a GPU, but {where} (GPUs need CuPy: "
                         "pip install 'dygraph-framework[gpu]')")
    from dygraph.backend import require_cupy

    return require_cupy(place), place.device_id


class device:
    """A context manager that makes `device` (a Place, an int or a string) the current
    device inside the block and restores the previous one after it.

    Example:
        >>> import dygraph
        >>> with device('cpu'):
        ...     dygraph.ones([1]).place
        CPUPlace
    """

    def __init__(self, device=None):
        self.place = to_place(device, "dygraph.device.device")
        self._previous = []

    def __enter__(self):
        self._previous.append(get_device())
        set_device(self.place)

    def __exit__(self, *exc):
        set_device(self._previous.pop())
        return False


class device_guard:
    """Like `device`, for a string or a Place only (Paddle's device_guard).

    Example:
        >>> import dygraph
        >>> with device_guard(dygraph.CPUPlace()):
        ...     dygraph.device.get_device()
        'cpu'
    """

    def __init__(self, device):
        if not isinstance(device, (str, CPUPlace, CUDAPlace)):
            raise ValueError("dygraph.device.device_guard: 'device' must be a string or a "
                             f"Place, but got {type(device)}")
        self._target = to_place(device, "dygraph.device.device_guard")
        self._previous = []

    def __enter__(self):
        self._previous.append(get_device())
        set_device(self._target)

    def __exit__(self, *exc):
        set_device(self._previous.pop())
