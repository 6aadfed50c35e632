"""The stand-in's device arrays (`ndarray`, CuPy's rules on NumPy's storage) and its calls:
each runs NumPy on host views, wraps the results as device arrays, is counted, and is
recorded for replay while a stream captures.

Example:
    >>> a = np.arange(3.0).view(ndarray)
    >>> type(a * 2).__name__
    'ndarray'
"""

import weakref

import numpy as np

from tools.cupy_standin.state import (
    _STATE,
    CUBLAS,
    _capturing,
    _d2h,
    _h2d,
    count_call,
)

__all__ = ["ndarray"]

# Functions that write into their first argument.
_IN_PLACE_FUNCTIONS = {"copyto", "put_along_axis", "place", "putmask", "fill_diagonal", "put"}


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
    count_call(name or getattr(func, "__name__", "?"))
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
    host_args = _host_view(tuple(args))
    result = func(*host_args, **host_kwargs)
    wrapped = _wrap(result, creates or _has_device(values), outs)
    # A capture records kernels: not an allocation, and not a view or an answer about
    # arrays (may_share_memory), which a GPU makes on the host and a CUDA graph does not
    # hold (the later kernels' arguments keep the views they were given).
    if (_capturing() and func not in _ALLOCATIONS
            and (writes or outs or not _is_view(result, host_args))):
        _STATE.capture.append((func, args, kwargs, wrapped))
    return wrapped


def _is_view(result, host_args):
    """Whether `result` made no data of its own: no array at all, or a view of an operand
    (a new array's memory overlaps none of them)."""
    if type(result) is not np.ndarray:
        return not isinstance(result, (tuple, list, np.generic))
    return any(type(a) is np.ndarray and np.may_share_memory(result, a) for a in host_args)


_ALLOCATIONS = (np.empty, np.empty_like)


def _named(name, array, args, kwargs):
    """The name a method call is counted by: reshape and ravel are a view where the strides
    allow one and a copy (a kernel) otherwise, as in CuPy, and say which."""
    if name not in ("reshape", "ravel"):
        return name
    host = array.view(np.ndarray)
    result = getattr(np.ndarray, name)(host, *args, **kwargs)
    viewed = result.size == 0 or np.shares_memory(result, host)
    if name == "reshape":
        return "reshape" if viewed else "reshape (copy)"
    return "ravel (no copy)" if viewed else "ravel"


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


# The device array whose `.data` was last taken at each address: a library that is given
# raw pointers (cuDNN's stand-in) finds the arrays that own them here, to keep them alive
# in a captured graph as a real graph's memory pool would.
POINTED = weakref.WeakValueDictionary()


class _Pointer:
    def __init__(self, array):
        self.ptr = array.__array_interface__["data"][0]
        POINTED[self.ptr] = array


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
            count_call("view")
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
        count_call("get")
        return np.array(self.view(np.ndarray), order=order)

    def set(self, arr, stream=None):
        _h2d(np.asarray(arr).nbytes)
        count_call("set")
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
                         writes=(self,) if writes else (), name=_named(name, self, args,
                                                                       kwargs))
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

    @property
    def base(self):
        """The array that owns the memory, as CuPy gives it: the root of a chain of views,
        a device array (None for an owner)."""
        root = np.ndarray.base.__get__(self)
        while isinstance(root, np.ndarray) and np.ndarray.base.__get__(root) is not None:
            root = np.ndarray.base.__get__(root)
        return root.view(ndarray) if isinstance(root, np.ndarray) else None
