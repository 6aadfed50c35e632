"""Other names Paddle 3 accepts for existing ops (cat, clamp, swapaxes, take_along_dim,
the PyTorch-style softmax), and the in-place `where_`.

They are not an op family: each name is the very function it aliases (so the spec entry
of the original covers it), or a thin wrapper around one.
"""

from dygraph.framework.errors import op_error
from dygraph.ops.inplace import run_inplace
from dygraph.tensor.tensor import Tensor

# alias -> (existing op name, whether Paddle also has it as a Tensor method)
_SAME = {"cat": ("concat", False), "concatenate": ("concat", False),
         "clamp": ("clip", True), "swapaxes": ("transpose", True),
         "swapdims": ("transpose", True), "take_along_dim": ("take_along_axis", True)}


def softmax(input, dim=None, dtype=None, *, out=None):  # noqa: A002 - Paddle's names
    """PyTorch-style softmax over `dim`; dim=None picks 0 for 0-D, 1-D and 3-D inputs and 1
    otherwise (PyTorch's legacy rule, which Paddle follows).

    Example:
        >>> import dygraph
        >>> dygraph.softmax(dygraph.zeros([2, 2])).numpy()
        array([[0.5, 0.5],
               [0.5, 0.5]], dtype=float32)
    """
    from dygraph.nn.functional import softmax as _softmax
    from dygraph.ops.common import as_tensor

    input = as_tensor(input, "softmax")  # noqa: A001
    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return _softmax(input, axis=dim, dtype=dtype)


def _where_into(x, condition, y):
    from dygraph.ops.unary.core import where

    return where(condition, x, y)


def where_(condition, x=None, y=None, name=None):
    """In-place where: x becomes where(condition, x, y) (same shape as x); returns x.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([1.0, 2.0])
        >>> _ = dygraph.where_(dygraph.to_tensor([True, False]), x, dygraph.zeros([2]))
        >>> x.numpy()
        array([1., 0.], dtype=float32)
    """
    if x is None or y is None:  # no x to write into (ValueError, as Paddle)
        raise op_error("where_", "x and y are both required: the result is written into x")
    return run_inplace("where_", _where_into, x, condition, y)


def install(ops):
    """The alias functions by name; Tensor methods for those Paddle has as methods."""
    out = {alias: ops[name] for alias, (name, _) in _SAME.items()}
    for alias, (name, is_method) in _SAME.items():
        if is_method and not hasattr(Tensor, alias):
            setattr(Tensor, alias, ops[name])
    out["softmax"] = softmax
    out["where_"] = where_
    Tensor.softmax = softmax
    Tensor.where_ = where_
    return out
