"""Sparse convolutions of COO point sets: conv2d/conv3d and their submanifold forms.

x is a COO tensor [N, *spatial, C_in] with sparse_dim 1 + nd (batch and position) and
values [nnz, C_in]; the weight is dense [*kernel, C_in, C_out]. A convolution outputs at
every position its window reaches from an input point (sorted); a submanifold one
outputs at the input's own points, the kernel centred on each, so the pattern stays put
through a stack of layers.

The product is one matrix multiply: the neighbour table (rulebook.py) gathers each
output's kernel-window rows of the input features, with a zero row where no point is,
into [n_out, kernel volume * C_in], which times the weight reshaped to
[kernel volume * C_in, C_out] gives the output features. The gather (a sparse selection
product, see window_rows) and the product are ops, so the features and the weight get
gradients (double backward too). Memory is n_out * kernel volume * C_in elements for the
gathered block.

Example:
    >>> import dygraph
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 1]], [[1.0], [2.0]],
    ...                                      [1, 2, 2, 1])
    >>> w = dygraph.ones([3, 3, 1, 1])
    >>> y = dygraph.sparse.nn.functional.subm_conv2d(x, w, padding=1)
    >>> y.indices().tolist(), y.values().numpy().tolist()
    ([[0, 0], [0, 1], [1, 1]], [[3.0], [3.0]])
"""

from dygraph import ops as _ops
from dygraph.autograd.function import apply
from dygraph.framework.errors import op_error
from dygraph.sparse.dense_product import RowLayout, SparseDenseMatmul
from dygraph.sparse.formats import check_sparse, coalesce, index_tensor, xp_of
from dygraph.sparse.nn.functional.rulebook import (
    neighbour_table,
    output_points,
    window_geometry,
)
from dygraph.sparse.tensor import SparseCooTensor, SparseTensor
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["conv2d", "conv3d", "subm_conv2d", "subm_conv3d", "subm_conv2d_igemm",
           "subm_conv3d_igemm", "window_rows"]

_LAYOUTS = {2: "NHWC", 3: "NDHWC"}


def check_points(x, nd, op, data_format):
    """x as a coalesced COO point set [N, *spatial(nd), C]."""
    x = check_sparse(x, op, ("coo",))
    if data_format != _LAYOUTS[nd]:
        raise op_error(op, f"sparse inputs are channels-last: data_format must be "
                       f"{_LAYOUTS[nd]!r}, got {data_format!r}")
    if x.ndim != nd + 2 or x.sparse_dim() != nd + 1:
        raise op_error(op, f"x must be a COO tensor [N, {', '.join('DHW'[3 - nd:])}, C] "
                       f"with sparse_dim {nd + 1}, got shape {x.shape} with sparse_dim "
                       f"{x.sparse_dim()}")
    return coalesce(x)


def window_rows(values, table, fill=None):
    """values' rows at each entry of the neighbour table [n_out, taps] -> [n_out, taps,
    C]; where the table holds -1 the row is zeros (or `fill`, a number).

    The gather is the product of a selection matrix S [n_out * taps, n] (a one where an
    entry reads a row) with the values, so its gradient S^T @ g is a sparse product too
    (SciPy's, where installed) rather than a scatter-add of rows."""
    xp = xp_of(table)
    flat = table.reshape(-1)
    entries = xp.nonzero(flat >= 0)[0]
    layout = RowLayout.from_coo(xp, entries, flat[entries], (flat.shape[0], values.shape[0]))
    ones = _new_tensor(xp.ones(entries.shape[0], dtype=values.dtype.np_dtype), None, 0, True)
    rows = apply(SparseDenseMatmul(*layout.attrs()), ones, values)
    if fill is not None:
        absent = xp.where(flat[:, None] < 0, fill, 0).astype(values.dtype.np_dtype)
        rows = _ops.add(rows, _new_tensor(absent, None, 0, True))
    return _ops.reshape(rows, list(table.shape) + [values.shape[1]])


def _conv(x, weight, bias, stride, padding, dilation, groups, data_format, nd, subm, op):
    x = check_points(x, nd, op, data_format)
    if not isinstance(weight, Tensor) or isinstance(weight, SparseTensor):
        raise op_error(op, f"weight must be a dense Tensor, got {type(weight).__name__}",
                       TypeError)
    if groups != 1:
        raise op_error(op, f"sparse convolutions have groups=1, got {groups}")
    c_in = x.shape[-1]
    if weight.ndim != nd + 2 or weight.shape[-2] != c_in:
        raise op_error(op, f"weight must be [{', '.join(['k'] * nd)}, C_in={c_in}, C_out], "
                       f"got shape {weight.shape}")
    if weight.dtype != x.dtype:
        raise op_error(op, f"x ({x.dtype.name}) and weight ({weight.dtype.name}) must have "
                       "the same dtype", TypeError)
    kernel, c_out = weight.shape[:nd], weight.shape[-1]
    spatial = x.shape[1:-1]
    # A submanifold convolution centres the kernel on each point: no stride, no padding.
    window = (window_geometry(op, spatial, kernel, 1, "SAME", dilation) if subm else
              window_geometry(op, spatial, kernel, stride, padding, dilation))
    points = x._indices._data.T
    if subm:
        out_points, out_size, coalesced = points, spatial, x._coalesced
    else:
        out_points, out_size, coalesced = output_points(points, window), window.out_size, True
    table = neighbour_table(points, out_points, window, subm)
    taps = table.shape[1]
    rows = window_rows(x._values, table)
    flat = _ops.reshape(rows, [table.shape[0], taps * c_in])
    out = _ops.matmul(flat, _ops.reshape(weight, [taps * c_in, c_out]))
    if bias is not None:
        if list(bias.shape) != [c_out]:
            raise op_error(op, f"bias must have shape [{c_out}], got {bias.shape}")
        out = _ops.add(out, bias)
    indices = x._indices if subm else index_tensor(
        xp_of(out_points).ascontiguousarray(out_points.T))
    shape = [x.shape[0], *out_size, c_out]
    return SparseCooTensor(indices, out, shape, coalesced)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NDHWC", name=None):
    """3-D sparse convolution of a COO point set [N, D, H, W, C_in] by a weight
    [kD, kH, kW, C_in, C_out]: outputs at every position its window reaches.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[2.0]],
        ...                                      [1, 3, 3, 3, 1])
        >>> y = dygraph.sparse.nn.functional.conv3d(x, dygraph.ones([2, 2, 2, 1, 1]))
        >>> y.shape, y.nnz()
        ([1, 2, 2, 2, 1], 8)
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3, False,
                 "conv3d")


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NHWC", name=None):
    """2-D sparse convolution of a COO point set [N, H, W, C_in] by a weight
    [kH, kW, C_in, C_out].

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 2]], [[1.0], [2.0]],
        ...                                      [1, 3, 3, 1])
        >>> y = dygraph.sparse.nn.functional.conv2d(x, dygraph.ones([2, 2, 1, 1]))
        >>> y.indices().tolist(), y.values().numpy().ravel().tolist()
        ([[0, 0, 0], [0, 0, 1], [0, 1, 1]], [1.0, 3.0, 2.0])
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2, False,
                 "conv2d")


def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                data_format="NDHWC", key=None, name=None):
    """Submanifold 3-D sparse convolution: outputs at x's own points, the kernel centred on
    each (stride and padding do not apply, as Paddle's; `key` named a cached rulebook in
    Paddle and is accepted for its signature).

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 0], [0, 1]],
        ...                                      [[1.0], [2.0]], [1, 1, 1, 2, 1])
        >>> w = dygraph.ones([3, 3, 3, 1, 1])
        >>> dygraph.sparse.nn.functional.subm_conv3d(x, w).values().numpy().ravel().tolist()
        [3.0, 3.0]
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3, True,
                 "subm_conv3d")


def subm_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                data_format="NHWC", key=None, name=None):
    """Submanifold 2-D sparse convolution: outputs at x's own points (see subm_conv3d).

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0], [0, 2], [0, 0]], [[1.0], [2.0]],
        ...                                      [1, 3, 3, 1])
        >>> w = dygraph.ones([3, 3, 1, 1])
        >>> dygraph.sparse.nn.functional.subm_conv2d(x, w).values().numpy().ravel().tolist()
        [1.0, 2.0]
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2, True,
                 "subm_conv2d")


def subm_conv3d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      data_format="NDHWC", key=None, name=None):
    """subm_conv3d by Paddle's implicit-GEMM kernel name; here the same computation.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0], [0], [0], [0]], [[2.0]], [1, 1, 1, 1, 1])
        >>> F = dygraph.sparse.nn.functional
        >>> F.subm_conv3d_igemm(x, dygraph.ones([1, 1, 1, 1, 1])).values().numpy().tolist()
        [[2.0]]
    """
    return subm_conv3d(x, weight, bias, stride, padding, dilation, groups, data_format, key)


def subm_conv2d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      data_format="NHWC", key=None, name=None):
    """subm_conv2d by Paddle's implicit-GEMM kernel name; here the same computation.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0], [0], [0]], [[2.0]], [1, 1, 1, 1])
        >>> F = dygraph.sparse.nn.functional
        >>> F.subm_conv2d_igemm(x, dygraph.ones([1, 1, 1, 1])).values().numpy().tolist()
        [[2.0]]
    """
    return subm_conv2d(x, weight, bias, stride, padding, dilation, groups, data_format, key)
