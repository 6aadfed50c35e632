"""Linear maps of dygraph.nn.functional: linear, bilinear, embedding, one_hot, label_smooth.

`linear` is one fused op (every model runs it): a single GEMM over the flattened leading
dims forward, two GEMMs and a column sum backward. `embedding` gathers rows; its gradient
adds the output gradient rows back into the table rows, as a sparse one-hot matrix product
when SciPy is installed (one C loop over the ids, several times faster) and with a flat
`add.at` otherwise. Figures: docs/PERFORMANCE.md#linear-embedding-and-resampling.
"""

import functools

import numpy as np

from dygraph.autograd.backward_math import _NP_MATH, register
from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import capturing, defer_check, min_max
from dygraph.backend.workspace import POOLED_SIZE, workspace
from dygraph.framework.errors import (
    RankIndexError,
    UnsupportedDTypeError,
    UnsupportedIdsError,
    op_error,
)
from dygraph.ops.common import amp_casts, as_tensor, float_operand
from dygraph.ops.linalg.products import matmul
from dygraph.ops.manipulation.args import xp_of
from dygraph.ops.manipulation.shape import reshape, transpose
from dygraph.ops.reduction.reduce import sum as _sum
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["linear", "bilinear", "embedding", "one_hot", "label_smooth"]
NONDIFF = {"one_hot"}

# [None]: not looked up yet; [False]: SciPy is missing; [module]: scipy.sparse.
_SCIPY_SPARSE = [None]


class Linear(Op):
    """x @ w (+ b) with w of shape [in, out], over any number of leading dims of x."""

    complex_grad = "holomorphic"

    save_inputs = True

    def forward(self, xp, x, w, b=None):
        self.x_shape = x.shape
        # One GEMM over all rows: a batched matmul would run one small GEMM per row block.
        rows = x if x.ndim == 2 else x.reshape(-1, w.shape[0])
        if xp is np and x.dtype == w.dtype and len(rows) * w.shape[1] >= POOLED_SIZE:
            # A big result reuses workspace memory (backend/workspace.py).
            y = workspace.output(xp, x.shape[:-1] + (w.shape[1],), x.dtype)
            xp.matmul(rows, w, out=y.reshape(len(rows), w.shape[1]))
        else:
            # xp.matmul, not @: a CUDA graph capture routes the function to cuBLAS
            # (backend/capture_products.py), which the operator would bypass.
            y = xp.matmul(rows, w)
            if x.ndim != 2:  # (a view is a call too: microseconds on a GPU)
                y = y.reshape(x.shape[:-1] + (w.shape[1],))
        if b is not None:
            y += b
        return y

    def backward(self, m, g):
        if type(g) is np.ndarray:
            return self._backward_arrays(g)
        edges = self.edges
        w = self.x(1, m)
        flat = len(self.x_shape) == 2  # the common case needs no reshapes
        g2 = g if flat else m.reshape(g, (-1, m.data(w).shape[1]))
        gx = gw = gb = None
        if edges[0] is not None:
            gx = m.matmul(g2, m.transpose(w, (1, 0)))
            if not flat:
                gx = m.reshape(gx, self.x_shape)
        if edges[1] is not None:
            x2 = self.x(0, m)
            if not flat:
                x2 = m.reshape(x2, (-1, self.x_shape[-1]))
            gw = m.matmul(m.transpose(x2, (1, 0)), g2)
        if len(edges) > 2 and edges[2] is not None:
            gb = m.sum(g2, axis=0)
        return gx, gw, gb

    def _backward_arrays(self, g):
        """The same products on NumPy arrays, without the namespace calls (the training
        step of every MLP runs this)."""
        edges = self.edges
        w = self.x(1, _NP_MATH)
        shape = self.x_shape
        g2 = g if len(shape) == 2 else g.reshape(-1, w.shape[1])
        gx = gw = gb = None
        if edges[0] is not None:
            gx = _product(g2, w.T)
            if len(shape) != 2:
                gx = gx.reshape(shape)
        if edges[1] is not None:
            x2 = self.x(0, _NP_MATH)
            gw = _product((x2 if len(shape) == 2 else x2.reshape(-1, shape[-1])).T, g2)
        if len(edges) > 2 and edges[2] is not None:
            gb = _bias_grad(g2)
        return gx, gw, gb


# The dtype _bias_grad adds partial sums in, for the dtypes that have a wider one.
_WIDER = {np.dtype(np.float32): np.dtype(np.float64),
          np.dtype(np.complex64): np.dtype(np.complex128),
          np.dtype(np.float16): np.dtype(np.float64)}
# Rows a partial sum of _bias_grad adds in g's own dtype: 16 from _MANY_ROWS rows on, as
# many as each of the 8 accumulators of NumPy's pairwise base case (128 values) adds there,
# and 8 below, where NumPy's accumulators add fewer. Under _MANY_ROWS rows a gradient of at
# most _NARROW columns is summed transposed (the BLAS products pay from there on).
_SLICE_ROWS, _FEW_SLICE_ROWS, _MANY_ROWS, _NARROW = 16, 8, 256, 16
@functools.lru_cache(maxsize=128)
def _ones(n, dtype):
    """A read-only vector of n ones: the left operand of _bias_grad's BLAS products."""
    ones = np.ones(n, dtype)
    ones.flags.writeable = False
    return ones


def _bias_grad(g2):
    """g2 (rows, out) summed over its rows, as accurately as np.sum's pairwise sum of each
    column or better. g2.sum(0) adds whole rows one after another, a running sum whose
    error grows with the row count (18x the pairwise error over 4096 rows), and summing
    every row in float64 casts every value. Here the rows are added in slices of
    _SLICE_ROWS (or _FEW_SLICE_ROWS) rows in g2's dtype, then the k partial rows in
    float64. On C-ordered g2 a slice is rows i, i + k, i + 2k, ...: g2 viewed as
    (_SLICE_ROWS, k * out) times a vector of ones, one BLAS product, faster than g2.sum(0)
    from _MANY_ROWS rows on; other strides (a broadcast gradient has none) take blocks of
    consecutive rows, a view too. The partial rows are cast and summed by a float64 BLAS
    product (NumPy's sum with dtype=float64 casts through a buffer, the slower way).
    float64 and complex128 keep their running sum: there is no wider type to add in.

    Example:
        >>> _bias_grad(np.ones((40, 3), np.float32))
        array([40., 40., 40.], dtype=float32)
    """
    wide = _WIDER.get(g2.dtype)
    if wide is None or g2.strides[0] == g2.itemsize:
        # Columns laid out contiguously (a transposed gradient) are summed pairwise already.
        return g2.sum(0)
    n, m = g2.shape
    if m <= _NARROW and n < _MANY_ROWS:
        # A classifier's few columns: copied transposed, each summed pairwise.
        return np.ascontiguousarray(g2.T).sum(1)
    rows = _SLICE_ROWS if n >= _MANY_ROWS else _FEW_SLICE_ROWS
    k = n // rows
    # float16 partial sums would keep 11 bits: its rows are all added in float64.
    if k < 2 or g2.dtype == np.float16:
        return np.dot(_ones(n, wide), g2.astype(wide)).astype(g2.dtype)
    cut = k * rows
    head = g2 if cut == n else g2[:cut]
    if head.flags.c_contiguous:
        partial = np.dot(_ones(rows, g2.dtype), head.reshape(rows, k * m))
    else:
        partial = head.reshape(k, rows, m).sum(1)
    total = np.dot(_ones(k, wide), partial.reshape(k, m).astype(wide))
    if cut < n:
        total += np.dot(_ones(n - cut, wide), g2[cut:].astype(wide))
    return total.astype(g2.dtype)


def _product(a, b):
    """a @ b, a big result in workspace memory (fresh multi-MB arrays cost page faults
    every step: docs/PERFORMANCE.md#workspace)."""
    if a.dtype != b.dtype or len(a) * b.shape[1] < POOLED_SIZE:
        return a @ b
    return np.matmul(a, b, out=workspace.output(np, (len(a), b.shape[1]), a.dtype))


def linear(x, weight, bias=None, name=None):
    """x @ weight + bias. weight has shape [in_features, out_features] (Paddle's layout),
    bias [out_features]; x has shape [..., in_features].

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([[1.0, 2.0]])
        >>> w = dygraph.to_tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
        >>> F.linear(x, w, dygraph.to_tensor([0.5, 0.5, 0.5])).numpy()
        array([[1.5, 2.5, 3.5]], dtype=float32)
    """
    x = as_tensor(x, "linear")
    weight = as_tensor(weight, "linear")
    xd, wd = x._data, weight._data
    if wd.ndim == 1 and xd.ndim >= 1 and xd.shape[-1] == wd.shape[0]:
        # a vector weight (one output feature, its axis dropped): x @ weight, as Paddle
        out = matmul(x, weight)
        return out if bias is None else out + as_tensor(bias, "linear")
    if wd.ndim != 2 or xd.ndim < 1 or xd.shape[-1] != wd.shape[0]:
        raise op_error("linear", f"x of shape {list(xd.shape)} does not fit weight of shape "
                       f"{list(wd.shape)}; expected weight [in_features, out_features] with "
                       "in_features equal to the last dim of x")
    if xd.dtype != wd.dtype and not amp_casts():
        # Paddle and PyTorch refuse this too: a silent cast would hide integer features
        # fed by mistake (labels, ids) and float64 data doubling the cost of a layer.
        raise op_error("linear", f"x dtype {xd.dtype.name} differs from weight dtype "
                       f"{wd.dtype.name}; cast x first, e.g. x.astype('{wd.dtype.name}')")
    if bias is None:
        return apply(Linear(), x, weight)
    bias = as_tensor(bias, "linear")
    bd = bias._data
    if bd.size != wd.shape[1] or (bd.dtype != wd.dtype and not amp_casts()):
        raise op_error("linear", f"bias of shape {list(bd.shape)} and dtype {bd.dtype.name} "
                       f"does not fit weight of shape {list(wd.shape)} and dtype "
                       f"{wd.dtype.name}; expected [{wd.shape[1]}]")
    if bd.ndim != 1:
        bias = reshape(bias, [-1])
    return apply(Linear(), x, weight, bias)


def bilinear(x1, x2, weight, bias=None, name=None):
    """out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[0, o], with weight of shape
    [out_features, in1_features, in2_features] and bias [1, out_features].

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> w = dygraph.ones([1, 2, 2])
        >>> F.bilinear(dygraph.to_tensor([[1.0, 2.0]]), dygraph.to_tensor([[3.0, 4.0]]), w).numpy()
        array([[21.]], dtype=float32)
    """
    x1, x2 = float_operand(x1, "bilinear"), float_operand(x2, "bilinear")
    weight = as_tensor(weight, "bilinear")
    s1, s2, sw = x1._data.shape, x2._data.shape, weight._data.shape
    if (len(sw) != 3 or len(s1) != 2 or len(s2) != 2 or s1[0] != s2[0]
            or s1[1] != sw[1] or s2[1] != sw[2]):
        raise op_error("bilinear", f"x1 of shape {list(s1)} and x2 of shape {list(s2)} do not "
                       f"fit weight of shape {list(sw)}; expected x1 [N, in1], x2 [N, in2] "
                       "and weight [out, in1, in2]")
    n_out, n_in1, n_in2 = sw
    # One GEMM gives every x1[n] @ weight[o] at once; a product with x2 and a sum finish it.
    w2 = reshape(transpose(weight, [1, 0, 2]), [n_in1, n_out * n_in2])
    # (-1, not the batch size: a static program's batch is free)
    left = reshape(matmul(x1, w2), [-1, n_out, n_in2])
    out = _sum(left * reshape(x2, [-1, 1, n_in2]), axis=-1)
    if bias is not None:
        out = out + reshape(as_tensor(bias, "bilinear"), [1, n_out])
    return out


def _check_ids(x, n_rows, op, bad_dtype=TypeError):
    ids = as_tensor(x, op)._data
    if ids.dtype.kind not in "iu":
        raise op_error(op, f"x must be an int32 or int64 tensor of ids, got dtype "
                       f"{ids.dtype.name} (shape {list(ids.shape)})",
                       bad_dtype if ids.dtype.kind != "b" else UnsupportedDTypeError)
    if n_rows is None or not ids.size:  # the dtype only
        return ids
    bound = "the number of rows of weight" if op == "embedding" else "num_classes"
    if capturing():  # inside a CUDA graph no value reaches the host: checked after the run
        defer_check(((ids < 0) | (ids >= n_rows)).any(), lambda: op_error(
            op, f"ids out of range: expected 0 <= id < {n_rows} ({bound})"))
        return ids
    low, high = min_max(ids)
    if low < 0 or high >= n_rows:
        bad = low if low < 0 else high
        raise op_error(op, f"id {bad} is out of range: expected 0 <= id < {n_rows} ({bound})")
    return ids


def _pad_row(padding_idx, n_rows, op):
    if padding_idx is None:
        return None
    if not -n_rows <= padding_idx < n_rows:
        raise op_error(op, f"padding_idx must be within [-{n_rows}, {n_rows}), "
                       f"got {padding_idx}")
    return int(padding_idx) % n_rows


def _lookup(xp, w, ids, pad):
    out = w.take(ids, axis=0)
    if pad is not None:
        hit = ids == pad
        if xp is not np:  # no read of `hit` on the host: a GPU would wait for it
            return xp.where(hit[..., None], xp.zeros((), out.dtype), out)
        if hit.any():
            out[hit] = 0
    return out


def _sparse():
    """scipy.sparse when installed (imported on first use: its import is slow), else None."""
    if _SCIPY_SPARSE[0] is None:
        try:
            import scipy.sparse as sparse
        except ImportError:
            sparse = False
        _SCIPY_SPARSE[0] = sparse
    return _SCIPY_SPARSE[0] or None


def _row_sums(xp, g, ids, n_rows, pad):
    """zeros([n_rows, dim]) with each row of g added into row ids[i]: the adjoint of lookup."""
    dim = g.shape[-1]
    flat, g2 = ids.reshape(-1), g.reshape(-1, dim)
    sparse = _sparse() if xp is np and g.dtype.itemsize >= 4 else None
    if sparse is not None:
        # A one-hot [n_rows, ids] CSR matrix times g: one C loop over the ids.
        onehot = sparse.csr_matrix((np.ones(flat.size, g.dtype), (flat, np.arange(flat.size))),
                                   shape=(n_rows, flat.size))
        out = np.asarray(onehot @ g2)
    elif xp is np:
        # add.at on a flat index is NumPy's fast path (2-D row indices take a slower one).
        out = np.zeros(n_rows * dim, g.dtype)
        np.add.at(out, (flat.astype(np.int64)[:, None] * dim + np.arange(dim)).ravel(), g2.ravel())
        out = out.reshape(n_rows, dim)
    else:
        out = xp.zeros((n_rows, dim), g.dtype)
        xp.add.at(out, flat, g2)
    if pad is not None:
        out[pad] = 0
    return out


class Lookup(Op):
    """Rows of the weight at constant ids (zeros for the padding id)."""

    attrs = ("ids", "pad")

    complex_grad = "same"

    def __init__(self, ids, pad):
        self.ids, self.pad = ids, pad

    def forward(self, xp, w):
        self.n_rows = w.shape[0]
        return _lookup(xp, w, self.ids, self.pad)

    def backward(self, m, g):
        return (m.nn_row_sums(g, self.ids, self.n_rows, self.pad),)


class RowSums(Op):
    """The adjoint of Lookup; its own gradient is a lookup again (double backward)."""

    attrs = ("ids", "n_rows", "pad")

    complex_grad = "same"

    def __init__(self, ids, n_rows, pad):
        self.ids, self.n_rows, self.pad = ids, n_rows, pad

    def forward(self, xp, g):
        return _row_sums(xp, g, self.ids, self.n_rows, self.pad)

    def backward(self, m, gg):
        return (m.nn_lookup(gg, self.ids, self.pad),)


register("nn_row_sums",
         lambda xp: (lambda g, ids, n, pad: _row_sums(xp, g, ids, n, pad)),
         lambda g, ids, n, pad: apply(RowSums(ids, n, pad), g))
register("nn_lookup",
         lambda xp: (lambda w, ids, pad: _lookup(xp, w, ids, pad)),
         lambda w, ids, pad: apply(Lookup(ids, pad), w))


# The ids are an attribute of the Lookup op (no gradient reaches them): static mode records
# the whole call, so a program looks up each run's ids, not the build-time stand-in's.
@captured_whole
def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    """Rows of `weight` ([num_embeddings, embedding_dim]) at the int ids `x`; the result has
    shape x.shape + [embedding_dim]. Ids equal to padding_idx (negative counts from the end)
    give zero rows and add nothing to weight's gradient. With max_norm, the looked-up rows
    whose norm_type-norm exceeds it are first rescaled to max_norm in weight itself; with
    scale_grad_by_freq, each row's gradient is divided by how often its id occurs in x.
    `sparse` is accepted for compatibility; gradients are dense.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> w = dygraph.to_tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
        >>> F.embedding(dygraph.to_tensor([2, 0]), w, padding_idx=0).numpy()
        array([[2., 2.],
               [0., 0.]], dtype=float32)
    """
    if isinstance(max_norm, bool):
        # Paddle 2's order had `sparse` (which changes nothing here) fourth.
        max_norm = None
    weight = as_tensor(weight, "embedding")
    wd = weight._data
    if wd.ndim != 2:
        # (too few dims: Paddle's IndexError as well)
        raise op_error("embedding", f"weight must be 2-D [num_embeddings, embedding_dim], got "
                       f"shape {list(wd.shape)}", RankIndexError if wd.ndim < 2 else ValueError)
    ids = _check_ids(x, wd.shape[0], "embedding", UnsupportedIdsError)
    if type(ids) is not type(wd):
        ids = xp_of(wd).asarray(ids)
    if max_norm is not None:
        _renorm_rows(wd, ids, float(max_norm), float(norm_type))
        weight._version[0] += 1
    out = apply(Lookup(ids, _pad_row(padding_idx, wd.shape[0], "embedding")), weight)
    if scale_grad_by_freq and not out._sg:
        xp = xp_of(ids)
        _, inverse, counts = xp.unique(ids.reshape(-1), return_inverse=True,
                                       return_counts=True)
        scale = (1.0 / counts[inverse]).reshape(ids.shape + (1,)).astype(wd.dtype)
        # The same values (out - frozen is 0), with the gradient scaled per position.
        frozen = out.detach()
        out = frozen + (out - frozen) * _new_tensor(scale, None, 0, True)
    return out


def _renorm_rows(wd, ids, max_norm, norm_type):
    """Rescale in place the rows of wd used by ids whose norm exceeds max_norm."""
    xp = xp_of(wd)
    rows = xp.unique(ids.reshape(-1))
    norms = (xp.abs(wd[rows]) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    big = norms > max_norm
    if bool(big.any()):
        scale = max_norm / (norms[big] + 1e-7)
        wd[rows[big]] *= scale[:, None].astype(wd.dtype)


@captured_whole
def one_hot(x, num_classes=-1, name=None):
    """One-hot float32 rows: shape x.shape + [num_classes], 1 at each id (no gradient).
    num_classes=-1 takes the largest id plus one.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.one_hot(dygraph.to_tensor([1, 0]), 3).numpy()
        array([[0., 1., 0.],
               [1., 0., 0.]], dtype=float32)
    """
    num_classes = int(num_classes.item()) if isinstance(num_classes, Tensor) else num_classes
    x = as_tensor(x, "one_hot")
    if num_classes == -1:
        if x._data.size == 0:
            raise op_error("one_hot", "num_classes=-1 takes the largest id plus one, but x "
                           f"of shape {x.shape} is empty; give num_classes")
        # a negative id is refused by _check_ids below, with num_classes >= 1
        num_classes = max(int(_check_ids(x, None, "one_hot", UnsupportedDTypeError).max()) + 1,
                          1)
    elif int(num_classes) < 1:
        raise op_error("one_hot", f"num_classes must be positive, got {num_classes}")
    ids = _check_ids(x, int(num_classes), "one_hot", UnsupportedDTypeError)
    xp = xp_of(ids)
    flat = ids.reshape(-1)
    out = xp.zeros((flat.size, int(num_classes)), np.float32)
    out[xp.arange(flat.size), flat] = 1.0
    return _new_tensor(out.reshape(ids.shape + (int(num_classes),)), None, 0, True)


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """(1 - epsilon) * label + epsilon * prior_dist, the prior being uniform (1 / classes,
    classes = the last dim of label) when not given.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> F.label_smooth(dygraph.to_tensor([[0.0, 1.0]]), epsilon=0.5).numpy()
        array([[0.25, 0.75]], dtype=float32)
    """
    label = float_operand(label, "label_smooth")
    if not 0.0 <= float(epsilon) <= 1.0:
        raise op_error("label_smooth", f"epsilon must be in [0, 1], got {epsilon}")
    epsilon = float(epsilon)
    if prior_dist is None:
        return label * (1.0 - epsilon) + epsilon / label._data.shape[-1]
    prior = float_operand(prior_dist, "label_smooth")
    return label * (1.0 - epsilon) + prior * epsilon
