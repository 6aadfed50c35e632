"""Diagonals and triangles: diag, diagonal, tril, triu."""

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import IndexValueError, op_error
from dygraph.ops.common import as_tensor, check_axis
from dygraph.ops.manipulation.args import constant, xp_of
from dygraph.ops.manipulation.indexing import GetItem
from dygraph.ops.manipulation.scatter import Scatter
from dygraph.ops.manipulation.shape import reshape, transpose

__all__ = ["diag", "diagonal", "tril", "triu"]


class Tril(Op):
    attrs = ("k", "upper")

    complex_grad = "same"

    def __init__(self, k, upper):
        self.k, self.upper = k, upper

    def forward(self, xp, x):
        return xp.triu(x, self.k) if self.upper else xp.tril(x, self.k)

    def backward(self, m, g):
        return (m.triu(g, self.k) if self.upper else m.tril(g, self.k),)


register("tril", tensor_fn=lambda g, k=0: apply(Tril(k, False), g))
register("triu", tensor_fn=lambda g, k=0: apply(Tril(k, True), g))


def _triangle(x, diagonal, upper, op):
    x = as_tensor(x, op)
    if x._data.ndim < 2:
        raise op_error(op, f"expected a tensor with at least 2 dims, got shape {x.shape}")
    return apply(Tril(int(diagonal), upper), x)


def tril(x, diagonal=0, name=None):
    """The lower triangle of the last two dims (on and below diagonal `diagonal`); the rest
    is zero.

    Example:
        >>> import dygraph
        >>> dygraph.tril(dygraph.ones([2, 2])).numpy()
        array([[1., 0.],
               [1., 1.]], dtype=float32)
    """
    return _triangle(x, diagonal, False, "tril")


def triu(x, diagonal=0, name=None):
    """The upper triangle of the last two dims (on and above diagonal `diagonal`).

    Example:
        >>> import dygraph
        >>> dygraph.triu(dygraph.ones([2, 2])).numpy()
        array([[1., 1.],
               [0., 1.]], dtype=float32)
    """
    return _triangle(x, diagonal, True, "triu")


def _diag_positions(xp, rows, cols, offset):
    """Row and column indices of diagonal `offset` of a rows x cols matrix."""
    r0, c0 = max(-offset, 0), max(offset, 0)
    n = max(0, min(rows - r0, cols - c0))
    i = xp.arange(n)
    return i + r0, i + c0


def diag(x, offset=0, padding_value=0, name=None):
    """1-D x: a square matrix with x on diagonal `offset` and `padding_value` elsewhere (a
    0-D x counts as 1-D). 2-D x: the diagonal `offset` as a 1-D tensor.

    Example:
        >>> import dygraph
        >>> dygraph.diag(dygraph.to_tensor([1, 2])).numpy()
        array([[1, 0],
               [0, 2]])
        >>> dygraph.diag(dygraph.to_tensor([[1, 2], [3, 4]]), offset=1).numpy()
        array([2])
    """
    x = as_tensor(x, "diag")
    if x._data.ndim == 0:
        x = reshape(x, [1])
    data = x._data
    xp = xp_of(data)
    offset = int(offset)
    if data.ndim == 1:
        size = data.shape[0] + abs(offset)
        rows, cols = _diag_positions(xp, size, size, offset)
        base = constant(xp.full((size, size), padding_value, dtype=data.dtype), x)
        return apply(Scatter(rows * size + cols, "assign"), base, x)
    if data.ndim == 2:
        rows, cols = _diag_positions(xp, data.shape[0], data.shape[1], offset)
        return apply(GetItem((rows, cols)), x)
    raise op_error("diag", f"expected a 1-D or 2-D tensor, got shape {x.shape}")


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The diagonal `offset` of the 2-D planes spanned by axis1 and axis2; the diagonal
    becomes the last dim of the result.

    Example:
        >>> import dygraph
        >>> x = dygraph.arange(8).reshape([2, 2, 2])
        >>> dygraph.diagonal(x, axis1=1, axis2=2).numpy()
        array([[0, 3],
               [4, 7]])
    """
    x = as_tensor(x, "diagonal")
    nd = x._data.ndim
    if nd < 2:  # Paddle: the axes are out of range (IndexError)
        raise op_error("diagonal", f"expected a tensor with at least 2 dims, got shape "
                       f"{x.shape}", IndexValueError)
    a1, a2 = check_axis(axis1, nd, "diagonal"), check_axis(axis2, nd, "diagonal")
    if a1 == a2:
        raise op_error("diagonal", f"axis1 and axis2 must differ, got {axis1} and {axis2}")
    perm = [d for d in range(nd) if d not in (a1, a2)] + [a1, a2]
    if perm != list(range(nd)):
        x = transpose(x, perm)
    shape = x._data.shape
    rows, cols = _diag_positions(xp_of(x._data), shape[-2], shape[-1], int(offset))
    return apply(GetItem((Ellipsis, rows, cols)), x)

