"""Element-wise functions of sparse tensors that map zero to zero: each computes the dense
op on the stored values and keeps the index structure (COO or CSR).

Example:
    >>> import dygraph
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 4.0], [3])
    >>> dygraph.sparse.abs(x).values().numpy().tolist()
    [1.0, 4.0]
"""

from dygraph import ops as _ops
from dygraph.framework import dtype as _dt
from dygraph.framework.errors import op_error
from dygraph.sparse.formats import check_sparse, index_tensor
from dygraph.sparse.tensor import SparseCooTensor, SparseCsrTensor

__all__ = ["abs", "asin", "asinh", "atan", "atanh", "deg2rad", "expm1", "log1p", "neg",
           "rad2deg", "sin", "sinh", "sqrt", "square", "tan", "tanh", "isnan", "pow", "cast",
           "map_values"]

_EXAMPLE = """

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 2]], [0.25, 0.5], [3])
        >>> y = dygraph.sparse.{name}(x)
        >>> bool((y.values() == dygraph.{name}(x.values())).all()), y.indices().tolist()
        (True, [[0, 2]])
    """


def map_values(x, fn, op):
    """x's structure with values fn(x.values()): the building block of this module."""
    x = check_sparse(x, op)
    return x._with_values(fn(x._values))


def _unary(name):
    dense = getattr(_ops, name)

    def fn(x, name=None):
        return map_values(x, dense, fn.__name__)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"`{name}` of each stored value of a sparse COO or CSR tensor; the "
                  "structure is kept." + _EXAMPLE.format(name=name))
    return fn


abs = _unary("abs")  # noqa: A001 - Paddle's name
asin = _unary("asin")
asinh = _unary("asinh")
atan = _unary("atan")
atanh = _unary("atanh")
deg2rad = _unary("deg2rad")
expm1 = _unary("expm1")
log1p = _unary("log1p")
neg = _unary("neg")
rad2deg = _unary("rad2deg")
sin = _unary("sin")
sinh = _unary("sinh")
sqrt = _unary("sqrt")
square = _unary("square")
tan = _unary("tan")
tanh = _unary("tanh")
isnan = _unary("isnan")


def pow(x, factor, name=None):  # noqa: A001 - Paddle's name
    """Each stored value raised to `factor` (a number).

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 2]], [2.0, 3.0], [3])
        >>> dygraph.sparse.pow(x, 2).to_dense().numpy().tolist()
        [4.0, 0.0, 9.0]
    """
    return map_values(x, lambda v: _ops.pow(v, factor), "pow")


def cast(x, index_dtype=None, value_dtype=None, name=None):
    """x with its indices (crows and cols for CSR) and/or values converted to other dtypes.

    Example:
        >>> import dygraph
        >>> x = dygraph.sparse.sparse_coo_tensor([[0, 2]], [2.0, 3.0], [3])
        >>> y = dygraph.sparse.cast(x, 'int32', 'float64')
        >>> y.indices().dtype, y.dtype
        (dygraph.int32, dygraph.float64)
    """
    x = check_sparse(x, "cast")
    values = x._values if value_dtype is None else _ops.cast(x._values, value_dtype)
    if index_dtype is None:
        return x._with_values(values)
    kind = _dt.convert_dtype(index_dtype).np_dtype
    if kind.kind not in "iu":
        raise op_error("cast", f"index_dtype must be an integer type, got {index_dtype}",
                       TypeError)

    def conv(t):
        return index_tensor(t._data.astype(kind))

    if x.format == "coo":
        return SparseCooTensor(conv(x._indices), values, x._dense_shape, x._coalesced)
    return SparseCsrTensor(conv(x._crows), conv(x._cols), values, x._dense_shape)
