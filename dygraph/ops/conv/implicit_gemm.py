"""Implicit-GEMM convolution: one BLAS product per filter tap, no im2col.

im2col copies the input K times (once per tap) into a column matrix, and col2im adds K
such matrices back; on a 3x3 conv those copies cost a large share of the GEMM's time.
Here the input is copied once, channel-major and padded, into a flat grid, where every
tap's window is the same matrix shifted by a constant offset:

    xq  (C, N * cells + slack)    the padded input; output position p reads xq[:, p + off]
    y   = sum over taps t of  W_t (M, C) @ xq[:, off_t : off_t + N * cells]

Each term is one GEMM that reads a window of xq in place and adds into the same output
(BLAS beta = 1, backend/blas.py). The grid has `reach` more cells per dim than the output
(the positions whose windows run past the input's edge): the GEMMs compute them too and
they are dropped, so the products do Q / L times the useful work (Q grid cells, L output
positions per sample); `implicit_pays` takes this path only where that waste costs less
than im2col's copies: up to _MAX_WASTE cells per position (figures:
docs/PERFORMANCE.md#conv-paths).

A stride s splits the padded input into s^d phases (every s-th position, each offset), and
tap t reads phase (t * dilation) mod s at offset (t * dilation) div s: strided convs stay one
shifted GEMM per tap. The data gradient runs the same products transposed, adding
W_t^T @ g into shifted windows of a zeroed grid, which is then read back into dx; the filter
gradient is g @ xq[:, window]^T per tap, one GEMM per kernel row (implicit_filter). g is
laid out on the grid with zeros at the dropped positions, so they add nothing.

Example:
    >>> import numpy as np
    >>> from dygraph.ops.conv.im2col import Geometry
    >>> grid = ShiftedGrid((5, 5), (3, 3), Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 1))
    >>> grid.grid, [off for _, off in grid.taps][:4]
    ((7, 7), [0, 1, 2, 7])
"""

import functools
import itertools

from dygraph.backend import blas
from dygraph.backend.workspace import Lease, workspace
from dygraph.ops.conv.im2col import Geometry, prod

__all__ = ["ShiftedGrid", "implicit_pays", "implicit_forward", "implicit_data",
           "implicit_filter", "grid_grad"]

# Per-group channels below this make each tap's GEMM too thin for BLAS to run well.
_MIN_CHANNELS = 16
# The most grid cells per output position at which the shifted GEMMs still beat im2col's
# copies (and col2im's, which a stride makes slow): big maps waste few cells and win;
# from about 1.5 cells a position (8x8 maps and smaller) im2col ties or wins. Figures,
# forward and backward against im2col per geometry: docs/PERFORMANCE.md#conv-paths.
_MAX_WASTE = 1.35
# A strided conv's data gradient through im2col ends in col2im's strided slice-adds, the
# slowest pass of all; shifted GEMMs pay there up to this many cells per position (they
# still win at 2.25, on a 4x4 output, and lose at 4, on 2x2; figures:
# docs/PERFORMANCE.md#conv-paths).
_MAX_WASTE_STRIDED_DATA = 2.5


class ShiftedGrid:
    """The layout of the implicit GEMM of one conv geometry: the output sizes, the grid
    (per-sample cells per dim), the phases the taps read, each tap's (phase, offset) in the
    filter's tap order, and the slack the shifted windows need past the last cell."""

    def __init__(self, in_sizes, ksize, geo):
        self.in_sizes, self.pads, self.stride = tuple(in_sizes), geo.pads, geo.stride
        self.osz = geo.out_sizes(in_sizes, ksize)
        reach = [(k - 1) * d // s for k, d, s in zip(ksize, geo.dilation, geo.stride)]
        self.grid = tuple(o + r for o, r in zip(self.osz, reach))
        self.cells = prod(self.grid)
        steps = [prod(self.grid[i + 1:]) for i in range(len(self.grid))]
        taps, shifts = [], []
        for tap in itertools.product(*(range(k) for k in ksize)):
            reads = [t * d for t, d in zip(tap, geo.dilation)]
            phase = tuple(r % s for r, s in zip(reads, geo.stride))
            taps.append((phase, sum(r // s * step for r, s, step in
                                    zip(reads, geo.stride, steps))))
            shifts.append(reads[-1] // geo.stride[-1])
        self.phases = sorted({phase for phase, _ in taps})
        index = {phase: i for i, phase in enumerate(self.phases)}
        self.taps = [(index[phase], off) for phase, off in taps]
        self.shifts = max(shifts) + 1
        self._group_filter_taps(shifts)
        # Windows run up to `shifts` cells past the last tap's (see implicit_filter).
        self.slack = max(off for _, off in self.taps) + self.shifts

    def _group_filter_taps(self, shifts):
        """Taps that read one phase at offsets base + j for consecutive last-dim shifts j
        form a group: their filter gradients are one GEMM over g shifted by each j.
        filter_groups lists (phase, base, first shift, taps); filter_order the taps in
        the order the groups write them."""
        groups = {}
        for t, ((phase, off), j) in enumerate(zip(self.taps, shifts)):
            groups.setdefault((phase, off - j), []).append((j, t))
        self.filter_groups, self.filter_order = [], []
        for (phase, base), members in sorted(groups.items()):
            members.sort()
            run = [members[0]]
            for j, t in members[1:] + [(None, None)]:
                if j is not None and j == run[-1][0] + 1:
                    run.append((j, t))
                    continue
                self.filter_groups.append((phase, base, run[0][0], [t for _, t in run]))
                self.filter_order.extend(t for _, t in run)
                run = [(j, t)]

    @property
    def waste(self):
        """Grid cells per output position: the GEMMs' work over the useful work."""
        return self.cells / max(prod(self.osz), 1)

    def windows(self, phase):
        """Per dim, (grid slice, input slice) of the cells of `phase` that hold input
        values (the others are padding or past the input's end)."""
        pairs = []
        for ph, lo, s, size, q in zip(phase, self.pads, self.stride, self.in_sizes, self.grid):
            lo = lo[0]
            a0 = max(0, -((ph - lo) // s))
            a1 = min(q, (size - 1 - ph + lo) // s + 1)
            if a1 <= a0:
                return None
            first = a0 * s + ph - lo
            pairs.append((slice(a0, a1), slice(first, first + (a1 - a0 - 1) * s + 1, s)))
        return pairs

    @functools.cached_property
    def covers_input(self):
        """True when every input position lies in some phase's cells (else the positions
        no window reads get no data gradient and dx must start zeroed)."""
        for d, size in enumerate(self.in_sizes):
            seen = set()
            for phase in self.phases:
                pairs = self.windows(phase)
                if pairs is not None:
                    seen.update(range(size)[pairs[d][1]])
            if len(seen) < size:
                return False
        return True


@functools.lru_cache(maxsize=256)
def _grid(in_sizes, ksize, stride, dilation, pads, groups):
    return ShiftedGrid(in_sizes, ksize, Geometry(stride, dilation, pads, groups))


def shifted_grid(in_sizes, ksize, geo):
    """The (cached) ShiftedGrid of a conv geometry."""
    return _grid(tuple(in_sizes), tuple(ksize), tuple(geo.stride), tuple(geo.dilation),
                 tuple(tuple(p) for p in geo.pads), geo.groups)


def implicit_pays(xp, dtype, in_sizes, w_shape, geo, data=False):
    """True when the implicit GEMM should run this conv (with `data`: its data gradient,
    or the transposed conv, alone): BLAS is at hand for the dtype, the filter has more than
    one tap or a stride, at least _MIN_CHANNELS channels in and out per group, and the grid
    has at most _MAX_WASTE cells per output position (_MAX_WASTE_STRIDED_DATA for the data
    gradient of a strided conv).

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> same = Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 1)
        >>> implicit_pays(np, np.float32, (56, 56), (64, 64, 3, 3), same) in (True, False)
        True
        >>> implicit_pays(np, np.float32, (2, 2), (512, 512, 3, 3), same)
        False
    """
    ksize = tuple(w_shape[2:])
    channels_out = w_shape[0] // geo.groups
    strided = any(s > 1 for s in geo.stride)
    if ((prod(ksize) < 2 and not strided) or min(w_shape[1], channels_out) < _MIN_CHANNELS
            or not blas.available(xp, dtype)):
        return False
    grid = shifted_grid(in_sizes, ksize, geo)
    limit = _MAX_WASTE_STRIDED_DATA if data and strided else _MAX_WASTE
    return prod(grid.osz) > 0 and grid.waste <= limit


def _on_grid(xp, grid, n, rows, dtype):
    """A zeroed (phases, rows, n * cells + slack) buffer from the workspace."""
    buf = workspace.take(xp, (len(grid.phases), rows, n * grid.cells + grid.slack), dtype)
    buf.fill(0)
    return buf


def _cells(buf, grid, n):
    """The (rows, n, *grid) view of a (rows, >= n * cells) grid buffer."""
    return buf[:, :n * grid.cells].reshape((buf.shape[0], n) + grid.grid)


def _scatter_input(xp, x, grid):
    """x (N, C, *S) laid out on the grid: (phases, C, N * cells + slack), zeros elsewhere."""
    n, c = x.shape[:2]
    xq = _on_grid(xp, grid, n, c, x.dtype)
    channels_first = x.swapaxes(0, 1)
    for i, phase in enumerate(grid.phases):
        pairs = grid.windows(phase)
        if pairs is not None:
            cells = _cells(xq[i], grid, n)
            cells[(slice(None),) * 2 + tuple(q for q, _ in pairs)] = \
                channels_first[(slice(None),) * 2 + tuple(s for _, s in pairs)]
    return xq


def grid_grad(xp, g, grid):
    """The output gradient g (N, M, *O) on the grid: (M, N * cells), zeros at the dropped
    cells (so they add nothing to either gradient); a workspace buffer to give back."""
    n, m = g.shape[:2]
    gq = workspace.take(xp, (m, n * grid.cells), g.dtype)
    gq.fill(0)
    _cells(gq, grid, n)[(slice(None),) * 2 + tuple(slice(0, o) for o in grid.osz)] = \
        g.swapaxes(0, 1)
    return gq


def _tap_weights(xp, w):
    """w (M, Cg, *k) as (taps, M, Cg): one contiguous matrix per tap."""
    m, cg = w.shape[:2]
    return xp.ascontiguousarray(w.reshape(m, cg, -1).transpose(2, 0, 1))


def _group_rows(w_shape, groups):
    mg, cg = w_shape[0] // groups, w_shape[1]
    return [(slice(i * mg, (i + 1) * mg), slice(i * cg, (i + 1) * cg)) for i in range(groups)]


def implicit_forward(xp, x, w, b, geo, keep=False):
    """(y, kept) of conv(x, w) + b by shifted GEMMs; `kept` is a Lease of the input grid
    for the filter gradient (with `keep`), else None."""
    n = x.shape[0]
    m = w.shape[0]
    grid = shifted_grid(x.shape[2:], w.shape[2:], geo)
    xq = _scatter_input(xp, x, grid)
    taps = _tap_weights(xp, w)
    span = n * grid.cells
    yq = workspace.take(xp, (m, span), x.dtype)
    for rows_m, rows_c in _group_rows(w.shape, geo.groups):
        for t, (phase, off) in enumerate(grid.taps):
            blas.gemm(taps[t, rows_m], xq[phase, rows_c, off:off + span], yq[rows_m],
                      accumulate=t > 0)
    out = workspace.output(xp, (n, m) + grid.osz, x.dtype)
    valid = _cells(yq, grid, n)[(slice(None),) * 2 + tuple(slice(0, o) for o in grid.osz)]
    if b is None:
        out.swapaxes(0, 1)[...] = valid
    else:
        xp.add(valid, b.reshape((m, 1) + (1,) * len(grid.osz)), out=out.swapaxes(0, 1))
    workspace.give(yq)
    if keep:
        return out, Lease(xq)
    workspace.give(xq)
    return out, None


def implicit_data(xp, g, w, in_sizes, geo, gq=None):
    """dx (N, C, *in_sizes) of a conv by transposed shifted GEMMs; `gq` is grid_grad(g)
    when the caller already has it."""
    n = g.shape[0]
    c = w.shape[1] * geo.groups
    grid = shifted_grid(in_sizes, w.shape[2:], geo)
    own = gq is None
    if own:
        gq = grid_grad(xp, g, grid)
    taps = _tap_weights(xp, w)
    span = n * grid.cells
    dxq = _on_grid(xp, grid, n, c, g.dtype)
    for rows_m, rows_c in _group_rows(w.shape, geo.groups):
        for t, (phase, off) in enumerate(grid.taps):
            blas.gemm(taps[t, rows_m].T, gq[rows_m], dxq[phase, rows_c, off:off + span],
                      accumulate=True)
    out = workspace.output(xp, (n, c) + tuple(in_sizes), g.dtype,
                           zero=not grid.covers_input)
    channels_first = out.swapaxes(0, 1)
    for i, phase in enumerate(grid.phases):
        pairs = grid.windows(phase)
        if pairs is not None:
            channels_first[(slice(None),) * 2 + tuple(s for _, s in pairs)] = \
                _cells(dxq[i], grid, n)[(slice(None),) * 2 + tuple(q for q, _ in pairs)]
    workspace.give(dxq)
    if own:
        workspace.give(gq)
    return out


def _shifted_grads(xp, gq, grid):
    """gq (M, span) copied at each last-dim shift j: (shifts, M, span + shifts) with
    row block j holding gq at columns j .. j + span and zeros around it."""
    m, span = gq.shape
    width = span + grid.shifts
    gs = workspace.take(xp, (grid.shifts, m, width), gq.dtype)
    for j in range(grid.shifts):
        gs[j, :, :j] = 0
        gs[j, :, j:j + span] = gq
        gs[j, :, j + span:] = 0
    return gs


def implicit_filter(xp, x, g, ksize, geo, kept=None, gq=None):
    """dw (M, C/groups, *ksize) of a conv; `kept` is the forward's Lease of the input
    grid, `gq` grid_grad(g), when the caller has them.

    Each tap's gradient is g @ xq[:, window]^T, a GEMM with a small (M, C) output over
    a long sum, which BLAS runs slowly. Taps whose windows sit one cell apart in the last
    dim (the k taps of a kernel row at stride 1) are instead one GEMM of k times the rows:
    g copied at shifts 0 .. k-1 against the window of the first tap (k times fewer
    products, each with a k times bigger output, which BLAS runs faster; figures:
    docs/PERFORMANCE.md#conv-paths)."""
    m = g.shape[1]
    cg = x.shape[1] // geo.groups
    grid = shifted_grid(x.shape[2:], ksize, geo)
    xq = kept.array if kept is not None else _scatter_input(xp, x, grid)
    own = gq is None
    if own:
        gq = grid_grad(xp, g, grid)
    gs = _shifted_grads(xp, gq, grid)
    width = gs.shape[2]
    dw = workspace.take(xp, (len(grid.taps), m, cg), x.dtype)
    done = 0
    for phase, base, first, taps in grid.filter_groups:
        window = xq[phase, :, base:base + width]
        if geo.groups == 1:
            rows = len(taps) * m
            blas.gemm(gs[first:first + len(taps)].reshape(rows, width), window.T,
                      dw[done:done + len(taps)].reshape(rows, cg))
        else:
            for u in range(len(taps)):
                for rows_m, rows_c in _group_rows((m, cg), geo.groups):
                    blas.gemm(gs[first + u, rows_m], window[rows_c].T, dw[done + u, rows_m])
        done += len(taps)
    # dw holds the taps in filter_order; put them back in the filter's tap order.
    result = xp.ascontiguousarray(dw.transpose(1, 2, 0)[..., _inverse(grid.filter_order)])
    workspace.give(dw)
    workspace.give(gs)
    if kept is None:
        workspace.give(xq)
    if own:
        workspace.give(gq)
    return result.reshape((m, cg) + tuple(ksize))


def _inverse(order):
    inverse = [0] * len(order)
    for position, tap in enumerate(order):
        inverse[tap] = position
    return inverse
