"""The stand-in's `cupy` module: NumPy's functions over device arrays, its `cuda`
namespace (devices, streams that capture, graphs, memory pools), `ElementwiseKernel`,
`RawKernel` and the submodules (`linalg` and `random` refused while capturing).

Example:
    >>> cp = module()
    >>> cp.asnumpy(cp.ones(2) * 2)
    array([2., 2.])
"""

import contextlib
import types

import numpy as np

from tools.cupy_standin.arrays import (
    _IN_PLACE_FUNCTIONS,
    _call,
    _Device,
    _has_device,
    _named,
    _Pointer,
    _rerun,
    ndarray,
)
from tools.cupy_standin.state import (
    _STATE,
    CUBLAS,
    CUSOLVER,
    _capturing,
    _d2h,
    _default_pinned,
    _h2d,
    count_call,
    stats,
)

__all__ = ["module", "ElementwiseKernel", "RawKernel", "cupyx_modules"]

# -- the module ---------------------------------------------------------------------------
def _count_concatenate(arrays):
    """Count what CuPy's concatenate makes besides the call itself (cupy/_core/
    _routines_manipulation.pyx, _concatenate): over eight arrays of one dtype averaging
    under 2 MiB, one kernel after copying to the device a table of their pointers (and of
    their offsets and strides, unless all are C-ordered and of one shape); else a copy
    kernel per array."""
    device = [a for a in arrays if isinstance(a, ndarray)]
    if not device:
        return
    nbytes = sum(a.nbytes for a in device)
    if (len(device) > 8 and len({a.dtype for a in device}) == 1
            and nbytes < (2 << 20) * len(device)):
        same = len({a.shape for a in device}) == 1 and all(a.flags.c_contiguous
                                                             for a in device)
        for _ in range(1 if same else 3):
            count_call("concatenate (upload)")
        return
    for _ in range(len(device) - 1):  # the call itself counts the first
        count_call("concatenate (copy)")


def _returned_as_is(name, value, args, kwargs):
    """Whether CuPy's `name` (asarray, asanyarray, ascontiguousarray) returns the device
    array `value` itself: no dtype to change to, no other order asked for, and for
    ascontiguousarray C-ordered already."""
    if type(value) is not ndarray or name not in ("asarray", "asanyarray", "ascontiguousarray"):
        return False
    dtype = args[1] if len(args) > 1 else kwargs.get("dtype")
    if dtype is not None and np.dtype(dtype) != value.dtype:
        return False
    if name == "ascontiguousarray":
        return value.flags.c_contiguous
    order = args[2] if len(args) > 2 else kwargs.get("order")
    return order in (None, "K", "A") and not kwargs.get("copy")



# Module functions that CuPy runs through cuBLAS or cuSOLVER, refused while capturing
# (matmul, dot, tensordot and einsum are rerouted by DyGraph's capture, so allowed).
_CUBLAS_FUNCTIONS = {"inner", "vdot", "cov", "corrcoef"}
_LINALG_ALLOWED = {"norm"}
# Outputs whose shape depends on values: CuPy reads a count on the host.
_DATA_DEPENDENT = {"nonzero", "argwhere", "flatnonzero", "unique", "compress", "extract",
                   "trim_zeros", "intersect1d", "union1d", "setdiff1d"}
# What a copy from the host makes.
_FROM_HOST = {"asarray", "array", "ascontiguousarray", "asfortranarray", "asanyarray"}
_PASS = {"result_type", "promote_types", "can_cast", "issubdtype", "isscalar", "ndim",
         "shape", "size", "broadcast_shapes", "dtype", "finfo", "iinfo", "obj2sctype",
         "min_scalar_type", "common_type", "get_printoptions", "set_printoptions",
         "may_share_memory", "shares_memory"}


# cuBLAS's products: those made for bfloat16 operands (dygraph/backend/product_precision.py)
# go to cuBLAS's bfloat16 compute type on a GPU, and are counted apart here.
_PRODUCTS = {"matmul", "dot", "tensordot", "einsum"}


def _function(name, func, refuse=None):
    """A module function: func over host views, device results."""

    def call(*args, **kwargs):
        if refuse is not None and _capturing():
            raise refuse
        if name in _PRODUCTS and any(isinstance(a, ndarray) and a.dtype == np.float32
                                     for a in args):
            from dygraph.backend import product_precision

            if product_precision.active():
                stats["bfloat16_products"] += 1
        if name in _DATA_DEPENDENT or (name == "where" and len(args) == 1) or (
                name == "bincount" and kwargs.get("minlength") is None and len(args) < 3):
            _d2h()
        if name in _FROM_HOST:
            value = args[0] if args else kwargs.get("a", kwargs.get("obj"))
            if _has_device([value]):
                if _returned_as_is(name, value, args, kwargs):
                    count_call(f"{name} (no copy)")  # a call, but no launch
                    return value
                return _call(func, args, kwargs)
            _h2d(np.asarray(value).nbytes)
            count_call(name)
            return np.array(func(*args, **kwargs), copy=True).view(ndarray)
        if name == "einsum" and sum(isinstance(a, ndarray) for a in args) > 2:
            if _capturing():
                raise NotImplementedError(CUBLAS)
        writes = args[:1] if name in _IN_PLACE_FUNCTIONS else ()
        if name == "take" and "mode" not in kwargs:  # CuPy's take wraps around
            kwargs = dict(kwargs, mode="wrap")
        counted = name
        if name in ("reshape", "ravel") and args and type(args[0]) is ndarray:
            counted = _named(name, args[0], args[1:], kwargs)  # a view, or a copy
        if name == "concatenate" and args and not _capturing():
            _count_concatenate(list(args[0]))
        return _call(func, args, kwargs, ufunc=isinstance(func, np.ufunc), creates=True,
                     writes=writes, name=counted)

    call.__name__ = name
    return _Ufunc(func, call) if isinstance(func, np.ufunc) else call


# The ufuncs CuPy gives an `at` method, and the dtypes of its scatter kernels (cupy/_core/
# _routines_indexing.pyx, _scatter_op): int64 has no atomic add or max there.
_AT_DTYPES = {
    "add": {"int32", "uint32", "uint64", "float16", "float32", "float64"},
    "maximum": {"int32", "uint32", "uint64", "float32", "float64"},
    "minimum": {"int32", "uint32", "uint64", "float32", "float64"},
}


class _Ufunc:
    """A ufunc of the stand-in module: called, or through its methods (`add.at`, which
    writes into its first argument, `maximum.reduce`, ...); other attributes NumPy's."""

    def __init__(self, ufunc, call):
        self._ufunc, self._call_it, self.__name__ = ufunc, call, ufunc.__name__

    def __call__(self, *args, **kwargs):
        return self._call_it(*args, **kwargs)

    def at(self, a, indices, b=None):
        allowed = _AT_DTYPES.get(self.__name__)
        if allowed is None:
            raise NotImplementedError(f"the stand-in (as CuPy) has no {self.__name__}.at")
        if np.dtype(a.dtype).name not in allowed:
            # CuPy's scatter kernels rest on CUDA atomics, which exist for these only.
            raise TypeError(f"{self.__name__}.at (CuPy's scatter_"
                            f"{'add' if self.__name__ == 'add' else self.__name__[:3]}) "
                            f"only supports {', '.join(sorted(allowed))}, got "
                            f"{np.dtype(a.dtype).name}")
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
        count_call("graph launch")
        stats["graph_calls"] += len(self.records)  # what a GPU would run: kernels, copies
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
    (dygraph/kernels/cuda/references.py, by the kernel's name; a generated chain's in
    dygraph/kernels/cuda/elementwise_chains.py)."""

    def __init__(self, in_params, out_params, operation, name="kernel", **options):
        from dygraph.kernels.cuda import elementwise_chains, references

        self.name, self.n_in = name, len(in_params.split(","))
        self.reference = (references.KERNELS.get(name) or
                          elementwise_chains.STATEMENTS.get(name))
        if self.reference is None:
            raise NotImplementedError(f"the CuPy stand-in has no NumPy statement of kernel "
                                      f"{name!r} (dygraph/kernels/cuda/references.py)")

    def __call__(self, *args, **kwargs):
        return _call(self.reference, args, kwargs, writes=args[self.n_in:])


class RawKernel:
    """A raw CUDA kernel of DyGraph's (a row kernel, dygraph/kernels/cuda/registry.py), run
    as its NumPy statement (dygraph/kernels/cuda/references.py, by the function's name);
    the launch's grid and block shapes are CuPy's to check, not the stand-in's."""

    def __init__(self, code, name, options=(), **kwargs):
        from dygraph.kernels.cuda import references

        self.name = name
        self.reference = references.KERNELS.get(name)
        if self.reference is None:
            raise NotImplementedError(f"the CuPy stand-in has no NumPy statement of kernel "
                                      f"{name!r} (dygraph/kernels/cuda/references.py)")

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        if not (isinstance(grid, tuple) and isinstance(block, tuple)
                and isinstance(args, tuple)):
            raise TypeError("a RawKernel takes the grid, the block and the arguments as tuples")
        # Which arguments the kernel writes is in its C; the stand-in takes every array.
        _call(self.reference, args, {}, writes=[a for a in args if isinstance(a, ndarray)],
              name=self.name)


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


def cupyx_modules():
    """{name: module} for sys.modules: `cupyx.scipy.special` as SciPy's special functions
    over device arrays (CuPy's runs each as one kernel); empty without SciPy.

    Example:
        >>> sorted(cupyx_modules())[-1:] in ([], ["cupyx.scipy.special"])
        True
    """
    try:
        import scipy.special
    except ImportError:
        return {}
    cupyx = types.ModuleType("cupyx", "The stand-in's cupyx (tools/cupy_standin/)")
    cupyx.scipy = types.ModuleType("cupyx.scipy")
    cupyx.scipy.special = _Namespace(scipy.special)
    return {"cupyx": cupyx, "cupyx.scipy": cupyx.scipy, "cupyx.scipy.special": cupyx.scipy.special}


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
        cp = _MODULE = _Module("cupy", "A stand-in for CuPy made of NumPy (tools/cupy_standin/)")
        cp.ndarray = ndarray
        cp.cuda = _CUDA
        cp.get_array_module = _get_array_module
        cp.asnumpy = _asnumpy
        cp.ElementwiseKernel = ElementwiseKernel
        cp.RawKernel = RawKernel
        pool = _MemoryPool()
        cp.get_default_memory_pool = lambda: pool
        cp.get_default_pinned_memory_pool = lambda: types.SimpleNamespace(
            malloc=_default_pinned, free_all_blocks=lambda: None)
        cp.__version__ = "stand-in"
    return _MODULE
