"""A stand-in for CuPy made of NumPy, to run DyGraph's GPU code paths where no GPU is.

A machine without a GPU cannot run CuPy, yet much of what a GPU run adds to a CPU one is
host-side logic that can be checked anywhere: which array module an op computes with,
that a step never reads a device value on the host nor copies a host value in while a
CUDA graph is being captured, that a captured graph replays the step right, and how many
CuPy calls a step makes (each costs microseconds of host time, so calls per step are what
eager speed on a GPU turns on). `installed()` puts this stand-in where DyGraph looks for
CuPy; device arrays are then NumPy arrays of a type of their own (`ndarray`), and the
rules CuPy enforces are enforced, with CuPy's messages:

- device and host arrays do not mix in a ufunc (TypeError); a device value reaches the
  host only when asked (`.get()`, `asnumpy`, `float()`, `.item()`, ...); integer array
  indices out of range wrap around (`take`, `a[idx]`) instead of raising;
- while a stream captures (`Stream.begin_capture`): reading a device value on the host,
  copying host data to the device (through the pinned-memory allocator, which DyGraph's
  capture replaces by one that refuses), products through `@` or `ndarray.dot`, cuSOLVER
  (`linalg`), random numbers (their state would be frozen into the graph: the stand-in
  refuses what CuPy would let repeat at every replay) and data-dependent shapes
  (`nonzero`, boolean masks, `unique`) raise. `matmul`, `dot`, `tensordot` and
  `einsum` of one or two operands are allowed: DyGraph reroutes those to cuBLAS while
  capturing (dygraph/backend/capture_products.py);
- `end_capture()` gives a graph whose `launch()` runs every recorded call again on the
  same arrays, as a CUDA graph replays its kernels on the same addresses.

`stats["calls"]` counts the calls into the module and its arrays (a graph launch is one),
`stats["host_reads"]` the reads of device values on the host (each waits for the GPU),
`stats["graph_calls"]` the recorded calls that graph launches ran (a GPU's kernels and
copies inside graphs), `stats["bfloat16_products"]` the float32 products made for
bfloat16 operands (which a GPU runs on Tensor Cores: dygraph/backend/product_precision.py).
What it cannot tell: speed; what CUDA C computes (an `ElementwiseKernel` runs the NumPy
statement of that kernel, from dygraph/kernels/cuda/references.py or, for a generated
chain, dygraph/kernels/cuda/elementwise_chains.py; `cupyx.scipy.special` is SciPy's);
CuPy functions that NumPy has and CuPy lacks. The GPU run (tests/gpu) stays the judge;
this one runs in CI.

`installed(cudnn=True)` also puts a stand-in for NVIDIA's cuDNN frontend in place
(`cudnn_frontend.py`): convolutions and batch norm then take DyGraph's cuDNN path, each
graph run one call, as on a GPU with cuDNN.

Example:
    >>> cp = module()
    >>> a = cp.arange(3.0)
    >>> type(a).__name__, float(a.sum()), cp.get_array_module(a) is cp
    ('ndarray', 3.0, True)
"""


import contextlib
import sys

from tools.cupy_standin import cudnn_frontend
from tools.cupy_standin.arrays import ndarray
from tools.cupy_standin.namespace import cupyx_modules, module
from tools.cupy_standin.state import _STATE, _default_pinned, calls_by_name, observers, stats

__all__ = ["module", "installed", "stats", "calls_by_name", "observers", "ndarray"]


def _no_handle(cupy):
    pass


@contextlib.contextmanager
def installed(cudnn=False):
    """The stand-in as DyGraph's CuPy (and `import cupy`) inside the block; cuDNN off, or
    with `cudnn` the frontend's stand-in as DyGraph's cuDNN (and `import cudnn`).
    DyGraph's caches of device values are emptied on the way out.

    Example:
        >>> import dygraph
        >>> with installed():
        ...     x = dygraph.to_tensor([1.0, 2.0], place=dygraph.CUDAPlace(0))
        ...     type(x._data).__name__, float((x * 2).sum())
        ('ndarray', 6.0)
    """
    from dygraph import backend
    from dygraph.backend import capture_products, device_random
    from dygraph.backend.cudnn import graphs as cudnn_graphs
    from dygraph.backend.cudnn import normalization as cudnn_normalization
    from dygraph.kernels.cuda import registry
    from dygraph.ops.unary import special

    cp = module()
    saved = backend._cupy, sys.modules.get("cupy"), capture_products.prepare
    extras = cupyx_modules()
    if cudnn:
        extras["cudnn"] = cudnn_frontend.module()
    saved_extras = {name: sys.modules.get(name) for name in extras}
    saved_cudnn = list(cudnn_graphs._LIB)
    cudnn_graphs._LIB[:] = [extras.get("cudnn"), True]
    backend._cupy = cp
    sys.modules["cupy"] = cp
    sys.modules.update(extras)
    # No cuBLAS handle to make: the stand-in's own products stand for the rerouted ones.
    capture_products.prepare = _no_handle
    try:
        with cudnn_graphs.use_cudnn(bool(cudnn)):
            yield cp
    finally:
        backend._cupy = saved[0]
        if saved[1] is None:
            sys.modules.pop("cupy", None)
        else:
            sys.modules["cupy"] = saved[1]
        capture_products.prepare = saved[2]
        for name, value in saved_extras.items():
            if value is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = value
        cudnn_graphs._LIB[:] = saved_cudnn
        for cache in (cudnn_graphs._PLANS, cudnn_graphs._WORKSPACES,
                      cudnn_normalization._CONSTANTS, vars(cudnn_graphs._THREAD)):
            cache.clear()
        special._MODULES.pop(cp, None)
        backend._CONSTANTS.clear()
        device_random._STATES.clear()
        registry._KERNELS.clear()
        _STATE.capture, _STATE.saved = None, []
        _STATE.pinned = _default_pinned
