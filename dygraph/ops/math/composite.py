"""Products, distances and differences built from the core ops: tensordot, inner, ger,
addmm, baddbmm, cdist, pdist, dist, diff, vander, renorm, reduce_as, combinations.

All are compositions of differentiable ops (matmul, norm, getitem, concat, ...), so their
gradients and double backward come from those ops.
"""

import builtins
import itertools
import math

import numpy as np

from dygraph.autograd.function import apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import device_constant
from dygraph.framework.errors import AssertedValueError, RankIndexError, ValueTypeError, op_error
from dygraph.ops.common import as_tensor, binary_operands, check_axis
from dygraph.ops.linalg.products import bmm, matmul, outer
from dygraph.ops.manipulation.args import constant, xp_of
from dygraph.ops.manipulation.indexing import GetItem
from dygraph.ops.manipulation.rearrange import concat
from dygraph.ops.manipulation.shape import reshape, reshape_computed, transpose, unsqueeze
from dygraph.ops.math import arithmetic as _math
from dygraph.ops.reduction.reduce import sum as _sum
from dygraph.ops.reduction.statistics import norm
from dygraph.ops.unary.core import where
from dygraph.tensor.tensor import Tensor

__all__ = ["tensordot", "inner", "ger", "addmm", "baddbmm", "cdist", "pdist", "dist", "diff",
           "vander", "renorm", "reduce_as", "combinations"]
NONDIFF = set()
NOT_METHODS = {"ger", "pdist"}


def _axes_pair(axes, nx):
    """The lists of x's and y's paired axes as tensordot's `axes` gives them (axes=k:
    x's last k and y's first k; with k above x's nx dims, x's run starts at nx - k, a
    negative axis counted from the end, as in Paddle)."""
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, (int, np.integer)):
        k = int(axes)
        if k < 0:
            raise op_error("tensordot", f"axes must not be negative, got {k}",
                           AssertedValueError)
        return list(range(nx - k, nx)), list(range(k))
    axes = list(axes)
    if len(axes) == 2 and all(isinstance(a, (list, tuple)) for a in axes):
        xa, ya = list(axes[0]), list(axes[1])
    elif len(axes) == 1 and isinstance(axes[0], (list, tuple)):
        xa = ya = list(axes[0])
    else:
        xa = ya = [int(a) for a in axes]
    # Paddle pairs the shorter list with the start of the longer one.
    n = min(len(xa), len(ya))
    return [int(a) for a in xa[:n]], [int(a) for a in ya[:n]]


def _checked_axes(x, y, xa, ya):
    """The paired axes normalised, checked pair by pair in order as Paddle does: an axis
    beyond its input's dims is an IndexError, sizes that differ (neither being 1) an
    AssertionError."""
    xs, ys = x._data.shape, y._data.shape
    for a, b in zip(xa, ya):
        if not (-len(xs) <= a < len(xs) and -len(ys) <= b < len(ys)):
            raise op_error("tensordot", f"axes {a} of x (shape {list(xs)}) and {b} of y "
                           f"(shape {list(ys)}): out of range", RankIndexError)
        if xs[a] != ys[b] and 1 not in (xs[a], ys[b]):
            raise op_error("tensordot", f"dim {a} of x (shape {list(xs)}) and dim {b} of y "
                           f"(shape {list(ys)}) differ", AssertedValueError)
    xa, ya = [a % len(xs) for a in xa], [b % len(ys) for b in ya]
    if len(set(xa)) < len(xa) or len(set(ya)) < len(ya):
        raise op_error("tensordot", f"axes pair a dim twice: x {xa} (shape {list(xs)}), "
                       f"y {ya} (shape {list(ys)})", RankIndexError)
    return xa, ya


def tensordot(x, y, axes=2, name=None):
    """Sum of products over the paired axes: axes=k pairs x's last k dims with y's first
    k; [[x axes], [y axes]] pairs them explicitly. As in Paddle, a paired dim of size 1
    broadcasts against the other (which is then summed over on its own).

    Example:
        >>> import dygraph
        >>> dygraph.tensordot(dygraph.ones([2, 3, 4]), dygraph.ones([4, 3]),
        ...                   [[1, 2], [1, 0]]).numpy()
        array([12., 12.], dtype=float32)
    """
    x, y = binary_operands(x, y, "tensordot")
    nx, ny = x._data.ndim, y._data.ndim
    xa, ya = _checked_axes(x, y, *_axes_pair(axes, nx))
    # A dim of size n paired with one of size 1 is summed first: sum_i x_i * y = (sum x) * y.
    x_sum = [a for a, b in zip(xa, ya) if x._data.shape[a] != y._data.shape[b] == 1]
    y_sum = [b for a, b in zip(xa, ya) if y._data.shape[b] != x._data.shape[a] == 1]
    if x_sum:
        x = _sum(x, axis=x_sum, keepdim=True)
    if y_sum:
        y = _sum(y, axis=y_sum, keepdim=True)
    x_free = [d for d in range(nx) if d not in xa]
    y_free = [d for d in range(ny) if d not in ya]
    k = math.prod(x._data.shape[a] for a in xa)
    xm, ym = transpose(x, x_free + xa), transpose(y, ya + y_free)
    out_shape = [x._data.shape[d] for d in x_free] + [y._data.shape[d] for d in y_free]
    if xm._data.size == 0 or ym._data.size == 0:  # every size written out (-1 cannot tell)
        rows = math.prod(x._data.shape[d] for d in x_free)
        out = matmul(reshape_computed(xm, [rows, k]),
                     reshape_computed(ym, [k, math.prod(out_shape[len(x_free):])]))
        return reshape_computed(out, out_shape)
    # -1 (inferred) where a static program's free batch dim may be
    out = matmul(reshape(xm, [-1, k]), reshape(ym, [k, -1]))
    if len(x_free) == 1 and len(y_free) == 1:
        return out  # already [P, Q]
    if x_free:
        out_shape[0] = -1
    return reshape(out, out_shape)


def inner(x, y, name=None):
    """Sum of products over the last dim of both (a 0-D input multiplies).

    Example:
        >>> import dygraph
        >>> dygraph.inner(dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([3.0, 4.0])).item()
        11.0
    """
    x, y = binary_operands(x, y, "inner")
    if x._data.ndim == 0 or y._data.ndim == 0:
        return _math.multiply(x, y)
    if x._data.shape[-1] != y._data.shape[-1]:  # checked here: tensordot broadcasts a 1
        raise op_error("inner", f"the last dims of x (shape {x.shape}) and y (shape "
                       f"{y.shape}) differ")
    return tensordot(x, y, [[x._data.ndim - 1], [y._data.ndim - 1]])


def ger(x, y, name=None):
    """Outer product of two 1-D tensors (Paddle's alias of outer).

    Example:
        >>> import dygraph
        >>> dygraph.ger(dygraph.to_tensor([1, 2]), dygraph.to_tensor([3, 4])).numpy()
        array([[3, 4],
               [6, 8]])
    """
    return outer(x, y)


def _scaled_sum(input, product, beta, alpha):  # noqa: A002 - Paddle's argument name
    out = product if alpha == 1 else _math.scale(product, float(alpha))
    if beta == 0:
        return out
    base = input if beta == 1 else _math.scale(input, float(beta))
    return _math.add(base, out)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002
    """beta * input + alpha * (x @ y) for 2-D x and y (input broadcasts).

    Example:
        >>> import dygraph
        >>> dygraph.addmm(dygraph.ones([2, 2]), dygraph.ones([2, 3]), dygraph.ones([3, 2]),
        ...               beta=0.5, alpha=2.0).numpy()
        array([[6.5, 6.5],
               [6.5, 6.5]], dtype=float32)
    """
    input, x, y = (as_tensor(t, "addmm") for t in (input, x, y))
    if x._data.ndim != 2 or y._data.ndim != 2:
        raise op_error("addmm", f"x and y must be 2-D, got shapes {x.shape} and {y.shape}")
    return _scaled_sum(input, matmul(x, y), beta, alpha)


def baddbmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002
    """beta * input + alpha * bmm(x, y) for 3-D x and y.

    Example:
        >>> import dygraph
        >>> dygraph.baddbmm(dygraph.zeros([1, 2, 2]), dygraph.ones([1, 2, 3]),
        ...                 dygraph.ones([1, 3, 2])).shape
        [1, 2, 2]
    """
    input, x, y = (as_tensor(t, "baddbmm") for t in (input, x, y))
    if x._data.ndim != 3 or y._data.ndim != 3:
        raise op_error("baddbmm", f"x and y must be 3-D, got shapes {x.shape} and {y.shape}")
    return _scaled_sum(input, bmm(x, y), beta, alpha)


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """p-norm distances between the rows of x [..., P, M] and y [..., R, M]: [..., P, R].

    Example:
        >>> import dygraph
        >>> dygraph.cdist(dygraph.to_tensor([[0.0, 0.0]]),
        ...               dygraph.to_tensor([[3.0, 4.0], [1.0, 0.0]])).numpy()
        array([[5., 1.]], dtype=float32)
    """
    x, y = binary_operands(x, y, "cdist")
    if x._data.ndim < 2 or y._data.ndim < 2 or x._data.shape[-1] != y._data.shape[-1]:
        raise op_error("cdist", f"x [..., P, M] and y [..., R, M] need at least 2 dims and "
                       f"one M, got shapes {x.shape} and {y.shape}", AssertedValueError)
    return norm(_math.subtract(unsqueeze(x, -2), unsqueeze(y, -3)), p=float(p), axis=-1)


@captured_whole
def pdist(x, p=2.0, name=None):
    """p-norm distances between every pair of rows i < j of the 2-D x, as a 1-D tensor of
    N * (N - 1) / 2 values in row-major pair order.

    Example:
        >>> import dygraph
        >>> dygraph.pdist(dygraph.to_tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])).numpy()
        array([5.       , 1.       , 4.2426405], dtype=float32)
    """
    x = as_tensor(x, "pdist")
    if x._data.ndim != 2:
        raise op_error("pdist", f"x must be 2-D, got shape {x.shape}", AssertedValueError)
    n = x._data.shape[0]
    # The rows i and j of each pair i < j; on a GPU made once per n, as a copy from the host
    # at each call could not be captured into a CUDA graph.
    pairs = device_constant(xp_of(x._data), ("pdist_pairs", n),
                            lambda: np.stack(np.triu_indices(n, 1)))
    first = apply(GetItem(pairs[0]), x)
    second = apply(GetItem(pairs[1]), x)
    return norm(_math.subtract(first, second), p=float(p), axis=-1)


def dist(x, y, p=2, name=None):
    """The p-norm of x - y (broadcast) over all elements: p = 0 counts the non-zeros,
    inf / -inf take the largest / smallest absolute difference.

    Example:
        >>> import dygraph
        >>> dygraph.dist(dygraph.to_tensor([3.0, 4.0]), dygraph.zeros([2])).item()
        5.0
    """
    x, y = binary_operands(x, y, "dist")
    return norm(reshape(_math.subtract(x, y), [-1]), p=float(p), axis=0)


def _step_slice(axis, start, stop):
    return (builtins.slice(None),) * axis + (builtins.slice(start, stop),)


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The n-th forward difference along `axis`, after joining `prepend` and `append`
    onto x there.

    Example:
        >>> import dygraph
        >>> dygraph.diff(dygraph.to_tensor([1, 4, 9, 16]), n=2).numpy()
        array([2, 2])
    """
    x = as_tensor(x, "diff")
    nd = x._data.ndim
    if nd == 0:
        raise op_error("diff", "diff needs a tensor with at least 1 dim, got a 0-D tensor",
                       RankIndexError)
    ax = check_axis(axis, nd, "diff")
    parts = [as_tensor(t, "diff") for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = concat([p if p._data.dtype == x._data.dtype else p.astype(x._data.dtype)
                    for p in parts], axis=ax)
    for _ in range(int(n)):
        if x._data.shape[ax] == 0:
            break
        later = apply(GetItem(_step_slice(ax, 1, None)), x)
        earlier = apply(GetItem(_step_slice(ax, 0, -1)), x)
        x = (_math.subtract(later, earlier) if x._data.dtype != np.bool_
             else later != earlier)
    return x


def vander(x, n=None, increasing=False, name=None):
    """Vandermonde matrix of the 1-D x: columns x^(n-1), ..., x^1, x^0 (increasing=True
    reverses them); n defaults to len(x).

    Example:
        >>> import dygraph
        >>> dygraph.vander(dygraph.to_tensor([1, 2, 3]), 3).numpy()
        array([[1, 1, 1],
               [4, 2, 1],
               [9, 3, 1]])
    """
    x = as_tensor(x, "vander")
    if x._data.ndim != 1:
        raise op_error("vander", f"x must be 1-D, got shape {x.shape}")
    n = x._data.shape[0] if n is None else int(n)
    if n < 0:
        raise op_error("vander", f"n must be >= 0, got {n}")
    col = reshape(x, [-1, 1])
    # Repeated products (not pow), so the gradient at x = 0 stays finite.
    powers = [constant(xp_of(x._data).ones((x._data.shape[0], 1)), x)] if n else []
    for _ in range(1, n):
        powers.append(_math.multiply(powers[-1], col))
    if not powers:
        return apply(GetItem((builtins.slice(None), builtins.slice(0, 0))), col)
    if not increasing:
        powers = powers[::-1]
    return concat(powers, axis=1)


def renorm(x, p, axis, max_norm):
    """x with every slice along `axis` whose p-norm exceeds `max_norm` scaled down to that
    norm.

    Example:
        >>> import dygraph
        >>> dygraph.renorm(dygraph.to_tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0).numpy()
        array([[0.6, 0.8],
               [0.3, 0.4]], dtype=float32)
    """
    x = as_tensor(x, "renorm")
    nd = x._data.ndim
    ax = check_axis(axis, nd, "renorm")
    perm = [ax] + [d for d in range(nd) if d != ax]
    norms = norm(reshape(transpose(x, perm), [0, -1]), p=float(p), axis=1)
    view = [1] * nd
    view[ax] = -1
    norms = reshape(norms, view)
    # 1e-7 as in Paddle and PyTorch, so a slice exactly at max_norm stays (nearly) unchanged.
    factor = where(norms > max_norm, float(max_norm) / (norms + 1e-7),
                   constant(1.0, norms))
    return _math.multiply(x, factor)


def reduce_as(x, target, name=None):
    """x summed down to the shape of `target` (the reverse of broadcasting to it).

    Example:
        >>> import dygraph
        >>> dygraph.reduce_as(dygraph.ones([2, 3]), dygraph.zeros([3])).numpy()
        array([2., 2., 2.], dtype=float32)
    """
    x, target = as_tensor(x, "reduce_as"), as_tensor(target, "reduce_as")
    shape, want = x.shape, target.shape
    lead = len(shape) - len(want)
    if lead < 0 or any(w not in (1, s) for s, w in zip(shape[lead:], want)):
        raise op_error("reduce_as", f"x of shape {shape} does not broadcast from target's "
                       f"shape {want}")
    axes = list(range(lead)) + [lead + i for i, (s, w) in enumerate(zip(shape[lead:], want))
                                if w == 1 and s != 1]
    return reshape(_sum(x, axis=axes) if axes else x, want)


def combinations(x, r=2, with_replacement=False, name=None):
    """All length-r combinations of the elements of the 1-D x, one per row (in the order
    of itertools.combinations).

    Example:
        >>> import dygraph
        >>> dygraph.combinations(dygraph.to_tensor([1, 2, 3])).numpy()
        array([[1, 2],
               [1, 3],
               [2, 3]])
    """
    x = as_tensor(x, "combinations")
    if x._data.ndim != 1:
        # Paddle raises TypeError there
        raise op_error("combinations", f"x must be 1-D, got shape {x.shape}", ValueTypeError)
    r = int(r)
    if r < 0:
        raise op_error("combinations", f"r must be >= 0, got {r}")
    pick = (itertools.combinations_with_replacement if with_replacement
            else itertools.combinations)
    if r == 0:  # Paddle gives an empty 1-D tensor
        return apply(GetItem(xp_of(x._data).zeros(0, dtype=np.int64)), x)
    idx = np.asarray(list(pick(range(x._data.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return apply(GetItem(xp_of(x._data).asarray(idx)), x)
