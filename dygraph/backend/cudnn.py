"""cuDNN for convolutions and batch norm on CUDA GPUs, through NVIDIA's cuDNN frontend.

CuPy has no cuDNN binding: this module reaches cuDNN through the Python package of NVIDIA's
cuDNN frontend (`pip install nvidia-cudnn-frontend`; the cuDNN library itself comes from
`nvidia-cudnn-cu12` or `nvidia-cudnn-cu13`), version 1.26: its compiled graph takes raw
pointers, where 1.27 on wrap it in a Python layer that imports torch for norms, and 1.29 on
require the CUTLASS DSL. Its graph API describes an operation on tensors
given by dims and strides; a graph is built once per (device, dtype, shapes, layout,
geometry), kept in a dict, and run on the device pointers of CuPy arrays:

    conv_forward      y = conv(x, w)
    conv_data         the data gradient of conv (also the transposed conv)
    conv_filter       the filter gradient of conv
    batch_norm        batch norm on batch statistics: y, the mean and 1 / sqrt(var + eps)
                      (batch_variance: var from the latter)
    batch_norm_grads  its gradient, from those statistics

Each returns None where cuDNN does not run the call, and the caller's CuPy path runs: cuDNN
switched off, the frontend or the library not installed (one warning says which package to
install), a dtype other than float32, float16 or bfloat16, or a graph that cuDNN declines
(that answer is kept too, with its reason: `declined()`).

Execution: on CuPy's current stream (each thread's handle per device follows it), with one
workspace per device and stream, a CuPy array grown when a graph needs more; running a built
graph neither synchronizes nor allocates outside CuPy, so a step can be captured into a CUDA
graph once its graphs are built (building one, on the first call of a shape, may synchronize).
Operands are made dense first, channels-first or channels-last like the main input (a copy
only for other layouts), and outputs take that layout.

Numbers: every graph computes in float32 (float16 and bfloat16 data too). Execution plans
whose engines carry these cuDNN numerical notes are deselected: TENSOR_CORE for float32 data
(that is TF32, which cuDNN's engines otherwise use for float32 on Ampere and later; PyTorch
filters the same note), except for the convolutions of bfloat16 auto_cast ops, whose
operands are bfloat16 values that TF32 holds exactly (backend/product_precision.py), and
for every dtype DOWN_CONVERT_INPUTS, REDUCED_PRECISION_REDUCTION, FFT and the Winograd
notes. So results match the CuPy paths to float32 rounding. Engines that
reduce with atomics are allowed (cuDNN's NONDETERMINISTIC note, PyTorch's default too): their
gradients may differ between runs in the last bits.

Switching off: DYGRAPH_CUDNN=0 in the environment (read at import), or `use_cudnn(False)`.
DYGRAPH_CUDNN_WINOGRAD=1 (read at import) lets the FFT and Winograd engines run, as
PyTorch's defaults do: faster for some geometries (3x3 convolutions), with rounding beyond
float32's summation order (the transforms' own).

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

from dygraph.backend import dtype_name, product_precision

__all__ = ["enabled", "use_cudnn", "conv_forward", "conv_data", "conv_filter", "batch_norm",
           "batch_variance", "batch_norm_grads", "plan_count", "declined"]

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
_CONSTANTS = {}    # (device, channels, value) -> float32 CuPy array of that value
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


def _conv_args(geo, ndim):
    """pre/post padding, stride and dilation lists of a conv, 1-D ones with a unit height."""
    unit = [] if ndim > 3 else [(0, 0, 1, 1)]
    dims = unit + [(lo, hi, s, d) for (lo, hi), s, d in zip(geo.pads, geo.stride,
                                                              geo.dilation)]
    return {"pre_padding": [v[0] for v in dims], "post_padding": [v[1] for v in dims],
            "stride": [v[2] for v in dims], "dilation": [v[3] for v in dims]}


def _conv(xp, op, first, second, out_shape, geo):
    """Run conv graph `op` on operands (name, array) `first` (whose layout all take) and
    `second`, into a new array of out_shape; None where cuDNN does not run it."""
    ready = _ready(first[1], second[1])
    if ready is None:
        return None
    lib, io = ready
    device = xp.cuda.runtime.getDevice()
    last = _channels_last(first[1])
    # bfloat16 values in float32 arrays: TF32 engines multiply them exactly
    # (backend/product_precision.py), so they may run.
    tf32 = io == lib.data_type.FLOAT and product_precision.active()
    key = (op, device, dtype_name(first[1].dtype), first[1].shape, second[1].shape,
           tuple(out_shape), last, tuple(geo.stride), tuple(geo.dilation), tuple(geo.pads),
           tf32)

    def build():
        graph = _new_graph(lib, xp, device, io)
        a = _tensor(graph, first[0], _describe(first[1].shape, last), io)
        b = _tensor(graph, second[0], _describe(second[1].shape, last), io)
        args = dict(_conv_args(geo, len(out_shape)), compute_data_type=lib.data_type.FLOAT,
                    name=op)
        if op == "conv_fprop":
            out = graph.conv_fprop(image=a, weight=b, **args)
        elif op == "conv_dgrad":
            out = graph.conv_dgrad(loss=a, filter=b, **args)
        else:
            out = graph.conv_wgrad(image=a, loss=b, **args)
        _output(out, _describe(out_shape, last), io)
        return _build(lib, graph, io, {first[0]: a, second[0]: b, "out": out}, tf32=tf32)

    plan = _plan(key, build)
    if plan is None:
        return None
    out = _empty(xp, out_shape, first[1].dtype, last)
    arrays = {first[0]: _dense(xp, first[1], last), second[0]: _dense(xp, second[1], last),
              "out": out}
    return out if _run(xp, key, plan, device, arrays) else None


def conv_forward(xp, x, w, geo):
    """conv(x, w) of x (N, C, *S) and w (M, C/groups, *k) for Geometry `geo`
    (dygraph.ops.conv.im2col), or None where cuDNN does not run it.

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 1)
        >>> y = conv_forward(cupy, x, w, geo)  # doctest: +SKIP
    """
    out = (x.shape[0], w.shape[0]) + geo.out_sizes(x.shape[2:], w.shape[2:])
    return _conv(xp, "conv_fprop", ("x", x), ("w", w), out, geo)


def conv_data(xp, g, w, in_sizes, geo):
    """The data gradient of conv: g (N, M, *O) and w (M, C/groups, *k) -> (N, C, *in_sizes),
    or None where cuDNN does not run it.

    Example:
        >>> dx = conv_data(cupy, g, w, (32, 32), geo)  # doctest: +SKIP
    """
    out = (g.shape[0], w.shape[1] * geo.groups) + tuple(in_sizes)
    return _conv(xp, "conv_dgrad", ("dy", g), ("w", w), out, geo)


def conv_filter(xp, x, g, ksize, geo):
    """The filter gradient of conv: x (N, C, *S) and g (N, M, *O) -> (M, C/groups, *ksize),
    or None where cuDNN does not run it.

    Example:
        >>> dw = conv_filter(cupy, x, g, (3, 3), geo)  # doctest: +SKIP
    """
    out = (g.shape[1], x.shape[1] // geo.groups) + tuple(ksize)
    return _conv(xp, "conv_wgrad", ("x", x), ("dy", g), out, geo)


def _per_channel(xp, device, a, c, value):
    """(C,) float32 values of `a` (any shape of C values), or of `value` where a is None."""
    if a is not None:
        flat = a if a.ndim == 1 else a.reshape(-1)
        if flat.dtype == np.float32 and flat.flags.c_contiguous:
            return flat
        return xp.ascontiguousarray(flat, dtype=np.float32)
    key = (device, c, value)
    if key not in _CONSTANTS:
        _CONSTANTS[key] = xp.full(c, value, dtype=np.float32)
    return _CONSTANTS[key]


def _norm_call(xp, x, axis):
    """(frontend, data type, device, x as (N, C, *S), channels-last, x's dims and strides,
    the statistics' dims and strides) for a batch norm over channel `axis` (1 or the last),
    or None where cuDNN does not take it."""
    if x.ndim < 2 or x.ndim > 5 or axis not in (1, x.ndim - 1):
        return None
    ready = _ready(x)
    if ready is None:
        return None
    xl = x if axis == 1 else xp.moveaxis(x, axis, 1)
    last = _channels_last(xl)
    return ready + (xp.cuda.runtime.getDevice(), xl, last, _describe(xl.shape, last),
                    _stats(xl.shape[1], x.ndim))


def batch_norm(xp, x, w, b, eps, axis):
    """Batch norm of x over all axes but channel `axis` (1 or the last), with weight and bias
    (C values each, or None): (y, mean, rstd), the statistics float32 (C,), rstd being
    1 / sqrt(var + eps) (`batch_variance` gives var); or None where cuDNN does not run it.

    Example:
        >>> y, mean, rstd = batch_norm(cupy, x, w, b, 1e-5, 1)  # doctest: +SKIP
    """
    call = _norm_call(xp, x, axis)
    if call is None:
        return None
    lib, io, device, xl, last, desc, stats = call
    c, f32 = xl.shape[1], lib.data_type.FLOAT
    key = ("batchnorm", device, dtype_name(x.dtype), xl.shape, last, float(eps))

    def build():
        graph = _new_graph(lib, xp, device, io)
        ones = [1] * len(desc[0])
        t = {name: graph.tensor(name=name, dim=ones, stride=ones, data_type=f32,
                                is_pass_by_value=True) for name in ("eps", "momentum")}
        t["x"] = _tensor(graph, "x", desc, io)
        for name in ("scale", "bias", "running_mean", "running_var"):
            t[name] = _tensor(graph, name, stats, f32)
        names = ("y", "mean", "rstd", "next_mean", "next_var")
        t.update(zip(names, graph.batchnorm(
            input=t["x"], scale=t["scale"], bias=t["bias"], in_running_mean=t["running_mean"],
            in_running_var=t["running_var"], epsilon=t["eps"], momentum=t["momentum"],
            compute_data_type=f32, name="batchnorm")))
        _output(t["y"], desc, io)
        for name in names[1:]:
            _output(t[name], stats, f32)
        # eps and the momentum are host scalars. cuDNN's running statistics (unbiased, its
        # momentum) go to a scratch pair updated in place and never read: the op updates
        # Paddle's from the batch statistics.
        host = np.array([eps, 0.1], dtype=np.float32)
        scratch = xp.zeros(2 * c, dtype=np.float32)
        mean_ptr, var_ptr = scratch.data.ptr, scratch.data.ptr + 4 * c
        fixed = {"eps": host.ctypes.data, "momentum": host.ctypes.data + 4,
                 "running_mean": mean_ptr, "next_mean": mean_ptr,
                 "running_var": var_ptr, "next_var": var_ptr}
        return _build(lib, graph, io, t, fixed, (host, scratch))

    plan = _plan(key, build)
    if plan is None:
        return None
    y = _empty(xp, xl.shape, x.dtype, last)
    mean, rstd = xp.empty(c, np.float32), xp.empty(c, np.float32)
    arrays = {"x": _dense(xp, xl, last), "scale": _per_channel(xp, device, w, c, 1.0),
              "bias": _per_channel(xp, device, b, c, 0.0), "y": y, "mean": mean, "rstd": rstd}
    if not _run(xp, key, plan, device, arrays):
        return None
    return (y if axis == 1 else xp.moveaxis(y, 1, axis)), mean, rstd


def batch_variance(xp, rstd, eps):
    """The biased batch variance from batch_norm's rstd: cuDNN keeps none, and
    1 / rstd^2 - eps is it to float32 rounding for var >= eps (below, off by at most
    1.2e-7 * eps, where var hardly matters next to eps).

    Example:
        >>> import numpy as np
        >>> batch_variance(np, np.float32([0.5]), 0.0)
        array([4.], dtype=float32)
    """
    return xp.maximum(1.0 / (rstd * rstd) - np.float32(eps), 0)


def batch_norm_grads(xp, g, x, w, mean, rstd, axis):
    """The gradient of batch_norm from its statistics (float32 (C,) each): (dx, dw, db),
    dw and db float32 (C,) (dw also without a weight: then the weight is ones); or None
    where cuDNN does not run it.

    Example:
        >>> dx, dw, db = batch_norm_grads(cupy, g, x, w, mean, rstd, 1)  # doctest: +SKIP
    """
    call = _norm_call(xp, x, axis)
    if call is None or g.dtype != x.dtype:
        return None
    lib, io, device, xl, last, desc, stats = call
    c, f32 = xl.shape[1], lib.data_type.FLOAT
    key = ("batchnorm_backward", device, dtype_name(x.dtype), xl.shape, last)

    def build():
        graph = _new_graph(lib, xp, device, io)
        t = {name: _tensor(graph, name, desc, io) for name in ("dy", "x")}
        for name in ("scale", "mean", "rstd"):
            t[name] = _tensor(graph, name, stats, f32)
        t["dx"], t["dscale"], t["dbias"] = graph.batchnorm_backward(
            grad=t["dy"], input=t["x"], scale=t["scale"], mean=t["mean"],
            inv_variance=t["rstd"], compute_data_type=f32, name="batchnorm_backward")
        _output(t["dx"], desc, io)
        _output(t["dscale"], stats, f32)
        _output(t["dbias"], stats, f32)
        return _build(lib, graph, io, t)

    plan = _plan(key, build)
    if plan is None:
        return None
    dx = _empty(xp, xl.shape, x.dtype, last)
    dw, db = xp.empty(c, np.float32), xp.empty(c, np.float32)
    arrays = {"dy": _dense(xp, g if axis == 1 else xp.moveaxis(g, axis, 1), last),
              "x": _dense(xp, xl, last),
              "scale": _per_channel(xp, device, w, c, 1.0), "mean": mean, "rstd": rstd,
              "dx": dx, "dscale": dw, "dbias": db}
    if not _run(xp, key, plan, device, arrays):
        return None
    return (dx if axis == 1 else xp.moveaxis(dx, 1, axis)), dw, db

