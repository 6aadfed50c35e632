"""grid_sample: read an image at the continuous positions of a sampling grid.

The op is composed of differentiable ops, so gradients reach both the image and the grid
and double backward works. Where a position lands (and how padding_mode folds it back) is
piecewise linear in the grid: the grid's array module (NumPy, or CuPy on a GPU, so that
nothing is read on the host) computes the position p and its slope s once, and the
differentiable position is (grid - grid_value) * s + p, which has p's value and the right
derivative. Bilinear sampling then gathers the 2^d corner values in one indexing op and
weights them with the fractional parts.
"""

import itertools

import numpy as np

from dygraph.autograd.function import apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import op_error
from dygraph.ops.common import float_operand
from dygraph.ops.manipulation.args import constant, xp_of
from dygraph.ops.manipulation.indexing import GetItem
from dygraph.ops.manipulation.rearrange import stack
from dygraph.ops.manipulation.shape import reshape, transpose
from dygraph.ops.reduction.reduce import sum as _sum

__all__ = ["grid_sample"]
NONDIFF = set()

_PADDING = ("zeros", "border", "reflection")


def _reflect(xp, pos, twice_low, twice_high):
    """Fold positions into [low, high] by mirroring at the ends; returns (pos, slope)."""
    if twice_low == twice_high:
        return xp.zeros_like(pos), xp.zeros_like(pos)
    low, span = twice_low / 2.0, (twice_high - twice_low) / 2.0
    shifted = pos - low
    dist = xp.abs(shifted)
    extra = xp.fmod(dist, span)
    even = xp.floor(dist / span) % 2 == 0
    folded = xp.where(even, extra + low, span - extra + low)
    slope = xp.where(shifted < 0, -1.0, 1.0) * xp.where(even, 1.0, -1.0)
    return folded, slope


def _source(xp, coord, size, padding_mode, align_corners):
    """Pixel position for normalized coordinates in [-1, 1], and d(position)/d(coord)."""
    scale = (size - 1) / 2.0 if align_corners else size / 2.0
    pos = (coord + 1.0) * scale - (0.0 if align_corners else 0.5)
    slope = xp.full_like(pos, scale)
    if padding_mode == "zeros":
        return pos, slope
    if padding_mode == "reflection":
        bounds = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        pos, turn = _reflect(xp, pos, *bounds)
        slope = slope * turn
    inside = (pos > 0) & (pos < size - 1)
    return xp.clip(pos, 0, size - 1), slope * inside


def _check(x, grid, mode, padding_mode, align_corners):
    xs, gs = x._data.shape, grid._data.shape
    if len(xs) not in (4, 5) or len(gs) != len(xs) or gs[0] != xs[0] or gs[-1] != len(xs) - 2:
        raise op_error("grid_sample", f"x of shape {list(xs)} and grid of shape {list(gs)} do "
                       "not fit; expected x [N, C, H, W] with grid [N, H_out, W_out, 2], or x "
                       "[N, C, D, H, W] with grid [N, D_out, H_out, W_out, 3]")
    if x._data.dtype != grid._data.dtype:
        raise op_error("grid_sample", f"x dtype {x._data.dtype.name} differs from grid dtype "
                       f"{grid._data.dtype.name}", TypeError)
    if mode not in ("bilinear", "nearest"):
        raise op_error("grid_sample", f"mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in _PADDING:
        raise op_error("grid_sample", f"padding_mode must be one of {list(_PADDING)}, got "
                       f"{padding_mode!r}")
    if not isinstance(align_corners, (bool, np.bool_)):
        raise op_error("grid_sample", f"align_corners must be a bool, got "
                       f"{type(align_corners).__name__}", TypeError)


@captured_whole
def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    """Sample x ([N, C, H, W] or [N, C, D, H, W]) at grid ([N, H_out, W_out, 2] or
    [N, D_out, H_out, W_out, 3]) whose last dim holds (x, y[, z]) in [-1, 1], -1 and 1
    being the corner pixel centres (align_corners=True) or the outer image edges (False).
    mode: 'bilinear' or 'nearest'; padding_mode: 'zeros', 'border' or 'reflection' for
    positions outside the image. Gradients reach x and grid.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
        >>> grid = dygraph.to_tensor([[[[0.0, 0.0], [1.0, -1.0]]]])
        >>> F.grid_sample(x, grid).numpy()
        array([[[[1.5, 1. ]]]], dtype=float32)
    """
    x, grid = float_operand(x, "grid_sample"), float_operand(grid, "grid_sample")
    _check(x, grid, mode, padding_mode, align_corners)
    n, c, *spatial = x._data.shape
    nd = len(spatial)
    out_spatial = list(grid._data.shape[1:-1])
    count = int(np.prod(out_spatial))
    xp = xp_of(grid._data)
    coords = grid._data.reshape(n, count, nd).astype(np.float64)
    # Grid coordinate k indexes spatial dim nd - 1 - k: (x, y, z) -> (W, H, D).
    sources = [_source(xp, coords[:, :, nd - 1 - d], spatial[d], padding_mode,
                       bool(align_corners)) for d in range(nd)]
    strides = np.cumprod([1] + spatial[:0:-1])[::-1]
    if mode == "nearest":
        corners = [xp.sign(p) * xp.floor(xp.abs(p) + 0.5) for p, _ in sources]
        flat, valid = _corner(xp, corners, spatial, strides)
        flat = flat[:, None]
        weights = constant(valid[:, None], x)
    else:
        lows = [xp.floor(p) for p, _ in sources]
        fracs = []
        for d, (pos, slope) in enumerate(sources):
            g = reshape(grid[(Ellipsis, nd - 1 - d)], [n, count])
            fracs.append((g - constant(coords[:, :, nd - 1 - d], grid)) * constant(slope, grid)
                         + constant(pos - lows[d], grid))
        flats, terms = [], []
        for bits in itertools.product((0, 1), repeat=nd):
            flat, valid = _corner(xp, [low + b for low, b in zip(lows, bits)], spatial,
                                  strides)
            term = constant(valid, x)
            for frac, b in zip(fracs, bits):
                term = term * (frac if b else 1.0 - frac)
            flats.append(flat)
            terms.append(term)
        flat = xp.stack(flats, axis=1)
        weights = stack(terms, axis=1)
    k = flat.shape[1]
    image = reshape(transpose(x, [0, *range(2, nd + 2), 1]), [n, -1, c])
    index = (xp.arange(n)[:, None], flat.reshape(n, k * count))
    values = reshape(apply(GetItem(index), image), [n, k, count, c])
    out = _sum(values * reshape(weights, [n, k, count, 1]), axis=1)
    return reshape(transpose(out, [0, 2, 1]), [n, c, *out_spatial])


def _corner(xp, positions, spatial, strides):
    """Flat indices [N, P] of integer positions (clamped into the image) and the mask of
    the positions that were inside it."""
    flat = 0
    valid = True
    for pos, size, stride in zip(positions, spatial, strides):
        idx = pos.astype(np.int64)
        valid = valid & (idx >= 0) & (idx < size)
        flat = flat + xp.clip(idx, 0, size - 1) * int(stride)
    return flat, valid
