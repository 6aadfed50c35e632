"""The machinery of DyGraph's cuDNN graphs (backend/cudnn/): the frontend module loaded
once, a handle per thread and device on CuPy's current stream, a workspace per device and
stream, and the built graphs kept by key, each built once and run on the device pointers of
CuPy arrays; the layouts (channels-first or channels-last) the operands are described in.

Running a built graph neither synchronizes nor allocates outside CuPy, so a step can be
captured into a CUDA graph once its graphs are built. Which execution plans may run is
the package docstring's subject (`_NOTES_OFF`).

Example:
    >>> with use_cudnn(False):
    ...     enabled()
    False
"""

import contextlib
import logging
import os
import threading
import warnings

import numpy as np

from dygraph.backend import dtype_name

__all__ = ["enabled", "use_cudnn", "plan_count", "declined"]

_LOG = logging.getLogger("dygraph.cudnn")

_ON = [os.environ.get("DYGRAPH_CUDNN", "1").strip().lower() not in ("0", "false", "off", "no")]
# The frontend module once imported and checked, and whether that was tried: [module, tried].
_LIB = [None, False]
_IO_TYPES = {"float32": "FLOAT", "float16": "HALF", "bfloat16": "BFLOAT16"}
# Numerical notes of the execution plans never run (the module docstring says why);
# DYGRAPH_CUDNN_WINOGRAD=1 lets the FFT and Winograd engines run.
_FAST_ALGORITHMS = ("FFT", "WINOGRAD", "WINOGRAD_TILE_4x4", "WINOGRAD_TILE_6x6",
                    "WINOGRAD_TILE_13x13")
_NOTES_OFF = ("DOWN_CONVERT_INPUTS", "REDUCED_PRECISION_REDUCTION") + (
    () if os.environ.get("DYGRAPH_CUDNN_WINOGRAD", "0").strip().lower() in
    ("1", "true", "on", "yes") else _FAST_ALGORITHMS)

_PLANS = {}        # graph key -> _Plan, or the reason (a str) cuDNN declined it
_WORKSPACES = {}   # (device, stream) -> CuPy uint8 array
_THREAD = threading.local()  # .handles: device -> [cuDNN handle, stream it runs on]


@contextlib.contextmanager
def use_cudnn(flag):
    """Run the block with cuDNN on (True) or off (False; the CuPy paths run).

    Example:
        >>> with use_cudnn(False):
        ...     enabled()
        False
    """
    previous = _ON[0]
    _ON[0] = bool(flag)
    try:
        yield
    finally:
        _ON[0] = previous


def _library():
    """The cuDNN frontend module, or None (warned about once) where it or cuDNN is missing."""
    if not _LIB[1]:
        _LIB[1] = True
        try:
            import cudnn

            cudnn.backend_version()  # raises where the cuDNN library itself is not found
            _LIB[0] = cudnn
        except ImportError as exc:
            warnings.warn(f"dygraph: cuDNN is not used on the GPU, the Python package "
                          f"nvidia-cudnn-frontend did not import ({exc}); convolutions and "
                          f"batch norm run on CuPy (pip install nvidia-cudnn-frontend)",
                          RuntimeWarning, stacklevel=3)
        except Exception as exc:  # the frontend without the library: any error it raises
            warnings.warn(f"dygraph: cuDNN is not used on the GPU, nvidia-cudnn-frontend did "
                          f"not find the cuDNN library ({exc}); convolutions and batch norm "
                          f"run on CuPy (pip install nvidia-cudnn-cu12, or -cu13 for CUDA 13)",
                          RuntimeWarning, stacklevel=3)
    return _LIB[0]


def enabled():
    """Whether cuDNN runs GPU convs and batch norm: on, and its frontend and library load.

    Example:
        >>> with use_cudnn(False):
        ...     enabled()
        False
    """
    return _ON[0] and _library() is not None


def plan_count():
    """How many cuDNN graphs are built and kept (the declined ones not counted).

    Example:
        >>> plan_count() >= 0
        True
    """
    return sum(1 for plan in _PLANS.values() if isinstance(plan, _Plan))


def declined():
    """{graph key: the reason cuDNN declined it}; a key starts with the operation's name.

    Example:
        >>> isinstance(declined(), dict)
        True
    """
    return {key: plan for key, plan in _PLANS.items() if isinstance(plan, str)}


class _Plan:
    """A built graph: the uid of each operand by name, the pointers it binds itself (host
    scalars, scratch buffers, kept alive in `keep`) and the workspace bytes it needs."""

    __slots__ = ("graph", "uids", "fixed", "workspace", "keep")

    def __init__(self, graph, tensors, workspace, fixed=None, keep=()):
        self.graph, self.workspace, self.keep = graph, workspace, keep
        self.uids = {name: t.get_uid() for name, t in tensors.items()}
        self.fixed = {self.uids[name]: ptr for name, ptr in (fixed or {}).items()}


def _handle(lib, xp, device):
    """This thread's cuDNN handle on `device`, set to run on CuPy's current stream."""
    handles = getattr(_THREAD, "handles", None)
    if handles is None:
        handles = _THREAD.handles = {}
    entry = handles.get(device)
    if entry is None:
        entry = handles[device] = [lib.create_handle(), None]
    stream = xp.cuda.get_current_stream().ptr
    if entry[1] != stream:  # cudnnSetStream costs driver queries: only on a change
        lib.set_stream(handle=entry[0], stream=stream)
        entry[1] = stream
    return entry[0], stream


def _workspace(xp, device, stream, nbytes):
    """The address of at least `nbytes` of workspace for `stream` (0 for none)."""
    if nbytes <= 0:
        return 0
    key = (device, stream)
    buf = _WORKSPACES.get(key)
    if buf is None or buf.nbytes < nbytes:
        buf = _WORKSPACES[key] = xp.empty(nbytes, dtype=np.uint8)
    return buf.data.ptr


def _ready(*arrays):
    """(frontend, cuDNN data type) for a call on these non-empty arrays of one dtype, or None
    when cuDNN is off or does not take their dtype."""
    name = _IO_TYPES.get(dtype_name(arrays[0].dtype))
    if (name is None or any(a.dtype != arrays[0].dtype or a.size == 0 for a in arrays)
            or not _ON[0] or _library() is None):
        return None
    return _LIB[0], getattr(_LIB[0].data_type, name)


def _nhwc(a):
    """The (N, *S, C) view of an (N, C, *S) array."""
    return a.transpose((0,) + tuple(range(2, a.ndim)) + (1,))


def _channels_last(a):
    """Whether (N, C, *S) array `a` is dense channels-last (and not also channels-first)."""
    return a.ndim > 2 and not a.flags.c_contiguous and _nhwc(a).flags.c_contiguous


def _dense(xp, a, last):
    """`a` (N, C, *S) dense channels-last (`last`) or channels-first; a copy only if not."""
    if not last:
        # (the flag first: a CuPy call costs microseconds even where it copies nothing)
        return a if a.flags.c_contiguous else xp.ascontiguousarray(a)
    rows = _nhwc(a)
    if not rows.flags.c_contiguous:
        rows = xp.ascontiguousarray(rows)
    return rows.transpose((0, a.ndim - 1) + tuple(range(1, a.ndim - 1)))


def _empty(xp, shape, dtype, last):
    """A new (N, C, *S) array, laid out channels-last when `last`."""
    if not last:
        return xp.empty(shape, dtype)
    rows = xp.empty((shape[0],) + tuple(shape[2:]) + (shape[1],), dtype)
    return rows.transpose((0, len(shape) - 1) + tuple(range(1, len(shape) - 1)))


def _describe(shape, last):
    """cuDNN's (dims, strides) of a dense (N, C, *S) array: at least two spatial dims (unit
    ones in front, so 1-D data is N, C, 1, L), strides in elements for the layout."""
    dims = list(shape[:2]) + [1] * max(0, 4 - len(shape)) + list(shape[2:])
    order = [1] + list(range(len(dims) - 1, 1, -1)) + [0] if last else \
        list(range(len(dims) - 1, -1, -1))  # axes from the fastest-varying
    strides, step = [0] * len(dims), 1
    for axis in order:
        strides[axis] = step
        step *= dims[axis]
    return dims, strides


def _plan(key, build):
    """The built graph of `key` (built by build() the first time), or None if declined."""
    plan = _PLANS.get(key)
    if plan is None:
        try:
            plan = build()
        except Exception as exc:  # cuDNN declines the graph (cudnnGraphNotSupportedError)
            plan = f"{type(exc).__name__}: {exc}".strip()
            _LOG.debug("cuDNN declined %s: %s", key, plan)
        _PLANS[key] = plan
    return plan if isinstance(plan, _Plan) else None


def _new_graph(lib, xp, device, io):
    handle, _ = _handle(lib, xp, device)
    return lib.pygraph(io_data_type=io, intermediate_data_type=lib.data_type.FLOAT,
                       compute_data_type=lib.data_type.FLOAT, handle=handle)


def _stats(c, ndim):
    """(dims, strides) of per-channel float32 statistics (1, C, 1, ...) of ndim-D data."""
    rest = [1] * (max(ndim, 4) - 2)
    return [1, c] + rest, [c, 1] + rest


def _tensor(graph, name, desc, dtype):
    return graph.tensor(name=name, dim=desc[0], stride=desc[1], data_type=dtype)


def _output(tensor, desc, dtype):
    tensor.set_output(True).set_dim(desc[0]).set_stride(desc[1])
    tensor.set_data_type(dtype)


def _build(lib, graph, io, tensors, fixed=None, keep=(), tf32=False):
    """Validate the graph, pick its execution plan (the notes filter of the module
    docstring; `tf32`: float32 data may take TF32 engines) and build it."""
    graph.validate()
    graph.build_operation_graph()
    graph.create_execution_plans([lib.heur_mode.A, lib.heur_mode.FALLBACK])
    notes = _NOTES_OFF + (("TENSOR_CORE",) if io == lib.data_type.FLOAT and not tf32 else ())
    graph.deselect_numeric_notes([getattr(lib.numerical_note, n) for n in notes])
    graph.check_support()
    graph.build_plans()
    return _Plan(graph, tensors, graph.get_workspace_size(), fixed, keep)


def _run(xp, key, plan, device, arrays):
    """Run the plan on CuPy arrays by operand name; False (and the key declined from now
    on) where cuDNN raised."""
    lib = _LIB[0]
    try:
        handle, stream = _handle(lib, xp, device)
        pack = dict(plan.fixed)
        for name, a in arrays.items():
            pack[plan.uids[name]] = a.data.ptr
        plan.graph.execute(pack, _workspace(xp, device, stream, plan.workspace),
                           handle=handle)
    except Exception as exc:  # an execution failure: the CuPy path takes this call
        _PLANS[key] = f"execute: {type(exc).__name__}: {exc}"
        _LOG.warning("cuDNN failed to run %s (%s); the CuPy path runs it", key, exc)
        return False
    return True
