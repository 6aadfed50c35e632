"""Every operation, by family. Each family module lists its public ops in `__all__`, the
ones without a gradient in `NONDIFF` and those that are not Tensor methods in `NOT_METHODS`.
Importing this package attaches the ops to Tensor and fills the Tensor namespace that
gradient formulas use under create_graph.
"""

from dygraph.autograd.backward_math import register
from dygraph.ops import (
    aliases,
    compare,
    compare_extra,
    complex,
    creation,
    creation_extra,
    elementwise_extra,
    indexing,
    linalg,
    manipulation,
    manipulation_join,
    manipulation_view,
    math,
    math_extra,
    random_fill,
    reduction,
    reduction_extra,
    scatter_extra,
    search,
    search_extra,
    shape,
    special,
    unary,
)
from dygraph.ops import common as _common
from dygraph.ops.lazy_methods import attach_lazy
from dygraph.ops.tensor_methods import attach

FAMILIES = (math, unary, reduction, search, shape, manipulation, indexing, linalg, compare,
            creation, manipulation_join, manipulation_view, scatter_extra, search_extra,
            math_extra, creation_extra, complex, elementwise_extra, compare_extra, special,
            reduction_extra, random_fill)
for _family in FAMILIES:
    if not hasattr(_family, "NOT_METHODS"):
        _family.NOT_METHODS = set()
creation.NOT_METHODS = set(creation.__all__)

OPS = attach(FAMILIES)
attach_lazy(_common.Tensor)
OPS["cast"] = _common.cast


def _inplace_function(method_name):
    def inplace(x, *args, **kwargs):
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
        setattr(_common.Tensor, _alias, getattr(_common.Tensor, _method))
        OPS[_alias] = _inplace_function(_method)
OPS.update(aliases.install(OPS))  # cat, clamp, swapaxes, torch-style softmax, where_, ...
__all__ = sorted(OPS)
globals().update(OPS)


def _sum(x, axis=None, keepdims=False):
    return reduction.sum(x, axis=axis, keepdim=keepdims)


def _transpose(x, axes):
    return shape.transpose(x, axes)


def _swapaxes(x, a, b):
    perm = list(range(x._data.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return shape.transpose(x, perm)


def _like(fill):
    def make(x):
        return creation.full_like(x, fill)

    return make


# The Tensor versions of the NumPy names that gradient formulas use (see backward_math).
for _name, _fn in {
    "sum": _sum, "reshape": shape.reshape, "transpose": _transpose,
    "broadcast_to": shape.broadcast_to, "expand_dims": shape.unsqueeze,
    "swapaxes": _swapaxes, "astype": _common.cast, "matmul": linalg.matmul,
    "exp": unary.exp, "log": unary.log, "sqrt": unary.sqrt, "sin": unary.sin,
    "cos": unary.cos, "tanh": unary.tanh, "abs": unary.abs, "sign": unary.sign,
    "floor": unary.floor, "power": math.pow, "maximum": math.maximum,
    "minimum": math.minimum, "isnan": compare.isnan, "zeros_like": _like(0),
    "ones_like": _like(1), "where": unary.where,
}.items():
    register(_name, tensor_fn=_fn)
