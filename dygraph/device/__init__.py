"""`paddle.device`: choosing the device, and what the machine offers.

DyGraph runs on the CPU (NumPy) and, when CuPy sees a GPU, on NVIDIA GPUs ('gpu:N').
Other Paddle device kinds (XPU, IPU, custom devices, ROCm, CINN) do not exist here, so
their `is_compiled_with_*` answers are False and their lists are empty. Streams and
events are in `streams`, memory peaks in `memory`, GPU properties in `properties`, the
`device` and `device_guard` context managers in `selection`; `dygraph.device.cuda` holds
the GPU queries of `paddle.device.cuda`.

Example:
    >>> import dygraph
    >>> dygraph.device.get_device(), dygraph.device.get_all_device_type()[0]
    ('cpu', 'cpu')
"""

import importlib.util

from dygraph.device import cuda
from dygraph.device.memory import (
    ipc_collect,
    max_memory_allocated,
    max_memory_reserved,
    reset_max_memory_allocated,
    reset_max_memory_reserved,
    reset_peak_memory_stats,
)
from dygraph.device.properties import (
    get_device_capability,
    get_device_name,
    get_device_properties,
)
from dygraph.device.selection import device, device_guard
from dygraph.device.streams import (
    Event,
    Stream,
    StreamContext,
    current_stream,
    get_stream_from_external,
    is_current_stream_capturing,
    set_stream,
    stream_guard,
)
from dygraph.framework.place import get_device, is_compiled_with_cuda, set_device
from dygraph.framework.random import get_rng_state, set_rng_state
from dygraph.framework.random import seed as manual_seed

__all__ = ["cuda", "get_device", "set_device", "is_compiled_with_cuda", "device_count",
           "is_compiled_with_rocm", "is_compiled_with_xpu", "is_compiled_with_ipu",
           "is_compiled_with_cinn", "is_compiled_with_custom_device", "get_all_device_type",
           "get_all_custom_device_type", "get_available_device",
           "get_available_custom_device", "get_cudnn_version", "synchronize", "empty_cache",
           "is_available", "manual_seed", "get_rng_state", "set_rng_state",
           "is_compiled_with_distribute", "is_bf16_supported", "device", "device_guard",
           "Stream", "Event", "StreamContext", "stream_guard", "current_stream", "set_stream",
           "get_stream_from_external", "is_current_stream_capturing",
           "get_device_properties", "get_device_name", "get_device_capability",
           "max_memory_allocated", "max_memory_reserved", "reset_max_memory_allocated",
           "reset_max_memory_reserved", "reset_peak_memory_stats", "ipc_collect"]


def device_count():
    """The number of GPUs DyGraph can use (0 without CuPy).

    Example:
        >>> device_count() >= 0
        True
    """
    return cuda.device_count()


def is_available():
    """True when a GPU can be used.

    Example:
        >>> is_available() == (device_count() > 0)
        True
    """
    return device_count() > 0


def is_compiled_with_rocm():
    """False: DyGraph has no ROCm backend.

    Example:
        >>> is_compiled_with_rocm()
        False
    """
    return False


def is_compiled_with_xpu():
    """False: DyGraph has no Kunlun XPU backend.

    Example:
        >>> is_compiled_with_xpu()
        False
    """
    return False


def is_compiled_with_ipu():
    """False: DyGraph has no Graphcore IPU backend.

    Example:
        >>> is_compiled_with_ipu()
        False
    """
    return False


def is_compiled_with_cinn():
    """False: DyGraph has no CINN compiler.

    Example:
        >>> is_compiled_with_cinn()
        False
    """
    return False


def is_compiled_with_distribute():
    """True when multi-process training can run: mpi4py, which DyGraph's collectives use,
    is installed (pip install 'dygraph-framework[distributed]').

    Example:
        >>> isinstance(is_compiled_with_distribute(), bool)
        True
    """
    return importlib.util.find_spec("mpi4py") is not None


def is_bf16_supported(including_emulation=True):
    """Whether bfloat16 computes here. DyGraph has no native bfloat16 kernels (NumPy and
    CuPy lack the type), so with `including_emulation=False` the answer is False; with
    it, bfloat16 is emulated by rounding float32 (ml_dtypes), as `dygraph.amp` does, and
    the answer is `dygraph.amp.is_bfloat16_supported()`.

    Example:
        >>> is_bf16_supported(including_emulation=False)
        False
    """
    if not including_emulation:
        return False
    from dygraph.amp import is_bfloat16_supported

    return is_bfloat16_supported()


def is_compiled_with_custom_device(device_type):
    """False for every plug-in device type: DyGraph has none.

    Example:
        >>> is_compiled_with_custom_device('npu')
        False
    """
    return False


def get_all_device_type():
    """The device kinds DyGraph can use here: 'cpu', plus 'gpu' when a GPU is available.

    Example:
        >>> 'cpu' in get_all_device_type()
        True
    """
    return ["cpu"] + (["gpu"] if is_available() else [])


def get_all_custom_device_type():
    """Plug-in device kinds: none in DyGraph.

    Example:
        >>> get_all_custom_device_type()
        []
    """
    return []


def get_available_device():
    """Every usable device: 'cpu' and 'gpu:0' ... 'gpu:N-1'.

    Example:
        >>> get_available_device()[0]
        'cpu'
    """
    return ["cpu"] + [f"gpu:{i}" for i in range(device_count())]


def get_available_custom_device():
    """Usable plug-in devices: none in DyGraph.

    Example:
        >>> get_available_custom_device()
        []
    """
    return []


def get_cudnn_version():
    """cuDNN's version as an int (e.g. 8902) when CuPy has cuDNN, else None.

    Example:
        >>> get_cudnn_version() is None or get_cudnn_version() > 0
        True
    """
    if not is_available():
        return None
    try:
        from cupy.cuda import cudnn
    except ImportError:
        return None
    return int(cudnn.getVersion())


def synchronize(device=None):
    """Wait for the GPU's queued work; a no-op for the CPU, whose ops finish when they
    return.

    Example:
        >>> synchronize('cpu')
    """
    if device is not None and str(device).lower() == "cpu":
        return
    if device is None and get_device() == "cpu":
        return
    cuda.synchronize(device)


def empty_cache():
    """Return CuPy's cached GPU memory to the driver; nothing to do without a GPU.

    Example:
        >>> empty_cache()
    """
    if is_available():
        cuda.empty_cache()
