"""Array modules per place. This is the only code that imports CuPy.

Ops receive `xp` (numpy or cupy) and never import either themselves, so one op body runs on
both devices (Chainer's get_array_module habit).
"""

import numpy as np

from dygraph.framework.place import CPUPlace, CUDAPlace

_cupy = None


def _import_cupy():
    global _cupy
    if _cupy is None:
        try:
            import cupy
        except ImportError as exc:
            raise RuntimeError(
                "GPU tensors need CuPy: install it with `pip install cupy-cuda12x` "
                "(or the wheel matching your CUDA version)") from exc
        from dygraph.backend.gpu_memory import install

        install(cupy)  # peak memory statistics (paddle.device.max_memory_allocated)
        from dygraph.backend import capture_products

        capture_products.install(cupy, CAPTURE)  # products inside CUDA graph captures
        _cupy = cupy
    return _cupy


def cuda_device_count():
    try:
        cp = _import_cupy()
        return cp.cuda.runtime.getDeviceCount()
    except Exception:  # no CuPy, no driver or no device: all mean zero GPUs here
        return 0


def require_cupy(place):
    cp = _import_cupy()
    if place.device_id >= cp.cuda.runtime.getDeviceCount():
        raise ValueError(f"{place} does not exist: {cp.cuda.runtime.getDeviceCount()} GPU(s) seen")
    return cp


_DTYPE_NAMES = {}


def dtype_name(dtype):
    """NumPy's name of an array's dtype ('float32'), kept once made: NumPy builds
    `dtype.name` in Python at each read, and GPU code reads it per launch (kernel choices,
    cuDNN's graph keys).

    Example:
        >>> dtype_name(np.zeros(1, np.float32).dtype)
        'float32'
    """
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = dtype.name
    return name


def get_array_module(array):
    """numpy for host arrays, cupy for device arrays (every op on a GPU asks: a CuPy array
    is answered without CuPy's own, slower lookup).

    Example:
        >>> get_array_module(np.zeros(2)) is np
        True
    """
    if type(array) is np.ndarray or _cupy is None:
        return np
    if isinstance(array, _cupy.ndarray):
        return _cupy
    return _cupy.get_array_module(array)


def is_gpu_array(value):
    """Whether `value` is a CuPy array (False whenever CuPy was never imported).

    Example:
        >>> is_gpu_array(np.zeros(2))
        False
    """
    return _cupy is not None and isinstance(value, _cupy.ndarray)


def plan_array_module(feed, values):
    """The array module a program run works in: CuPy when a fed or stored value is a CuPy
    array, else NumPy (at once while CuPy was never imported).

    Example:
        >>> plan_array_module({"x": np.zeros(2)}, {}) is np
        True
    """
    if _cupy is None:
        return np
    ndarray = _cupy.ndarray
    for group in (feed, values):
        for value in group.values():
            if isinstance(value, ndarray):
                return _cupy
    return np


_CONSTANTS = {}  # (device, key) -> a device array made from the host once


def device_constant(xp, key, make):
    """`make()` (a NumPy array computed from shapes and attributes alone) as an array of
    `xp`, made once per `key` and GPU: ops' index tables and factors then cost no copy
    from the host per call, and can be captured into a CUDA graph (a copy from the host
    cannot). The array is shared: never write into it.

    Example:
        >>> device_constant(np, ("ones", 2), lambda: np.ones(2))
        array([1., 1.])
    """
    if xp is np:
        return make()
    slot = (xp.cuda.runtime.getDevice(), key)
    array = _CONSTANTS.get(slot)
    if array is None:
        array = _CONSTANTS[slot] = xp.asarray(make())
    return array


def min_max(array):
    """(min, max) of a non-empty array as Python numbers: two reductions, and on a GPU one
    read of both (each read from a device waits for it).

    Example:
        >>> min_max(np.array([3, -1, 2]))
        (-1, 3)
    """
    if type(array) is np.ndarray:
        return array.min().item(), array.max().item()
    xp = get_array_module(array)
    low, high = as_numpy(xp.stack([array.min(), array.max()])).tolist()
    return low, high


def attr_on(xp, op, name):
    """The array attribute `name` of `op` as an array of `xp`: itself on the CPU; on a GPU
    a device copy made once per op. A program keeps its ops' array attributes (labels,
    lengths, indices) on the host, and a copy at each run would cost a transfer, and
    cannot be held by a CUDA graph.

    Example:
        >>> class Op:
        ...     lengths = np.array([2, 3])
        >>> attr_on(np, Op(), "lengths")
        array([2, 3])
    """
    value = getattr(op, name)
    if xp is np or type(value) is not np.ndarray:
        return value
    kept = op.__dict__.setdefault("_attrs_on_device", {})
    entry = kept.get(name)
    if entry is None or entry[0] is not value:
        entry = kept[name] = (value, xp.asarray(value))
    return entry[1]


class _Capture:
    """Whether a CUDA graph capture is in progress (dygraph/jit/cuda_graph.py), and the
    checks its ops left for after each replay."""

    active = False
    checks = None


CAPTURE = _Capture()


def capturing():
    """Whether GPU work is being captured into a CUDA graph now: an op must then not read a
    device value on the host (it has none yet); it may leave a check for later instead.

    Example:
        >>> capturing()
        False
    """
    return CAPTURE.active


def defer_check(flag, error):
    """While capturing: after each run of the graph, raise error() when the device boolean
    `flag` is true (an op's check of values it cannot read while captured).

    Example:
        >>> import numpy as np
        >>> defer_check(np.bool_(False), ValueError)  # not capturing: checked now
    """
    if CAPTURE.active:
        CAPTURE.checks.append((flag, error))
    elif bool(flag):
        raise error()


def is_writeable(array):
    """Whether writing into `array` leaves every other array alone as far as its flags
    tell: NumPy's writeable flag (off for broadcast views); CuPy has no such flag, so a
    CuPy array with a zero stride over more than one element (a broadcast view) is not.

    Example:
        >>> is_writeable(np.broadcast_to(np.ones(1), (3,)))
        False
    """
    if type(array) is np.ndarray:
        return array.flags.writeable
    return all(stride != 0 or size < 2 for stride, size in zip(array.strides, array.shape))


def place_of(array):
    if type(array) is np.ndarray or not is_gpu_array(array):
        return _CPU
    return CUDAPlace(array.device.id)


def to_place(array, place):
    """Copy an array to `place` (no copy when it is already there)."""
    if isinstance(place, CUDAPlace):
        cp = require_cupy(place)
        with cp.cuda.Device(place.device_id):
            return cp.asarray(array)
    if is_gpu_array(array):
        return array.get()
    return np.asarray(array)


def as_numpy(array):
    """A host NumPy view or copy of any array."""
    if type(array) is np.ndarray:
        return array
    if is_gpu_array(array):
        return array.get()
    return np.asarray(array)


_CPU = CPUPlace()
