"""Every operation, by family: one sub-package per family (math/, unary/, reduction/,
search/, creation/, manipulation/, linalg/, conv/, pool/, normalization/, activation/, loss/,
nn/, fft/, rnn/) and a few single-module families (compare, complex). Each family module
lists its public ops in `__all__`, the ones without a gradient in `NONDIFF` and those that
are not Tensor methods in `NOT_METHODS`. Importing this package attaches the ops to Tensor
(dygraph/tensor/methods.py) and fills the Tensor namespace that gradient formulas use under
create_graph.

Example:
    >>> import dygraph.ops
    >>> dygraph.ops.add(dygraph.to_tensor([1.0]), dygraph.to_tensor([2.0])).numpy()
    array([3.], dtype=float32)
"""

from dygraph.autograd.backward_math import register
from dygraph.framework.errors import NotTensorError, op_error
from dygraph.framework.kernel_dtypes import guard_methods
from dygraph.ops import aliases, compare, complex
from dygraph.ops import common as _common
from dygraph.ops.creation import constructors, interop, random
from dygraph.ops.linalg import products
from dygraph.ops.manipulation import (
    indexing,
    join,
    rearrange,
    scatter_index,
    shape,
    view,
)
from dygraph.ops.math import arithmetic, composite, elementwise, extrema
from dygraph.ops.reduction import reduce, scans_and_nan
from dygraph.ops.search import order_and_membership, sorting
from dygraph.ops.unary import core as unary
from dygraph.ops.unary import special
from dygraph.tensor.methods import attach_methods

FAMILIES = (arithmetic, extrema, unary, reduce, sorting, shape, rearrange, indexing, products,
            compare, constructors, join, view, scatter_index, order_and_membership, composite,
            interop, complex, elementwise, special, scans_and_nan, random)
for _family in FAMILIES:
    if not hasattr(_family, "NOT_METHODS"):
        _family.NOT_METHODS = set()
constructors.NOT_METHODS = set(constructors.__all__)

OPS = attach_methods(FAMILIES, aliases)
OPS["cast"] = _common.cast


def _inplace_function(method_name):
    def inplace(x, /, *args, **kwargs):  # positional-only: where_(c, x=..) passes its own x
        if not isinstance(x, _common.Tensor):
            raise op_error(method_name, f"x must be a Tensor, got {type(x).__name__}",
                           NotTensorError)
        return getattr(x, method_name)(*args, **kwargs)

    inplace.__name__ = inplace.__qualname__ = method_name
    inplace.__doc__ = (f"`paddle.{method_name}(x, ...)`: x.{method_name}(...), the in-place "
                       f"form of `{method_name[:-1]}`; returns x.")
    return inplace


# Paddle's top-level in-place functions (paddle.abs_(x)) for every in-place Tensor method
# attach() made, and its torch-style aliases (mul_, sub_, div_, clamp_).
for _method in sorted(n for n in dir(_common.Tensor) if n.endswith("_")
                      and not n.startswith("_") and n[:-1] in OPS):
    OPS[_method] = _inplace_function(_method)
for _alias, _method in (("mul_", "multiply_"), ("sub_", "subtract_"), ("div_", "divide_"),
                        ("clamp_", "clip_")):
    if hasattr(_common.Tensor, _method):
        OPS[_alias] = _inplace_function(_method)
__all__ = sorted(OPS)
globals().update(OPS)
# Tensor's methods refuse the dtypes Paddle refuses; the functions here stay unchecked for
# DyGraph's own code (dygraph/__init__.py checks the public `dygraph.max`).
guard_methods(_common.Tensor)


def _sum(x, axis=None, keepdims=False):
    return reduce.sum(x, axis=axis, keepdim=keepdims)


def _transpose(x, axes):
    return shape.transpose(x, axes)


def _swapaxes(x, a, b):
    perm = list(range(x._data.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return shape.transpose(x, perm)


def _like(fill):
    def make(x):
        return constructors.full_like(x, fill)

    return make


# The Tensor versions of the NumPy names that gradient formulas use (see backward_math).
for _name, _fn in {
    "sum": _sum, "reshape": shape.reshape, "transpose": _transpose,
    "broadcast_to": shape.broadcast_to, "expand_dims": shape.unsqueeze,
    "swapaxes": _swapaxes, "astype": _common.cast, "matmul": products.matmul,
    "exp": unary.exp, "log": unary.log, "sqrt": unary.sqrt, "sin": unary.sin,
    "cos": unary.cos, "tanh": unary.tanh, "abs": unary.abs, "sign": unary.sign,
    "floor": unary.floor, "power": arithmetic.pow, "maximum": extrema.maximum,
    "minimum": extrema.minimum, "isnan": compare.isnan, "zeros_like": _like(0),
    "ones_like": _like(1), "where": unary.where,
}.items():
    register(_name, tensor_fn=_fn)
