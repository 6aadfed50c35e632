"""Where a static program runs and how its parts are labelled (Paddle's
paddle.static.cpu_places, cuda_places, device_guard, name_scope).

A program runs on the Executor's place as a whole: `device_guard` checks its device name
and leaves the ops where the Executor runs them, and `name_scope` groups ops under a
label that only Paddle's graph drawings show; both are accepted so that programs written
for Paddle build unchanged.

Example:
    >>> cpu_places(2)
    [CPUPlace, CPUPlace]
    >>> with device_guard('cpu'), name_scope('encoder'):
    ...     pass
"""

import contextlib
import os
import re
import warnings

from dygraph.framework.place import CPUPlace, CUDAPlace, device_count, is_compiled_with_cuda

__all__ = ["cpu_places", "cuda_places", "device_guard", "name_scope"]

_DEVICE = re.compile(r"^(cpu|gpu|xpu|dcu)(:\d+)?$|^[a-z_]+:\d+$")


def cpu_places(device_count=None):  # noqa: A002 - Paddle's argument name
    """`device_count` CPUPlaces (default: the CPU_NUM environment variable, else 1).

    Example:
        >>> cpu_places(1)
        [CPUPlace]
    """
    if device_count is None:
        value = os.environ.get("CPU_NUM")
        if value is None:
            warnings.warn("cpu_places: CPU_NUM is not set; using 1 CPUPlace", UserWarning,
                          stacklevel=2)
        device_count = int(value or 1)
    return [CPUPlace() for _ in range(int(device_count))]


def cuda_places(device_ids=None):
    """A CUDAPlace per visible GPU (or per id in `device_ids`); AssertionError without a
    GPU build (CuPy).

    Example:
        >>> import dygraph
        >>> if not dygraph.is_compiled_with_cuda():
        ...     cuda_places()
        Traceback (most recent call last):
        ...
        AssertionError: Not compiled with CUDA
    """
    if not is_compiled_with_cuda():
        raise AssertionError("Not compiled with CUDA")
    if device_ids is None:
        selected = os.environ.get("FLAGS_selected_gpus")
        device_ids = ([int(d) for d in selected.split(",")] if selected else
                      range(device_count()))
    elif not isinstance(device_ids, (list, tuple)):
        device_ids = [device_ids]
    return [CUDAPlace(int(d)) for d in device_ids]


@contextlib.contextmanager
def device_guard(device=None):
    """Ops built inside would run on `device` ('cpu', 'gpu', 'gpu:0', ...) in Paddle; here
    the program runs on the Executor's place (see the module docstring).

    Example:
        >>> with device_guard('gpu:0'):
        ...     pass
    """
    if device not in (None, "") and not (isinstance(device, str) and _DEVICE.match(device)):
        raise ValueError(f"The Attr(device) should be 'cpu', 'xpu', 'dcu', 'gpu' or custom "
                         f"device, and it can also be empty string or None when there is no "
                         f"need to specify device. But received {device}")
    yield


@contextlib.contextmanager
def name_scope(prefix=None):
    """Label the ops built inside with `prefix` for Paddle's graph drawings (see the
    module docstring).

    Example:
        >>> with name_scope('block'):
        ...     with name_scope('conv'):
        ...         pass
    """
    if not prefix:
        raise AssertionError("namescope prefix can not be empty.")
    if not isinstance(prefix, str):
        raise TypeError(f"name_scope: prefix must be a str, got {type(prefix).__name__}")
    yield
