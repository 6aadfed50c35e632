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
`stats["host_reads"]` the reads of device values on the host (each waits for the GPU).
What it cannot tell: speed; what CUDA C computes (an `ElementwiseKernel` runs the NumPy
statement of that kernel, from dygraph/kernels/cuda/references.py); CuPy functions that
NumPy has and CuPy lacks. The GPU run (tests/gpu) stays the judge; this one runs in CI.

Example:
    >>> cp = module()
    >>> a = cp.arange(3.0)
    >>> type(a).__name__, float(a.sum()), cp.get_array_module(a) is cp
    ('ndarray', 3.0, True)
"""

import collections
import contextlib
import sys
import types

import numpy as np

__all__ = ["module", "installed", "stats", "ndarray"]

D2H = "the current stream is capturing, so D2H transfers are disallowed"
CUBLAS = "calling cuBLAS API during stream capture is currently unsupported"
CUSOLVER = "calling cuSOLVER API during stream capture is currently unsupported"

stats = {"calls": 0, "host_reads": 0}
# Calls by the name of what was called (function, method or kernel), for finding the
# calls a step could do without.
calls_by_name = collections.Counter()


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


# -- calls ------------------------------------------------------------------------------
def _host_view(value):
    if isinstance(value, ndarray):
        return value.view(np.ndarray)
    if type(value) in (list, tuple):
        return type(value)(_host_view(v) for v in value)
    return value


def _has_device(values):
    for v in values:
        if isinstance(v, ndarray):
            return True
        if type(v) in (list, tuple) and _has_device(v):
            return True
    return False


def _host_arrays(values):
    for v in values:
        if type(v) is np.ndarray:
            yield v
        elif type(v) in (list, tuple):
            yield from _host_arrays(v)


def _wrap(result, on_device, outs):
    if type(result) is np.ndarray:
        for device, host in outs:
            if result is host:
                return device
        return result.view(ndarray)
    if isinstance(result, np.generic) and on_device:
        return np.asarray(result).view(ndarray)
    if isinstance(result, tuple):  # a namedtuple too (linalg.qr's QRResult)
        items = [_wrap(r, on_device, outs) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    if type(result) is list:
        return [_wrap(r, on_device, outs) for r in result]
    return result


def _call(func, args, kwargs, ufunc=False, creates=False, writes=(), name=None):
    """func on the host views of args; device results. Host arrays among the operands: a
    TypeError in a ufunc (as CuPy), else a copy from the host. `writes`: the device
    arrays func writes into besides `out`."""
    values = list(args) + list(kwargs.values())
    for host in _host_arrays(values):
        if ufunc:
            raise TypeError(f"Unsupported type {type(host)}")
        _h2d(host.nbytes)
    stats["calls"] += 1
    calls_by_name[name or getattr(func, "__name__", "?")] += 1
    host_kwargs, outs = {}, []
    for key, value in kwargs.items():
        host_kwargs[key] = _host_view(value)
        if key == "out":
            pairs = (zip(value, host_kwargs[key]) if type(value) is tuple
                     else [(value, host_kwargs[key])])
            outs = [(device, host) for device, host in pairs if isinstance(device, ndarray)]
    if _capturing():
        for target in list(writes) + [device for device, _ in outs]:
            if isinstance(target, ndarray):
                _STATE.saved.append((target, target.view(np.ndarray).copy()))
    result = func(*_host_view(tuple(args)), **host_kwargs)
    wrapped = _wrap(result, creates or _has_device(values), outs)
    if _capturing() and func not in _ALLOCATIONS:  # an allocation is no kernel to replay
        _STATE.capture.append((func, args, kwargs, wrapped))
    return wrapped


_ALLOCATIONS = (np.empty, np.empty_like)


def _rerun(record):
    func, args, kwargs, recorded = record
    host_kwargs = {k: _host_view(v) for k, v in kwargs.items()}
    _copy_into(recorded, func(*_host_view(tuple(args)), **host_kwargs))


def _copy_into(recorded, new):
    if isinstance(recorded, ndarray):
        new = np.asarray(new)
        if (recorded.__array_interface__["data"][0] != new.__array_interface__["data"][0]
                or recorded.strides != new.strides):
            np.copyto(recorded.view(np.ndarray), new)
    elif type(recorded) in (tuple, list):
        for r, n in zip(recorded, new):
            _copy_into(r, n)


# -- device arrays ---------------------------------------------------------------------
class _Device:
    def __init__(self, device_id=0):
        self.id = int(device_id or 0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        _d2h()

    def __eq__(self, other):
        return isinstance(other, _Device) and other.id == self.id

    def __hash__(self):
        return self.id


class _Pointer:
    def __init__(self, array):
        self.ptr = array.__array_interface__["data"][0]


def _getitem_wrapping(array, key):
    return np.ndarray.__getitem__(array, _wrapped(array.shape, key))


def _set_part(array, value, part):
    getattr(np.ndarray, part).__set__(array, value)


def _index_rules(key):
    """A key's transfers besides host arrays (_call's): a list goes to the device; a
    boolean mask's count of true values comes to the host."""
    for k in (key if type(key) is tuple else (key,)):
        if isinstance(k, ndarray) and k.dtype == np.bool_:
            _d2h()
        elif type(k) is list:
            _h2d(np.asarray(k).nbytes)


def _wrapped(shape, key):
    """`key` with its integer arrays taken modulo their axis' size: CuPy's integer array
    indexing wraps out-of-range indices around where NumPy raises."""
    items = key if type(key) is tuple else (key,)
    used = sum(0 if k is None or k is Ellipsis else
               (k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1)
               for k in items)
    out, axis = [], 0
    for k in items:
        if k is None:
            out.append(k)
        elif k is Ellipsis:
            out.append(k)
            axis += len(shape) - used
        elif isinstance(k, np.ndarray) and k.dtype.kind in "iu" and axis < len(shape):
            out.append(k.view(np.ndarray) % max(shape[axis], 1))
            axis += 1
        else:
            out.append(k)
            axis += k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
    return tuple(out) if type(key) is tuple else out[0]


def _basic(key):
    return all(k is None or k is Ellipsis or type(k) is slice or isinstance(k, (int, np.integer))
               for k in (key if type(key) is tuple else (key,)))


class ndarray(np.ndarray):
    """A device array of the stand-in (CuPy's rules; NumPy's storage)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc is np.matmul and _capturing():
            raise NotImplementedError(CUBLAS)
        writes = inputs[:1] if method == "at" else ()
        name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        return _call(getattr(ufunc, method), inputs, kwargs, ufunc=True, writes=writes,
                     name=name)

    def __array_function__(self, func, types_, args, kwargs):
        return _call(func, args, kwargs,
                     writes=args[:1] if func.__name__ in _IN_PLACE_FUNCTIONS else ())

    def __getitem__(self, key):
        if _basic(key):
            stats["calls"] += 1
            key = key if type(key) is tuple else (key,)
            if Ellipsis not in key:
                key = key + (Ellipsis,)  # a 0-d view rather than a NumPy scalar
            return np.ndarray.__getitem__(self, key)
        _index_rules(key)
        return _call(_getitem_wrapping, (self, key), {}, name="__getitem__")

    def __setitem__(self, key, value):
        _index_rules(key)
        if type(value) is list:
            value = np.asarray(value)
        _call(np.ndarray.__setitem__, (self, key, value), {}, writes=(self,))

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __matmul__(self, other):
        if _capturing():
            raise NotImplementedError(CUBLAS)
        return _call(np.matmul, (self, other), {}, ufunc=True)

    def __rmatmul__(self, other):
        if _capturing():
            raise NotImplementedError(CUBLAS)
        return _call(np.matmul, (other, self), {}, ufunc=True)

    def dot(self, other, out=None):
        if _capturing():
            raise NotImplementedError(CUBLAS)
        return _call(np.dot, (self, other), {} if out is None else {"out": out})

    # What reads the values on the host.
    def get(self, stream=None, order="C", out=None, blocking=True):
        _d2h()
        stats["calls"] += 1
        return np.array(self.view(np.ndarray), order=order)

    def set(self, arr, stream=None):
        _h2d(np.asarray(arr).nbytes)
        stats["calls"] += 1
        np.copyto(self.view(np.ndarray), arr)

    def _read(name):
        def read(self, *args, **kwargs):
            _d2h()
            return getattr(np.ndarray, name)(self.view(np.ndarray), *args, **kwargs)
        read.__name__ = name
        return read

    for _name in ("__float__", "__int__", "__bool__", "__index__", "__complex__", "item",
                  "tolist", "tobytes", "__repr__", "__str__", "__format__", "__reduce__",
                  "__reduce_ex__"):
        locals()[_name] = _read(_name)

    # Methods that compute (a kernel on the GPU): recorded while capturing.
    def _method(name):
        writes = name in ("fill", "sort", "put", "partition")

        def method(self, *args, **kwargs):
            if name == "take" and "mode" not in kwargs:  # CuPy's take wraps around
                kwargs = dict(kwargs, mode="wrap")
            return _call(getattr(np.ndarray, name), (self, *args), kwargs,
                         writes=(self,) if writes else ())
        method.__name__ = name
        return method

    for _name in ("astype", "copy", "fill", "flatten", "ravel", "reshape", "sum", "prod",
                  "mean", "var", "std", "max", "min", "argmax", "argmin", "all", "any",
                  "cumsum", "cumprod", "clip", "round", "conj", "conjugate", "take",
                  "repeat", "sort", "argsort", "partition", "argpartition", "put",
                  "searchsorted", "trace", "diagonal", "squeeze", "transpose", "swapaxes",
                  "view", "__copy__", "__deepcopy__", "choose", "compress", "nonzero"):
        if _name != "view":
            locals()[_name] = _method(_name)
    del _name, _read, _method

    def nonzero(self):
        _d2h()
        return _call(np.ndarray.nonzero, (self,), {})

    # Writing a complex array's parts is a kernel too.
    @property
    def real(self):
        return np.ndarray.real.__get__(self)

    @real.setter
    def real(self, value):
        _call(_set_part, (self, value, "real"), {}, writes=(self,), name="real")

    @property
    def imag(self):
        return np.ndarray.imag.__get__(self)

    @imag.setter
    def imag(self, value):
        _call(_set_part, (self, value, "imag"), {}, writes=(self,), name="imag")

    @property
    def device(self):
        return _Device(0)

    @property
    def data(self):
        return _Pointer(self)


# -- the module ---------------------------------------------------------------------------
# Module functions that CuPy runs through cuBLAS or cuSOLVER, refused while capturing
# (matmul, dot, tensordot and einsum are rerouted by DyGraph's capture, so allowed).
_CUBLAS_FUNCTIONS = {"inner", "vdot", "cov", "corrcoef"}
_LINALG_ALLOWED = {"norm"}
# Outputs whose shape depends on values: CuPy reads a count on the host.
_DATA_DEPENDENT = {"nonzero", "argwhere", "flatnonzero", "unique", "compress", "extract",
                   "trim_zeros", "intersect1d", "union1d", "setdiff1d"}
# Functions that write into their first argument.
_IN_PLACE_FUNCTIONS = {"copyto", "put_along_axis", "place", "putmask", "fill_diagonal", "put"}
# What a copy from the host makes.
_FROM_HOST = {"asarray", "array", "ascontiguousarray", "asfortranarray", "asanyarray"}
_PASS = {"result_type", "promote_types", "can_cast", "issubdtype", "isscalar", "ndim",
         "shape", "size", "broadcast_shapes", "dtype", "finfo", "iinfo", "obj2sctype",
         "min_scalar_type", "common_type", "get_printoptions", "set_printoptions",
         "may_share_memory", "shares_memory"}


def _function(name, func, refuse=None):
    """A module function: func over host views, device results."""

    def call(*args, **kwargs):
        if refuse is not None and _capturing():
            raise refuse
        if name in _DATA_DEPENDENT or (name == "where" and len(args) == 1) or (
                name == "bincount" and kwargs.get("minlength") is None and len(args) < 3):
            _d2h()
        if name in _FROM_HOST:
            value = args[0] if args else kwargs.get("a", kwargs.get("obj"))
            if _has_device([value]):
                return _call(func, args, kwargs)
            _h2d(np.asarray(value).nbytes)
            stats["calls"] += 1
            return np.array(func(*args, **kwargs), copy=True).view(ndarray)
        if name == "einsum" and sum(isinstance(a, ndarray) for a in args) > 2:
            if _capturing():
                raise NotImplementedError(CUBLAS)
        writes = args[:1] if name in _IN_PLACE_FUNCTIONS else ()
        if name == "take" and "mode" not in kwargs:  # CuPy's take wraps around
            kwargs = dict(kwargs, mode="wrap")
        return _call(func, args, kwargs, ufunc=isinstance(func, np.ufunc), creates=True,
                     writes=writes)

    call.__name__ = name
    return _Ufunc(func, call) if isinstance(func, np.ufunc) else call


class _Ufunc:
    """A ufunc of the stand-in module: called, or through its methods (`add.at`, which
    writes into its first argument, `maximum.reduce`, ...); other attributes NumPy's."""

    def __init__(self, ufunc, call):
        self._ufunc, self._call_it, self.__name__ = ufunc, call, ufunc.__name__

    def __call__(self, *args, **kwargs):
        return self._call_it(*args, **kwargs)

    def at(self, a, indices, b=None):
        args = (a, indices) if b is None else (a, indices, b)
        return _call(self._ufunc.at, args, {}, ufunc=True, writes=(a,),
                     name=f"{self.__name__}.at")

    def _method(name):
        def method(self, *args, **kwargs):
            return _call(getattr(self._ufunc, name), args, kwargs, ufunc=True, creates=True,
                         name=f"{self.__name__}.{name}")
        return method

    reduce = _method("reduce")
    accumulate = _method("accumulate")
    outer = _method("outer")
    reduceat = _method("reduceat")
    del _method

    def __getattr__(self, name):
        return getattr(self._ufunc, name)


class _Namespace(types.SimpleNamespace):
    """A submodule of the stand-in (linalg, fft, random, lib): numpy's, wrapped."""

    def __init__(self, source, refuse_all=None, allowed=()):
        super().__init__()
        self._source, self._refuse, self._allowed = source, refuse_all, set(allowed)

    def __getattr__(self, name):
        value = getattr(self._source, name)
        if callable(value) and not isinstance(value, type):
            refuse = None if name in self._allowed else self._refuse
            value = _function(name, value, refuse)
        elif isinstance(value, types.ModuleType):
            value = _Namespace(value, self._refuse, self._allowed)
        setattr(self, name, value)
        return value


class _Stream:
    def __init__(self, null=False, non_blocking=False, ptr=0):
        self.ptr = ptr or id(self)

    def __enter__(self):
        _CUDA.current.append(self)
        return self

    def __exit__(self, *exc):
        _CUDA.current.pop()
        return False

    def use(self):
        _CUDA.current[-1:] = [self]
        return self

    def synchronize(self):
        _d2h()

    def begin_capture(self, mode=None):
        if _capturing():
            raise RuntimeError("a capture is already in progress")
        _STATE.capture = []

    def is_capturing(self):
        return _capturing()

    def end_capture(self):
        records, _STATE.capture = _STATE.capture, None
        for array, values in reversed(_STATE.saved):
            np.copyto(array.view(np.ndarray), values)
        _STATE.saved = []
        return _Graph(records)


class _Graph:
    """What a capture recorded; launch() runs the recorded calls again on the same
    arrays."""

    def __init__(self, records):
        self.records = records

    def launch(self, stream=None):
        stats["calls"] += 1
        for record in self.records:
            _rerun(record)

    def upload(self, stream=None):
        pass


class _MemoryPool:
    def malloc(self, size):
        return _Pointer(np.empty(0))

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0

    def free_all_blocks(self):
        pass


class _Event:
    def __init__(self, *args, **kwargs):
        pass

    def record(self, stream=None):
        pass

    def synchronize(self):
        _d2h()

    def query(self):
        return True


def _runtime():
    return types.SimpleNamespace(
        getDevice=lambda: 0, getDeviceCount=lambda: 1,
        getDeviceProperties=lambda i: {"name": b"CuPy stand-in", "totalGlobalMem": 1 << 34,
                                       "major": 9, "minor": 0, "multiProcessorCount": 1},
        deviceGetStreamPriorityRange=lambda: (0, -1))


def _set_pinned(allocator):
    _STATE.pinned = _default_pinned if allocator is None else allocator


def _cuda():
    cuda = types.SimpleNamespace()
    cuda.current = [_Stream(null=True)]
    cuda.Device = _Device
    cuda.Stream = _Stream
    cuda.ExternalStream = lambda ptr, device_id=0: _Stream(ptr=ptr)
    cuda.Event = _Event
    cuda.MemoryPool = _MemoryPool
    cuda.runtime = _runtime()
    cuda.get_current_stream = lambda device_id=None: cuda.current[-1]
    cuda.using_allocator = lambda allocator=None: contextlib.nullcontext()
    cuda.set_allocator = lambda allocator=None: None
    cuda.set_pinned_memory_allocator = _set_pinned
    cuda.get_elapsed_time = lambda start, end: 0.0
    cuda.device = types.SimpleNamespace(get_cublas_handle=lambda: 0)
    cuda.Graph = _Graph
    return cuda


_CUDA = _cuda()


class ElementwiseKernel:
    """A CuPy kernel of DyGraph's, run as the NumPy statement of what it computes
    (dygraph/kernels/cuda/references.py, by the kernel's name)."""

    def __init__(self, in_params, out_params, operation, name="kernel", **options):
        from dygraph.kernels.cuda import references

        self.name, self.n_in = name, len(in_params.split(","))
        self.reference = references.KERNELS.get(name)
        if self.reference is None:
            raise NotImplementedError(f"the CuPy stand-in has no NumPy statement of kernel "
                                      f"{name!r} (dygraph/kernels/cuda/references.py)")

    def __call__(self, *args, **kwargs):
        return _call(self.reference, args, kwargs, writes=args[self.n_in:])


class _Module(types.ModuleType):
    """The stand-in's `cupy`: NumPy's functions over device arrays."""

    def __getattr__(self, name):
        value = getattr(np, name)
        if name in _PASS or isinstance(value, type) or not callable(value):
            if isinstance(value, types.ModuleType):
                value = _submodule(name, value)
        else:
            refuse = NotImplementedError(CUBLAS) if name in _CUBLAS_FUNCTIONS else None
            value = _function(name, value, refuse)
        setattr(self, name, value)
        return value


def _submodule(name, source):
    if name == "linalg":
        return _Namespace(source, NotImplementedError(CUSOLVER), _LINALG_ALLOWED)
    if name == "random":
        return _Namespace(source, RuntimeError(
            "random numbers drawn while a stream captures would repeat at every replay"))
    return _Namespace(source)


def _get_array_module(*args):
    return module() if _has_device(args) else np


def _asnumpy(a, stream=None, order="C", out=None, blocking=True):
    if isinstance(a, ndarray):
        return a.get(order=order)
    return np.asarray(a, order=order)


_MODULE = None


def module():
    """The stand-in `cupy` module (one per process).

    Example:
        >>> cp = module()
        >>> cp.asnumpy(cp.ones(2) * 2)
        array([2., 2.])
    """
    global _MODULE
    if _MODULE is None:
        cp = _MODULE = _Module("cupy", "A stand-in for CuPy made of NumPy (tools/cupy_standin.py)")
        cp.ndarray = ndarray
        cp.cuda = _CUDA
        cp.get_array_module = _get_array_module
        cp.asnumpy = _asnumpy
        cp.ElementwiseKernel = ElementwiseKernel
        pool = _MemoryPool()
        cp.get_default_memory_pool = lambda: pool
        cp.get_default_pinned_memory_pool = lambda: types.SimpleNamespace(
            malloc=_default_pinned, free_all_blocks=lambda: None)
        cp.__version__ = "stand-in"
    return _MODULE


def _no_handle(cupy):
    pass


@contextlib.contextmanager
def installed():
    """The stand-in as DyGraph's CuPy (and `import cupy`) inside the block, cuDNN off;
    DyGraph's caches of device values are emptied on the way out.

    Example:
        >>> import dygraph
        >>> with installed():
        ...     x = dygraph.to_tensor([1.0, 2.0], place=dygraph.CUDAPlace(0))
        ...     type(x._data).__name__, float((x * 2).sum())
        ('ndarray', 6.0)
    """
    from dygraph import backend
    from dygraph.backend import capture_products, cudnn, device_random
    from dygraph.kernels.cuda import registry

    cp = module()
    saved = backend._cupy, sys.modules.get("cupy"), capture_products.prepare
    backend._cupy = cp
    sys.modules["cupy"] = cp
    # No cuBLAS handle to make: the stand-in's own products stand for the rerouted ones.
    capture_products.prepare = _no_handle
    try:
        with cudnn.use_cudnn(False):
            yield cp
    finally:
        backend._cupy = saved[0]
        if saved[1] is None:
            sys.modules.pop("cupy", None)
        else:
            sys.modules["cupy"] = saved[1]
        capture_products.prepare = saved[2]
        backend._CONSTANTS.clear()
        device_random._STATES.clear()
        registry._KERNELS.clear()
        _STATE.capture, _STATE.saved = None, []
        _STATE.pinned = _default_pinned
