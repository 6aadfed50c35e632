"""The two namespaces a gradient formula is written against.

`Op.backward(m, *grads)` uses `m.exp(x)`, `m.sum(g, axis=..., keepdims=...)`, `m.where(...)`
and Python operators. In plain backward `m` is an ArrayMath: NumPy/CuPy functions on raw
arrays, nothing recorded, as fast as the array library. With `create_graph=True` `m` is the
TensorMath: the same names with the same signatures, implemented by DyGraph ops, so the
gradient itself is recorded and can be differentiated again. One formula serves both.

Op families register what their formulas need beyond the NumPy names with `register`.
"""

import numpy as np

__all__ = ["ArrayMath", "TENSOR_MATH", "register", "math_for"]


def _np_sum(x, axis=None, dtype=None, out=None, keepdims=False):
    """np.sum without its dispatch wrapper (half the time of a small reduction, and
    backward formulas reduce a lot); the same semantics, integer promotion included."""
    if type(x) is np.ndarray:
        return x.sum(axis, dtype, out, keepdims)
    return np.sum(x, axis, dtype, out, keepdims)


class ArrayMath:
    """NumPy-like namespace over raw arrays; unknown names fall through to `xp`."""

    tensor_mode = False

    def __init__(self, xp):
        self.xp = xp
        if xp is np:
            self.sum = _np_sum

    def __getattr__(self, name):
        fn = getattr(self.xp, name)
        setattr(self, name, fn)  # cache: later lookups skip __getattr__
        return fn

    def astype(self, x, dtype):
        return x.astype(dtype, copy=False)

    def data(self, x):
        return x


class _TensorMath:
    """The same names over Tensors; filled in by the op families through `register`."""

    tensor_mode = True

    def __getattr__(self, name):
        if name.startswith("__"):  # introspection (copy, inspect, doctest) probes these
            raise AttributeError(name)
        raise NotImplementedError(
            f"double backward needs '{name}' on tensors, which no op family registered; "
            "this op does not support create_graph=True yet")

    def data(self, x):
        return x._data


TENSOR_MATH = _TensorMath()
_ARRAY_MATHS = {np: ArrayMath(np)}
_EXTRA_ARRAY = {}


def register(name, array_fn=None, tensor_fn=None):
    """Make `m.<name>` available: `array_fn(xp)` builds the array version for a backend
    (omit it when NumPy already has the name), `tensor_fn` is the Tensor version."""
    if tensor_fn is not None:
        setattr(_TensorMath, name, staticmethod(tensor_fn))
    if array_fn is not None:
        _EXTRA_ARRAY[name] = array_fn
        for xp, ns in _ARRAY_MATHS.items():
            setattr(ns, name, array_fn(xp))


def array_math(xp):
    ns = _ARRAY_MATHS.get(xp)
    if ns is None:
        ns = _ARRAY_MATHS[xp] = ArrayMath(xp)
        for name, build in _EXTRA_ARRAY.items():
            setattr(ns, name, build(xp))
    return ns


_NP_MATH = _ARRAY_MATHS[np]


def math_for(grad, create_graph):
    """The namespace for a backward pass whose seed gradient is `grad`."""
    if create_graph:
        return TENSOR_MATH
    if type(grad) is np.ndarray:
        return _NP_MATH
    from dygraph.backend import get_array_module

    return array_math(get_array_module(grad))
