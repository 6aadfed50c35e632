"""Pooling kernels on raw channels-first arrays (N, C, *S).

A pooling window is visited one kernel offset at a time: for offset (i, j) the strided view
x[..., i::sh, j::sw] holds that tap of every window at once, so a 2x2 max-pool is three
elementwise maxima over quarter-size views, with no Python loop over pixels and no copy of
the windows. The index of the winning tap (first maximum, as Paddle's kernel picks) is kept
as a small integer array; the gradient is written back through the same views.

Kernels much larger than that (global pooling) are reduced as blocks of a reshape instead,
adaptive pooling with uneven bins gathers each tap by index, and 2x2 max pooling runs a
compiled loop (dygraph.kernels.numba.pool2d): `pool_path` chooses, and its docstring has the
table. On a GPU, 2-D max pooling on the offset path and its gradient are one kernel each
(dygraph/kernels/cuda/max_pool.py), unless a path is forced.

Example:
    >>> import numpy as np
    >>> geo = PoolGeometry.regular((4, 4), (2, 2), (2, 2), ((0, 0), (0, 0)), False)
    >>> y, arg = max_pool(np, np.arange(16.0).reshape(1, 1, 4, 4), geo)
    >>> y[0, 0]
    array([[ 5.,  7.],
           [13., 15.]])
"""

import itertools

import numpy as np

from dygraph.backend import compiled, device_constant
from dygraph.backend.workspace import workspace
from dygraph.kernels.cuda import max_pool as cuda_max_pool
from dygraph.ops.conv.paths import forced_path, log_choice

__all__ = ["PoolGeometry", "pool_path", "max_pool", "max_scatter", "max_gather", "avg_pool",
           "avg_scatter", "max_mask"]

# Above this many taps per window, block reductions beat the offset loop.
_BLOCK_TAPS = 16


class PoolGeometry:
    """Where the windows of a pooling op lie.

    Regular windows: ksize, stride, pads (lo, hi) and `ext` (the high padding actually used,
    larger than hi when ceil_mode adds a last partial window). Adaptive windows with uneven
    bins: `starts`/`ends` per dim.

    Example:
        >>> PoolGeometry.regular((5,), (2,), (2,), ((0, 0),), True).out_sizes
        (3,)
    """

    def __init__(self, in_sizes, out_sizes):
        self.in_sizes, self.out_sizes = tuple(in_sizes), tuple(out_sizes)
        self.ksize = self.stride = self.pads = self.ext = None
        self.starts = self.ends = None

    @classmethod
    def regular(cls, in_sizes, ksize, stride, pads, ceil_mode):
        out = []
        for s, k, st, (lo, hi) in zip(in_sizes, ksize, stride, pads):
            span = s + lo + hi - k
            out.append((span + st - 1) // st + 1 if ceil_mode else span // st + 1)
        geo = cls(in_sizes, out)
        geo.ksize, geo.stride, geo.pads = tuple(ksize), tuple(stride), tuple(pads)
        geo.ext = tuple(max(hi, (o - 1) * st + k - s - lo) for s, k, st, (lo, hi), o in
                        zip(in_sizes, ksize, stride, pads, out))
        return geo

    @classmethod
    def adaptive(cls, in_sizes, out_sizes):
        if all(s % o == 0 for s, o in zip(in_sizes, out_sizes)):
            ks = tuple(s // o for s, o in zip(in_sizes, out_sizes))
            return cls.regular(in_sizes, ks, ks, ((0, 0),) * len(ks), False)
        geo = cls(in_sizes, out_sizes)
        geo.starts = [np.arange(o) * s // o for s, o in zip(in_sizes, out_sizes)]
        geo.ends = [-(-(np.arange(o) + 1) * s // o) for s, o in zip(in_sizes, out_sizes)]
        return geo

    @property
    def tiles(self):
        """Non-overlapping windows that tile the input exactly."""
        return (self.ksize is not None and self.ksize == self.stride
                and not any(lo or e for (lo, _), e in zip(self.pads, self.ext))
                and all(o * k == s for o, k, s in zip(self.out_sizes, self.ksize, self.in_sizes)))

    @property
    def blocks(self):
        """Tiling windows with so many taps that block reductions beat the offset loop."""
        return self.tiles and _prod(self.ksize) > _BLOCK_TAPS

    def taps(self, xp=np):
        """Per kernel offset, in row-major order: the index that selects it from the padded
        input (regular) or the input (adaptive), and for adaptive bins the validity mask,
        both as `xp` arrays."""
        d = len(self.in_sizes)
        if self.ksize is not None:
            for off in itertools.product(*(range(k) for k in self.ksize)):
                yield (slice(None), slice(None)) + tuple(
                    slice(i, i + st * (o - 1) + 1, st)
                    for i, st, o in zip(off, self.stride, self.out_sizes)), None
            return
        spans = [int((e - s).max()) for s, e in zip(self.starts, self.ends)]
        # The tables depend on the sizes alone: on a GPU each is copied there once.
        bins = (tuple(self.in_sizes), tuple(self.out_sizes))
        for off in itertools.product(*(range(k) for k in spans)):
            pos = [s + i for s, i in zip(self.starts, off)]
            valid = None
            index = [slice(None), slice(None)]
            for a, (p, e, s) in enumerate(zip(pos, self.ends, self.in_sizes)):
                shape = [1] * d
                shape[a] = -1
                index.append(device_constant(xp, ("pool_index", bins, off, a), lambda p=p, s=s,
                                             shape=shape: np.minimum(p, s - 1).reshape(shape)))
                ok = (p < e).reshape(shape)
                valid = ok if valid is None else valid & ok
            yield tuple(index), device_constant(xp, ("pool_valid", bins, off),
                                                lambda valid=valid: valid)

    def padded_shape(self, lead):
        return tuple(lead) + tuple(s + lo + e for s, (lo, _), e in
                                   zip(self.in_sizes, self.pads, self.ext))

    def crop(self):
        return (slice(None), slice(None)) + tuple(
            slice(lo, lo + s) for s, (lo, _) in zip(self.in_sizes, self.pads))


def _prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def _pad(xp, x, geo, value):
    if geo.ksize is None or not any(lo or e for (lo, _), e in zip(geo.pads, geo.ext)):
        return x
    out = xp.full(geo.padded_shape(x.shape[:2]), value, dtype=x.dtype)
    out[geo.crop()] = x
    return out


def _block_view(x, geo):
    """(N, C, O1, k1, .., Od, kd) view of x for block windows."""
    shape = x.shape[:2]
    for o, k in zip(geo.out_sizes, geo.ksize):
        shape += (o, k)
    return x.reshape(shape)


def _block_windows(xp, x, geo):
    """A copy of the block windows as (N, C, *O, taps)."""
    d = len(geo.ksize)
    v = _block_view(x, geo)
    perm = (0, 1) + tuple(2 + 2 * a for a in range(d)) + tuple(3 + 2 * a for a in range(d))
    return xp.ascontiguousarray(v.transpose(perm)).reshape(
        x.shape[:2] + geo.out_sizes + (-1,))


def _unblock(xp, w, geo, lead):
    """Inverse of _block_windows: (N, C, *O, taps) -> (N, C, *S)."""
    d = len(geo.ksize)
    w = w.reshape(tuple(lead) + geo.out_sizes + geo.ksize)
    perm = [0, 1]
    for a in range(d):
        perm += [2 + a, 2 + d + a]
    return xp.ascontiguousarray(w.transpose(perm)).reshape(tuple(lead) + geo.in_sizes)


def _arg_dtype(geo):
    taps = _prod(geo.ksize) if geo.ksize is not None else _prod(
        int((e - s).max()) for s, e in zip(geo.starts, geo.ends))
    return np.uint8 if taps <= 255 else np.int32


# The products that have each path: the compiled kernel pools and scatters only.
_ALL = ("max pool", "max pool gradient", "max pool gather", "avg pool", "avg pool gradient")
_PRODUCTS = {"pool_compiled": _ALL[:2], "pool_blocks": _ALL, "pool_taps": _ALL}


def pool_path(xp, a, geo, product):
    """The path of a pooling `product` ('max pool', 'max pool gradient', 'max pool gather',
    'avg pool', 'avg pool gradient') on `a` (its input or gradient, (N, C, *S)):

        path           when                                      why
        pool_compiled  max pool and its gradient, 2-D 2x2        one compiled loop per
                       windows, stride 2, no padding, Numba on,  window (12 NumPy passes
                       float32/64 (kernels/numba/pool2d.py)            otherwise)
        pool_blocks    windows that tile the input with more     block reductions of a
                       than 16 taps (global pooling)             reshape beat a loop
                                                                 over the taps
        pool_taps      every other pooling, adaptive bins too    strided views, one
                                                                 NumPy pass per tap

    The choice depends on the geometry only (a non-contiguous `a` is copied for the
    compiled kernel), so a gradient runs on its forward's path. A path forced through
    dygraph.ops.conv.paths.force_path (or DYGRAPH_CONV_PATH) is taken by the products
    that have it, or a ValueError says why it cannot run; the 'dygraph.conv' logger logs
    the choice at DEBUG.

    Example:
        >>> geo = PoolGeometry.regular((4, 4), (3, 3), (1, 1), ((0, 0), (0, 0)), False)
        >>> pool_path(np, np.ones((1, 1, 4, 4)), geo, "avg pool")
        'pool_taps'
    """
    name = forced_path()
    if product in _PRODUCTS.get(name, ()):
        reason = _unfit(name, xp, a, geo)
        if reason is not None:
            raise ValueError(f"pool path {name!r} (forced) cannot run this {product} "
                             f"(shape {tuple(a.shape)}): {reason}")
    elif product in _PRODUCTS["pool_compiled"] and _compiled_pool(xp, a, geo) is not None:
        name = "pool_compiled"
    else:
        name = "pool_blocks" if geo.blocks else "pool_taps"
    return log_choice(product, name, a)


def _unfit(name, xp, a, geo):
    """Why pool path `name` cannot run this geometry, or None."""
    if name == "pool_compiled" and _compiled_pool(xp, a, geo) is None:
        return ("it runs 2-D 2x2 windows at stride 2 without padding, with Numba and the "
                "compiled kernels on, on non-empty NumPy float32 or float64 arrays")
    if name == "pool_blocks" and not geo.tiles:
        return "it runs windows that tile the input exactly (kernel = stride, no padding)"
    return None


def _compiled_pool(xp, x, geo):
    """The compiled 2x2 kernels (dygraph.kernels.numba.pool2d) when they take this pooling."""
    if geo.ksize is None or len(geo.ksize) != 2:
        return None
    kernel = compiled.kernels("pool2d", xp, x)
    return kernel if kernel is not None and kernel.takes(geo) else None


def _gpu_kernels(xp, a, geo):
    """Whether the GPU's max pooling kernels run this pooling on the offset path (which
    they compute to the bit): the kernels take it, and no path is forced."""
    return forced_path() is None and cuda_max_pool.takes(xp, a, geo)


def max_pool(xp, x, geo, need_arg=True):
    """(max over each window, index of its first maximum tap or None without need_arg)."""
    path = pool_path(xp, x, geo, "max pool")
    if path == "pool_compiled":
        return _compiled_pool(xp, x, geo).max_pool(x, need_arg)
    if path == "pool_taps" and _gpu_kernels(xp, x, geo):
        y, arg = cuda_max_pool.max_pool2d(x, geo)  # one GPU kernel (kernels/cuda/max_pool.py)
        return y, (arg if need_arg else None)
    if path == "pool_blocks":
        win = _block_windows(xp, x, geo)
        if not need_arg:
            return win.max(axis=-1), None
        arg = win.argmax(axis=-1)
        return xp.take_along_axis(win, arg[..., None], axis=-1)[..., 0], arg
    # Paddle pads max-pooling with the lowest finite value, not -inf.
    low = xp.finfo(x.dtype).min
    src = _pad(xp, x, geo, low)
    best = arg = better = None
    for p, (index, valid) in enumerate(geo.taps(xp)):
        tap = src[index]
        if valid is not None:
            tap = xp.where(valid, tap, low)
        if best is None:
            best = workspace.output(xp, tap.shape, tap.dtype)
            best[...] = tap
            if need_arg:
                arg = workspace.output(xp, best.shape, _arg_dtype(geo), zero=True)
                better = workspace.take(xp, best.shape, np.bool_)
                winner = workspace.take(xp, best.shape, arg.dtype)
            continue
        if not need_arg:
            xp.maximum(best, tap, out=best)
            continue
        xp.greater(tap, best, out=better)
        xp.maximum(best, tap, out=best)
        # Taps come in increasing order, so the winner is the last one that beat the running
        # best: a maximum, branch-free (a masked store with a random mask runs many times
        # slower; figures: docs/PERFORMANCE.md#pooling).
        xp.multiply(better, arg.dtype.type(p), out=winner)
        xp.maximum(arg, winner, out=arg)
    if better is not None:
        workspace.give(better)
        workspace.give(winner)
    return best, arg


def max_scatter(xp, g, arg, geo):
    """Gradient of max_pool: g (N, C, *O) goes to each window's winning tap.

    Example:
        >>> geo = PoolGeometry.regular((4,), (2,), (2,), ((0, 0),), False)
        >>> max_scatter(np, np.array([[[1.0, 2.0]]]), np.array([[[1, 0]]], np.uint8), geo)
        array([[[0., 1., 2., 0.]]])
    """
    lead = g.shape[:2]
    path = pool_path(xp, g, geo, "max pool gradient")
    if path == "pool_compiled":
        return _compiled_pool(xp, g, geo).max_scatter(g, arg, geo.in_sizes)
    if path == "pool_taps" and _gpu_kernels(xp, g, geo) and arg.dtype == np.int32:
        return cuda_max_pool.max_scatter2d(g, arg, geo)
    if path == "pool_blocks":
        win = xp.zeros(g.shape + (_prod(geo.ksize),), g.dtype)
        xp.put_along_axis(win, arg[..., None].astype(np.intp), g[..., None], axis=-1)
        return _unblock(xp, win, geo, lead)
    if geo.ksize is None:
        out = xp.zeros(lead + geo.in_sizes, g.dtype)
        for p, (index, valid) in enumerate(geo.taps(xp)):
            xp.add.at(out, index, xp.where((arg == p) & valid, g, 0))
        return out
    # Every position of a tiled input is written exactly once below: no zero fill needed.
    out = workspace.output(xp, geo.padded_shape(lead), g.dtype, zero=not geo.tiles)
    disjoint = all(st >= k for st, k in zip(geo.stride, geo.ksize))
    hit = workspace.take(xp, arg.shape, np.bool_)
    for p, (index, _) in enumerate(geo.taps(xp)):
        xp.equal(arg, p, out=hit)
        if disjoint:
            xp.multiply(g, hit, out=out[index])
        else:
            out[index] += g * hit
    workspace.give(hit)
    return out[geo.crop()] if out.shape[2:] != geo.in_sizes else out


def max_gather(xp, gx, arg, geo):
    """Adjoint of max_scatter: pick gx at each window's winning tap.

    Example:
        >>> geo = PoolGeometry.regular((4,), (2,), (2,), ((0, 0),), False)
        >>> max_gather(np, np.arange(4.0).reshape(1, 1, 4), np.array([[[1, 0]]], np.uint8), geo)
        array([[[1., 2.]]])
    """
    if pool_path(xp, gx, geo, "max pool gather") == "pool_blocks":
        win = _block_windows(xp, gx, geo)
        return xp.take_along_axis(win, arg[..., None].astype(np.intp), axis=-1)[..., 0]
    src = _pad(xp, gx, geo, 0)
    out = xp.zeros(arg.shape, gx.dtype)
    for p, (index, _) in enumerate(geo.taps(xp)):
        out += xp.where(arg == p, src[index], 0)
    return out


def max_mask(xp, arg, geo):
    """Paddle's mask: the flat index (over the spatial dims of x) of each window's maximum.

    Example:
        >>> geo = PoolGeometry.regular((4,), (2,), (2,), ((0, 0),), False)
        >>> max_mask(np, np.array([[[1, 0]]], np.uint8), geo)
        array([[[1, 2]]], dtype=int32)
    """
    d = len(geo.in_sizes)
    flat = xp.zeros(arg.shape, np.int64)
    if geo.ksize is not None:
        sizes = geo.ksize
        rest = arg.astype(np.int64)
        for a in reversed(range(d)):
            shape = [1] * d
            shape[a] = -1
            o = xp.arange(geo.out_sizes[a]).reshape(shape)
            pos = o * geo.stride[a] - geo.pads[a][0] + rest % sizes[a]
            rest = rest // sizes[a]
            flat = flat + pos * _prod(geo.in_sizes[a + 1:])
        return flat.astype(np.int32)
    spans = [int((e - s).max()) for s, e in zip(geo.starts, geo.ends)]
    rest = arg.astype(np.int64)
    for a in reversed(range(d)):
        shape = [1] * d
        shape[a] = -1
        starts = device_constant(xp, ("pool_starts", tuple(geo.in_sizes),
                                      tuple(geo.out_sizes), a), lambda a=a: geo.starts[a])
        pos = starts.reshape(shape) + rest % spans[a]
        rest = rest // spans[a]
        flat = flat + pos * _prod(geo.in_sizes[a + 1:])
    return flat.astype(np.int32)


def avg_divisor(geo, exclusive, override):
    """The divisor of each window, shaped (*O) (broadcasts against (N, C, *O)).

    Paddle applies divisor_override by scaling the average: avg * prod(ksize) / override.

    Example:
        >>> geo = PoolGeometry.regular((4,), (3,), (2,), ((1, 1),), False)
        >>> avg_divisor(geo, True, None), avg_divisor(geo, False, None)
        (array([2., 3.]), array([3., 3.]))
    """
    d = len(geo.in_sizes)
    div = np.ones((1,) * d)
    for a in range(d):
        shape = [1] * d
        shape[a] = -1
        if geo.ksize is None:
            count = geo.ends[a] - geo.starts[a]
        else:
            s, k, st, (lo, _) = geo.in_sizes[a], geo.ksize[a], geo.stride[a], geo.pads[a]
            start = np.arange(geo.out_sizes[a]) * st - lo
            if exclusive:
                count = np.minimum(start + k, s) - np.maximum(start, 0)
            else:
                # Paddle clips a window at the low padding on both ends.
                count = np.minimum(start + k, s + lo) - start
        div = div * count.reshape(shape)
    if override:
        div = div * (float(override) / _prod(geo.ksize))
    return div


def avg_pool(xp, x, geo, divisor):
    """Window sums divided by `divisor` (a number or an array broadcasting to (*O)).

    Example:
        >>> geo = PoolGeometry.regular((4,), (2,), (2,), ((0, 0),), False)
        >>> avg_pool(np, np.arange(4.0).reshape(1, 1, 4), geo, 2.0)
        array([[[0.5, 2.5]]])
    """
    if pool_path(xp, x, geo, "avg pool") == "pool_blocks":
        axes = tuple(3 + 2 * a for a in range(len(geo.ksize)))
        total = _block_view(x, geo).sum(axis=axes)
    else:
        src = _pad(xp, x, geo, 0)
        total = None
        for index, valid in geo.taps(xp):
            tap = src[index] if valid is None else xp.where(valid, src[index], 0)
            if total is None:
                total = xp.array(tap, copy=True)
            else:
                total += tap
    with np.errstate(divide="ignore", invalid="ignore"):
        out = total / _as(xp, divisor, x.dtype)
    return out.astype(x.dtype, copy=False)


def _as(xp, divisor, dtype):
    if xp is np or not isinstance(divisor, np.ndarray):
        return xp.asarray(divisor, dtype=dtype) if xp is np else np.dtype(dtype).type(divisor)
    # A table of the sizes alone: copied to the GPU once.
    return device_constant(xp, ("avg_divisor", divisor.shape, divisor.tobytes(),
                                np.dtype(dtype).str), lambda: divisor.astype(dtype))


def avg_scatter(xp, g, geo, divisor):
    """Gradient of avg_pool: each window's g / divisor spread over its taps.

    Example:
        >>> geo = PoolGeometry.regular((4,), (2,), (2,), ((0, 0),), False)
        >>> avg_scatter(np, np.array([[[2.0, 4.0]]]), geo, 2.0)
        array([[[1., 1., 2., 2.]]])
    """
    lead = g.shape[:2]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = (g / _as(xp, divisor, g.dtype)).astype(g.dtype, copy=False)
    if pool_path(xp, g, geo, "avg pool gradient") == "pool_blocks":
        taps = _prod(geo.ksize)
        return _unblock(xp, xp.broadcast_to(share[..., None], share.shape + (taps,)), geo, lead)
    if geo.ksize is None:
        out = xp.zeros(lead + geo.in_sizes, g.dtype)
        for index, valid in geo.taps(xp):
            xp.add.at(out, index, xp.where(valid, share, 0))
        return out
    out = xp.zeros(geo.padded_shape(lead), g.dtype)
    for index, _ in geo.taps(xp):
        out[index] += share
    return out[geo.crop()] if out.shape[2:] != geo.in_sizes else out
