"""The three GEMM products every conv op is made of: forward, data gradient, filter gradient.

With the column layout of im2col.py, (C*K, N*L),

    forward          y  = W (M, C*K) @ cols (C*K, N*L), then (M, N, L) -> (N, M, L)
    filter gradient  dW = (cols @ gT.T).T with gT = g as (M, N*L)
    data gradient    dx = col2im(W.T @ gT)

are single GEMMs over the whole batch; the first layers of a net (many output positions per
sample, few taps) run one GEMM per sample instead, which writes (N, M, L) directly.

The data gradient of a stride-1 last dim folds that dim's taps into the GEMM instead
(`data_by_rows`): a GEMM about W/O times larger (for 'same' padding no larger), but no
col2im pass over the big (C*K, N*L) matrix for that dim, the costliest one because its rows
are the shortest. On small maps (up to 64 output positions a sample, 16 with a stride)
the data gradient runs with the batch innermost instead (conv_batch_last.py), where
col2im's runs are N times longer. With Numba, small 2-D convs with small weights run
channels-last before any of these (conv_channels_last.py: one column row per output
position, the products' results with the positions as rows).

Example:
    >>> import numpy as np
    >>> from dygraph.ops.im2col import Geometry
    >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
    >>> conv_forward(np, np.ones((1, 1, 4)), np.ones((1, 1, 2)), None, geo)[0]
    array([[[2., 2., 2.]]])
"""

import numpy as np

from dygraph.backend import blas, compiled
from dygraph.ops import conv_channels_last as channels_last
from dygraph.ops.conv_batch_last import (
    BatchLastColumns,
    data_batch_last,
    filter_batch_last,
    forward_batch_last,
)
from dygraph.ops.conv_depthwise import (
    depthwise_data_last,
    depthwise_filter_last,
    depthwise_forward_last,
    is_depthwise,
)
from dygraph.ops.conv_implicit import (
    implicit_data,
    implicit_filter,
    implicit_forward,
    implicit_pays,
)
from dygraph.ops.im2col import Geometry, chunk, col2im, im2col, prod
from dygraph.ops.workspace import Lease, workspace

__all__ = ["pointwise", "per_sample", "transpose_grad", "conv_forward", "conv_data", "conv_filter",
           "depthwise_filter_bias", "data_by_rows"]


# Up to this many output positions per sample the data gradient runs batch-last (fewer
# with a stride).
_BATCH_LAST_POSITIONS = 64
_BATCH_LAST_STRIDED_POSITIONS = 16
# Below this many output positions (over the batch) the filter gradient is computed in the
# filter's own layout (see conv_filter).
_FILTER_FLIP_POSITIONS = 512


def _compiled_depthwise(xp, ksize, geo, out_sizes, *arrays):
    """The compiled 2-D depthwise kernels (dygraph.kernels.depthwise2d) when they may run
    on these arrays and pay for this conv with an output map of `out_sizes`, else None
    (the einsum path of conv_depthwise runs)."""
    if arrays[0].ndim != 4:
        return None
    kernel = compiled.kernels("depthwise2d", xp, *(a for a in arrays if a is not None))
    return kernel if kernel is not None and kernel.pays(ksize, geo, out_sizes) else None


def depthwise_filter_bias(xp, x, g, w, geo):
    """(filter gradient, bias gradient) of a depthwise conv from one pass of the compiled
    kernels over g; None where they do not run that way (the caller computes the two
    apart).

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 2)
        >>> pair = depthwise_filter_bias(np, np.ones((1, 2, 8, 8)), np.ones((1, 2, 8, 8)),
        ...                              np.ones((2, 1, 3, 3)), geo)
        >>> pair is None or pair[1].tolist() == [64.0, 64.0]
        True
    """
    if not is_depthwise(w, geo):
        return None
    kernel = _compiled_depthwise(xp, w.shape[2:], geo, g.shape[2:], x, g)
    return None if kernel is None else kernel.filter_and_bias(x, g, w.shape[2:], geo)


def pointwise(ksize, geo):
    """True for a 1x1 conv with stride 1 and no padding: its columns are the input itself.

    Example:
        >>> pointwise((1, 1), Geometry((1, 1), (1, 1), ((0, 0), (0, 0)), 1))
        True
    """
    return (all(k == 1 for k in ksize) and all(s == 1 for s in geo.stride)
            and not any(lo or hi for lo, hi in geo.pads))


def per_sample(taps, groups, out_len):
    """True when the products should run as one GEMM per sample rather than one for the batch.

    Per-sample GEMMs write (N, M, L) directly, with no transposed copy, and win when each
    sample has more output positions than taps per group (the first layers of a net); with
    few positions per sample they are too small for BLAS, and one big GEMM wins.

    Example:
        >>> per_sample(25, 1, 576), per_sample(500, 1, 64)
        (True, False)
    """
    return taps // groups <= out_len


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


def conv_forward(xp, x, w, b, geo, keep_cols=False):
    """y = conv(x, w) + b for x (N, C, *S), w (M, C/groups, *k), b (M,) or None.

    Returns (y, cols): cols is a Lease of the columns of x when keep_cols and the batch fit
    in one chunk (the filter gradient reuses them), else None.
    """
    n, c = x.shape[:2]
    m, ksize = w.shape[0], w.shape[2:]
    osz = geo.out_sizes(x.shape[2:], ksize)
    if is_depthwise(w, geo):
        kernel = _compiled_depthwise(xp, ksize, geo, osz, x, w, b)
        if kernel is not None:
            return kernel.forward(x, w, b, geo), None
        return depthwise_forward_last(xp, x, w, b, geo, keep_cols)
    kernel = channels_last.kernel_for(xp, x, w, geo, x.shape[2:], osz)
    if kernel is not None:
        return channels_last.forward(xp, kernel, x, w, b, geo, keep_cols)
    if implicit_pays(xp, x.dtype, x.shape[2:], w.shape, geo):
        return implicit_forward(xp, x, w, b, geo, keep_cols)
    if _batch_last_pays(xp, n, osz, w, geo):
        return forward_batch_last(xp, x, w, b, geo, keep_cols)
    out_len, taps, grp = prod(osz), c * prod(ksize), geo.groups
    out = workspace.output(xp, (n, m) + osz, x.dtype)
    w3 = w.reshape(grp, m // grp, taps // grp)
    batched = per_sample(taps, grp, out_len)
    step = chunk(n, taps * out_len * x.itemsize)
    kept = None
    direct = batched and pointwise(ksize, geo)
    for n0 in range(0, n, step):
        part = x[n0:n0 + step]
        nc = part.shape[0]
        dst = out[n0:n0 + nc].reshape(nc, m, out_len)
        if direct:  # a 1x1 conv reads x as it is: its columns are x itself
            xp.matmul(w3, part.reshape(nc, grp, taps // grp, out_len),
                      out=dst.reshape(nc, grp, m // grp, out_len))
            if b is not None:
                dst += b.reshape(1, m, 1)
            continue
        keep = keep_cols and nc == n
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
            src = y.reshape(m, nc, out_len).swapaxes(0, 1)
            if b is None:
                dst[...] = src
            else:
                xp.add(src, b.reshape(1, m, 1), out=dst)
            workspace.give(y)
        if keep:
            kept = Lease(cols)
        else:
            workspace.give(cols)
    return out, kept


def conv_data(xp, g, w, in_sizes, geo, gt=None):
    """The data gradient of conv (equally: the transposed convolution of g with w).

    g (N, M, *O), w (M, C/groups, *k) -> (N, C, *in_sizes). `gt` is transpose_grad(g) when
    the caller already has it.

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> conv_data(np, np.ones((1, 1, 3)), np.ones((1, 1, 2)), (4,), geo)
        array([[[1., 2., 2., 1.]]])
    """
    if is_depthwise(w, geo):
        kernel = _compiled_depthwise(xp, w.shape[2:], geo, g.shape[2:], g, w)
        if kernel is not None:
            return kernel.data(g, w, in_sizes, geo)
        return depthwise_data_last(xp, g, w, in_sizes, geo)
    kernel = channels_last.kernel_for(xp, g, w, geo, in_sizes, g.shape[2:], data=True)
    if kernel is not None:
        return channels_last.data_from_g(xp, kernel, g, w, in_sizes, geo)
    if _batch_last_pays(xp, g.shape[0], g.shape[2:], w, geo):
        return data_batch_last(xp, g, w, in_sizes, geo)
    if implicit_pays(xp, g.dtype, in_sizes, w.shape, geo, data=True):
        return implicit_data(xp, g, w, in_sizes, geo)
    n, m = g.shape[:2]
    ksize = w.shape[2:]
    osz = g.shape[2:]
    grp = geo.groups
    if pointwise(ksize, geo) and per_sample(w.shape[1] * grp, grp, prod(osz)):
        # 1x1: dx[n] = W^T g[n], written in place; no columns to fold back.
        c = w.shape[1] * grp
        out = workspace.output(xp, (n, c) + tuple(in_sizes), g.dtype)
        wt = w.reshape(grp, m // grp, c // grp).swapaxes(1, 2)
        xp.matmul(wt, g.reshape(n, grp, m // grp, -1), out=out.reshape(n, grp, c // grp, -1))
        return out
    if _rows_pay(osz[-1], in_sizes[-1], geo, n * prod(osz), w):
        return data_by_rows(xp, g, w, in_sizes, geo)
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


def conv_filter(xp, x, g, ksize, geo, cols=None, gt=None):
    """The filter gradient of conv: x (N, C, *S), g (N, M, *O) -> (M, C/groups, *ksize).

    `cols` are the forward's columns of x (a Lease) when it kept them; `gt` as for conv_data.

    Example:
        >>> import numpy as np
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> conv_filter(np, np.arange(4.0).reshape(1, 1, 4), np.ones((1, 1, 3)), (2,), geo)
        array([[[3., 6.]]])
    """
    n, c = x.shape[:2]
    m = g.shape[1]
    grp = geo.groups
    if grp > 1 and c == m == grp:
        kernel = _compiled_depthwise(xp, ksize, geo, g.shape[2:], x, g)
        if kernel is not None:
            return kernel.filter_grad(x, g, ksize, geo)
        return depthwise_filter_last(xp, x, g, ksize, geo, cols)
    if isinstance(cols, BatchLastColumns):
        return filter_batch_last(xp, g, cols.array, ksize, grp)
    if implicit_pays(xp, x.dtype, x.shape[2:], (m, c // grp) + tuple(ksize), geo):
        return implicit_filter(xp, x, g, ksize, geo, kept=cols)
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
        part = cols.array if cols is not None else None
        if batched and pointwise(ksize, geo):
            if grp == 1 and blas.available(xp, x.dtype):
                # One accumulating GEMM per sample: no (nc, M, C) stack of products to sum
                # (a fresh multi-MB array a call on MobileNetV2's 1x1 convs).
                dw = result.reshape(m, taps) if dw is None else dw
                for i in range(nc):
                    blas.gemm(g[n0 + i].reshape(m, out_len),
                              x[n0 + i].reshape(taps, out_len).T, dw,
                              accumulate=n0 + i > 0)
                continue
            # x itself in the (nc, grp, L, Cg) layout the product below reads.
            xs = x[n0:n0 + nc].reshape(nc, grp, taps // grp, out_len).swapaxes(2, 3)
            term = xp.matmul(g[n0:n0 + nc].reshape(nc, grp, m // grp, out_len), xs).sum(axis=0)
            dw = term if dw is None else dw + term
            continue
        if part is None:
            part = im2col(xp, x[n0:n0 + nc], ksize, geo,
                          out=workspace.take(xp, (taps, nc * out_len), x.dtype))
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
            # Few positions (a net's last stages): dW comes out in its own layout; copying a
            # transposed 512x4608 dW cost 17 ms against 1 ms for this product. The first
            # chunk's product goes straight into the result.
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


def _batch_last_pays(xp, n, osz, w, geo):
    """Whether the data gradient should run batch-last (conv_batch_last.py). Measured against
    the other paths: faster up to 64 output positions per sample (LeNet's second conv 0.83x,
    ResNet-18's last stages 0.32-0.72x), slower above (1.13x at 12x12, 1.8-2x at 32x32).
    With a stride its adds run in runs of N values only, and the implicit GEMM's phases win
    from 8x8 outputs (1.3-1.65x there), while at 4x4 batch-last still does (0.51-0.62x).
    Slower too with one sample (1.4x: its runs are no longer), with groups (1.34x), and for
    1x1 filters, which need no col2im at all. On the GPU its many tap copies are so many
    kernel launches: one im2col and one product do it in two."""
    if xp is not np:
        return False
    limit = _BATCH_LAST_POSITIONS if all(s == 1 for s in geo.stride) else \
        _BATCH_LAST_STRIDED_POSITIONS
    return geo.groups == 1 and n > 1 and prod(w.shape[2:]) > 1 and prod(osz) <= limit


def _rows_pay(out_last, in_last, geo, positions, w):
    """Fold the last dim into the GEMM when its stride is 1 and the GEMM grows by at most
    half (W / O <= 1.5): the saved col2im pass costs more than that. The fold reshuffles the
    weight (a transposing copy of all its values) while col2im passes over C*K values per
    output position, so it pays only while the weight is no bigger than the columns: not
    for ResNet's last stages (512x512x3x3 weights, 16 positions), where the copy cost 8x
    the GEMM; always for depthwise weights (one input channel per filter)."""
    taps = w.shape[1] * geo.groups * prod(w.shape[2:])
    return (geo.stride[-1] == 1 and 2 * in_last <= 3 * out_last
            and w.size <= taps * positions)


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
