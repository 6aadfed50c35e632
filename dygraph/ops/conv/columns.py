"""The column paths of a conv: im2col + GEMM, the 1x1 products that need no columns, and
the data gradient by rows.

With the column layout of im2col.py, (C*K, N*L),

    forward          y  = W (M, C*K) @ cols (C*K, N*L), then (M, N, L) -> (N, M, L)
    filter gradient  dW = (cols @ gT.T).T with gT = g as (M, N*L)
    data gradient    dx = col2im(W.T @ gT)

are single GEMMs over the whole batch; the first layers of a net (many output positions per
sample, few taps: dygraph.ops.conv.paths.per_sample) run one GEMM per sample instead, which writes
(N, M, L) directly. A 1x1 conv with stride 1 and no padding (`pointwise_*`) reads x as its
columns. The data gradient of a stride-1 last dim can fold that dim's taps into the GEMM
instead (`data_by_rows`): a GEMM about W/O times larger, but no col2im pass for that dim,
the costliest one because its rows are the shortest.

Every function takes its arrays in any layout (broadcast, transposed, reversed or sliced
views): reshapes copy where a view cannot be made, and the one BLAS call on the caller's
arrays (pointwise_filter's) gets C-ordered copies of non-contiguous ones.

Example:
    >>> import numpy as np
    >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
    >>> im2col_forward(np, np.ones((1, 1, 4)), np.ones((1, 1, 2)), None, geo)[0]
    array([[[2., 2., 2.]]])
"""

from dygraph.backend import blas
from dygraph.backend.workspace import Lease, workspace
from dygraph.ops.conv.im2col import Geometry, chunk, col2im, im2col, prod
from dygraph.ops.conv.paths import per_sample

__all__ = ["transpose_grad", "im2col_forward", "im2col_data", "im2col_filter",
           "pointwise_forward", "pointwise_data", "pointwise_filter", "data_by_rows"]

# Below this many output positions (over the batch) the filter gradient is computed in the
# filter's own layout (see im2col_filter).
_FILTER_FLIP_POSITIONS = 512


def transpose_grad(xp, g):
    """g (N, M, *O) -> gT (M, N*L), contiguous, in a workspace buffer (give it back after).

    Example:
        >>> import numpy as np
        >>> transpose_grad(np, np.arange(4.0).reshape(2, 2, 1))
        array([[0., 2.],
               [1., 3.]])
    """
    n, m = g.shape[:2]
    out_len = prod(g.shape[2:])
    gt = workspace.take(xp, (m, n * out_len), g.dtype)
    gt.reshape(m, n, out_len)[...] = g.reshape(n, m, out_len).swapaxes(0, 1)
    return gt


def _add_bias(xp, src, b, dst):
    """dst = src + b per channel (axis 1 of (N, M, L)), or src where b is None."""
    if b is None:
        dst[...] = src
    else:
        xp.add(src, b.reshape(1, -1, 1), out=dst)


def pointwise_forward(xp, x, w, b, geo):
    """(y, None) of a 1x1 conv with stride 1 and no padding: y[n] = W x[n] per group,
    written in place; the columns are x itself.

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> pointwise_forward(np, np.ones((1, 2, 3)), np.ones((1, 2, 1)), None, geo)[0]
        array([[[2., 2., 2.]]])
    """
    n, c = x.shape[:2]
    m, grp, out_len = w.shape[0], geo.groups, prod(x.shape[2:])
    out = workspace.output(xp, (n, m) + tuple(x.shape[2:]), x.dtype)
    xp.matmul(w.reshape(grp, m // grp, c // grp), x.reshape(n, grp, c // grp, out_len),
              out=out.reshape(n, grp, m // grp, out_len))
    if b is not None:
        flat = out.reshape(n, m, out_len)
        flat += b.reshape(1, m, 1)
    return out, None


def im2col_forward(xp, x, w, b, geo, keep_cols=False):
    """(y, cols) of conv(x, w) + b through columns: cols is a Lease of them when keep_cols
    and the batch fit in one chunk (the filter gradient reuses them), else None.

    Example: the module's.
    """
    n, c = x.shape[:2]
    m, ksize = w.shape[0], w.shape[2:]
    osz = geo.out_sizes(x.shape[2:], ksize)
    out_len, taps, grp = prod(osz), c * prod(ksize), geo.groups
    out = workspace.output(xp, (n, m) + osz, x.dtype)
    w3 = w.reshape(grp, m // grp, taps // grp)
    batched = per_sample(taps, grp, out_len)
    step = chunk(n, taps * out_len * x.itemsize)
    kept = None
    for n0 in range(0, n, step):
        part = x[n0:n0 + step]
        nc = part.shape[0]
        dst = out[n0:n0 + nc].reshape(nc, m, out_len)
        cols = im2col(xp, part, ksize, geo,
                      out=workspace.take(xp, (taps, nc * out_len), x.dtype))
        if batched:
            xp.matmul(w3, cols.reshape(grp, taps // grp, nc, out_len).transpose(2, 0, 1, 3),
                      out=dst.reshape(nc, grp, m // grp, out_len))
            if b is not None:
                dst += b.reshape(1, m, 1)
        else:
            y = workspace.take(xp, (grp, m // grp, nc * out_len), x.dtype)
            xp.matmul(w3, cols.reshape(grp, taps // grp, -1), out=y)
            _add_bias(xp, y.reshape(m, nc, out_len).swapaxes(0, 1), b, dst)
            workspace.give(y)
        if keep_cols and nc == n:
            kept = Lease(cols)
        else:
            workspace.give(cols)
    return out, kept


def pointwise_data(xp, g, w, in_sizes, geo):
    """dx of a 1x1 conv with stride 1 and no padding: dx[n] = W^T g[n] per group, written
    in place; no columns to fold back.

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> pointwise_data(np, np.ones((1, 1, 2)), np.full((1, 2, 1), 3.0), (2,), geo)
        array([[[3., 3.],
                [3., 3.]]])
    """
    n, m = g.shape[:2]
    grp = geo.groups
    c = w.shape[1] * grp
    out = workspace.output(xp, (n, c) + tuple(in_sizes), g.dtype)
    wt = w.reshape(grp, m // grp, c // grp).swapaxes(1, 2)
    out_len = prod(in_sizes)
    xp.matmul(wt, g.reshape(n, grp, m // grp, out_len),
              out=out.reshape(n, grp, c // grp, out_len))
    return out


def im2col_data(xp, g, w, in_sizes, geo, gt=None):
    """dx (N, C, *in_sizes) of conv from g (N, M, *O) through columns folded back by
    col2im. `gt` is transpose_grad(g) when the caller has it (the batch-wide GEMM reads it).

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> im2col_data(np, np.ones((1, 1, 3)), np.ones((1, 1, 2)), (4,), geo)
        array([[[1., 2., 2., 1.]]])
    """
    n, m = g.shape[:2]
    ksize, osz, grp = w.shape[2:], g.shape[2:], geo.groups
    c = w.shape[1] * grp
    out_len, taps = prod(osz), c * prod(ksize)
    batched = per_sample(taps, grp, out_len)
    own = gt is None and not batched
    if own:
        gt = transpose_grad(xp, g)
    out = workspace.output(xp, (n, c) + tuple(in_sizes), g.dtype, zero=True)
    wt = w.reshape(grp, m // grp, taps // grp).swapaxes(1, 2)
    step = chunk(n, taps * out_len * g.itemsize)
    for n0 in range(0, n, step):
        nc = min(step, n - n0)
        dcols = workspace.take(xp, (grp, taps // grp, nc, out_len), g.dtype)
        if batched:
            xp.matmul(wt, g[n0:n0 + nc].reshape(nc, grp, m // grp, out_len),
                      out=dcols.transpose(2, 0, 1, 3))
        else:
            xp.matmul(wt, gt[:, n0 * out_len:(n0 + nc) * out_len].reshape(grp, m // grp, -1),
                      out=dcols.reshape(grp, taps // grp, -1))
        col2im(xp, dcols, c, ksize, osz, in_sizes, geo, out[n0:n0 + nc])
        workspace.give(dcols)
    if own:
        workspace.give(gt)
    return out


def pointwise_filter(xp, x, g, ksize, geo):
    """dW of a 1x1 conv with stride 1 and no padding, from x and g as they are.

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> pointwise_filter(np, np.arange(4.0).reshape(1, 2, 2), np.ones((1, 1, 2)), (1,), geo)
        array([[[1.],
                [5.]]])
    """
    n, c = x.shape[:2]
    m, grp = g.shape[1], geo.groups
    out_len = prod(g.shape[2:])
    result = workspace.output(xp, (m, c // grp) + tuple(ksize), x.dtype)
    if n == 0:
        result.fill(0)
        return result
    if grp == 1 and blas.available(xp, x.dtype):
        # One accumulating GEMM per sample: no (N, M, C) stack of products to sum (a fresh
        # multi-MB array a call on MobileNetV2's 1x1 convs). BLAS reads matrices with
        # contiguous rows or columns only: a broadcast g (the gradient of a sum) has
        # neither, so such operands are copied first.
        x, g = xp.ascontiguousarray(x), xp.ascontiguousarray(g)
        dw = result.reshape(m, c)
        for i in range(n):
            blas.gemm(g[i].reshape(m, out_len), x[i].reshape(c, out_len).T, dw,
                      accumulate=i > 0)
        return result
    # x in the (N, grp, L, Cg) layout the product reads, summed over the samples.
    xs = x.reshape(n, grp, c // grp, out_len).swapaxes(2, 3)
    term = xp.matmul(g.reshape(n, grp, m // grp, out_len), xs).sum(axis=0)
    result.reshape(term.shape)[...] = term
    return result


def im2col_filter(xp, x, g, ksize, geo, cols=None, gt=None):
    """The filter gradient of conv through columns: x (N, C, *S), g (N, M, *O) ->
    (M, C/groups, *ksize). `cols` are the forward's columns (a Lease) when it kept them;
    `gt` as for im2col_data.

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> im2col_filter(np, np.arange(4.0).reshape(1, 1, 4), np.ones((1, 1, 3)), (2,), geo)
        array([[[3., 6.]]])
    """
    n, c = x.shape[:2]
    m, grp = g.shape[1], geo.groups
    out_len, taps = prod(g.shape[2:]), c * prod(ksize)
    batched = per_sample(taps, grp, out_len)
    own = gt is None and not batched
    if own:
        gt = transpose_grad(xp, g)
    dw = flipped = None
    # The result in workspace memory: fresh weight-sized arrays cost page faults per step.
    result = workspace.output(xp, (m, c // grp) + tuple(ksize), x.dtype)
    step = n if cols is not None else chunk(n, taps * out_len * x.itemsize)
    for n0 in range(0, n, step):
        nc = min(step, n - n0)
        part = cols.array if cols is not None else im2col(
            xp, x[n0:n0 + nc], ksize, geo, out=workspace.take(xp, (taps, nc * out_len),
                                                               x.dtype))
        if batched:
            # (nc, grp, Mg, L) @ (nc, grp, L, Kg), summed over the samples.
            term = xp.matmul(
                g[n0:n0 + nc].reshape(nc, grp, m // grp, out_len),
                part.reshape(grp, taps // grp, nc, out_len).transpose(2, 0, 3, 1)).sum(axis=0)
        elif nc * out_len >= _FILTER_FLIP_POSITIONS:
            # cols @ gT.T, then transposed: with many positions BLAS runs this orientation
            # faster than gT @ cols.T, and the transposing copy of dW is cheap beside it.
            # Each chunk's product lands in one scratch and is added into the result.
            flipped = flipped if flipped is not None else workspace.take(
                xp, (grp, taps // grp, m // grp), x.dtype)
            xp.matmul(
                part.reshape(grp, taps // grp, -1),
                gt[:, n0 * out_len:(n0 + nc) * out_len].reshape(grp, m // grp, -1).swapaxes(1, 2),
                out=flipped)
            target = result.reshape(grp, m // grp, taps // grp)
            if dw is None:
                target[...] = flipped.swapaxes(1, 2)
                dw = target
            else:
                target += flipped.swapaxes(1, 2)
            if cols is None:
                workspace.give(part)
            continue
        else:
            # Few positions (a net's last stages): dW comes out in its own layout, since
            # copying a big transposed dW costs far more than this product (figures:
            # docs/PERFORMANCE.md#conv-paths). The first chunk's product goes straight into
            # the result.
            term = xp.matmul(
                gt[:, n0 * out_len:(n0 + nc) * out_len].reshape(grp, m // grp, -1),
                part.reshape(grp, taps // grp, -1).swapaxes(1, 2),
                out=result.reshape(grp, m // grp, -1) if dw is None else None)
        dw = term if dw is None else dw + term
        if cols is None:
            workspace.give(part)
    if own:
        workspace.give(gt)
    if dw is None:  # an empty batch
        result.fill(0)
    elif not xp.may_share_memory(dw, result):
        result.reshape(dw.shape)[...] = dw
    if flipped is not None:
        workspace.give(flipped)
    return result


def data_by_rows(xp, g, w, in_sizes, geo):
    """conv_data for a stride-1 last dim: that dim's taps go into the GEMM.

    With j' = k - 1 - j (the last-dim taps reversed) and g zero-padded along the last dim
    into gp, gp[..., t] = g[..., t - P] with P = (k - 1) * dilation - pad_before,

        dx[n, c, .., x] = sum over (m, j') and the leading taps of
                          w[m, c, .., k-1-j'] * gp[n, m, .., x + j' * dilation]

    so rows (m, j') of a strided copy of gp times the reversed weights give the columns of
    the leading dims at every input position x of the last dim; col2im folds the rest.

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1,), (1,), ((1, 1),), 1)
        >>> data_by_rows(np, np.ones((1, 1, 4)), np.ones((1, 1, 3)), (4,), geo)
        array([[[2., 3., 3., 2.]]])
    """
    n, m = g.shape[:2]
    ksize, osz = w.shape[2:], g.shape[2:]
    grp, cg = geo.groups, w.shape[1]
    k, dil, (lo, _) = ksize[-1], geo.dilation[-1], geo.pads[-1]
    width, lead = in_sizes[-1], prod(osz[:-1])
    shift = (k - 1) * dil - lo
    span = width + (k - 1) * dil
    first, last = max(0, -shift), min(osz[-1], span - shift)
    # Reversed last-dim taps, rows (c, leading taps) and columns (m, j') per group.
    wr = w[..., ::-1].reshape(grp, m // grp, cg * prod(ksize[:-1]), k)
    wr = xp.ascontiguousarray(wr.transpose(0, 2, 1, 3)).reshape(grp, -1, (m // grp) * k)
    out = workspace.output(xp, (n, cg * grp) + tuple(in_sizes), g.dtype, zero=True)
    fold = Geometry(geo.stride[:-1] + (1,), geo.dilation[:-1] + (1,),
                    geo.pads[:-1] + ((0, 0),), grp)
    step = chunk(n, wr.shape[1] * grp * lead * width * g.itemsize)
    for n0 in range(0, n, step):
        nc = min(step, n - n0)
        gp = workspace.take(xp, (m, nc) + tuple(osz[:-1]) + (span,), g.dtype)
        gp.fill(0)
        if first < last:
            gp[..., first + shift:last + shift] = g[n0:n0 + nc, ..., first:last].swapaxes(0, 1)
        s = gp.strides
        view = xp.lib.stride_tricks.as_strided(
            gp, (m, k, nc) + tuple(osz[:-1]) + (width,),
            (s[0], s[-1] * dil) + s[1:-1] + (s[-1],))
        rows = workspace.take(xp, view.shape, g.dtype)
        rows[...] = view
        cols = workspace.take(xp, (grp, wr.shape[1], nc * lead * width), g.dtype)
        xp.matmul(wr, rows.reshape(grp, (m // grp) * k, -1), out=cols)
        col2im(xp, cols, cg * grp, tuple(ksize[:-1]) + (1,), tuple(osz[:-1]) + (width,),
               in_sizes, fold, out[n0:n0 + nc])
        for buf in (gp, rows, cols):
            workspace.give(buf)
    return out
