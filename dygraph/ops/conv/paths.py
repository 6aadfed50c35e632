"""Which path runs each product of a convolution, and how to choose one yourself.

A conv is three products: the forward, the data gradient (also the transposed conv) and
the filter gradient. Each has several paths that give the same numbers and differ in
speed by geometry; one function per product picks its path and returns its name:
`forward_path`, `data_path` and `filter_path`. The Conv op records the forward's choice
and its backward hands it to the other two, which follow it (the forward's columns or
grid are then reused) unless a path is forced.

Decision table of the forward (first match wins; the modules named say why, and the
measurements behind each threshold are in docs/PERFORMANCE.md#conv-paths):

    path                when                                     why
    depthwise_compiled  depthwise (groups = C = M), 2-D, Numba   compiled per-plane loops;
                        on, float32/64, and 'same' padding or    their set-up loses to the
                        >= 64 output positions a plane           einsum below 64 positions
                        (kernels/numba/depthwise2d.py)
    depthwise           other depthwise convs                    einsum over a windows view:
                        (ops/conv/depthwise.py)                  no K-fold column copy
    channels_last       2-D, groups 1, Numba on, > 1 tap, a      products with the positions
                        weight row C*kh*kw >= 64 values, the     as rows (OpenBLAS's fast
                        weight <= 160,000 values, columns        side); the weight's copies
                        <= 64 MiB, and <= 200 output positions   lose on big weights, and on
                        or the implicit GEMM does not pay        big maps the implicit GEMM's
                        (ops/conv/channels_last.py)              single copy of x wins
    implicit            OpenBLAS for the dtype, > 1 tap or a     one GEMM per tap on a
                        stride, >= 16 channels in and out per    shifted grid, no im2col; the
                        group, <= 1.35 grid cells per output     grid's dropped cells cost
                        position (ops/conv/implicit_gemm.py)     more above that
    batch_last          NumPy, groups 1, N > 1, > 1 tap, <= 64   col2im's runs N times
                        output positions a sample, <= 16 with a  longer; a stride shortens
                        stride (ops/conv/batch_last.py)          them to N values
    pointwise           1x1, stride 1, no padding, and C/groups  the columns are x itself:
                        <= output positions a sample             one GEMM per sample
    im2col              every other conv                         columns + one GEMM (per
                                                                 sample where a sample has
                                                                 more positions than taps)

On CUDA GPUs cuDNN comes before the table (dygraph/backend/cudnn/; the ops of
ops/conv/convolution.py ask it first): it runs all three products of a conv unless a path
is forced or cuDNN is off (DYGRAPH_CUDNN=0, not installed), and the table picks a CuPy path
where it declines a geometry.

The data gradient and the filter gradient run the forward's path, except after im2col,
or alone (ConvData, ConvFilter: the transposed conv, double backward), where the data
gradient takes the first of: depthwise_compiled, depthwise (as above); channels_last
(its conditions, the implicit GEMM judged for the data gradient); batch_last (as above);
implicit (up to 2.5 cells per position with a stride: col2im's strided adds are the
slowest pass); pointwise; rows (stride-1 last dim, input width <= 1.5x the output's and
a weight no bigger than the columns: its taps fold into the GEMM, no col2im for that
dim, see ops/conv/columns.data_by_rows); im2col. The filter gradient alone takes
depthwise_compiled, depthwise, implicit, pointwise or im2col, as the forward would
(batch_last and channels_last only when forced: they pay by reusing the forward's
columns).

Forcing: `force_path(name)` (a context manager) or DYGRAPH_CONV_PATH=name in the
environment (read at import) makes every product that has a path of that name take it,
and raises ValueError naming the path and the reason where it cannot run the conv (a
depthwise path on a dense conv, channels_last on a 3-D one, pointwise on a 3x3 filter,
rows on a strided last dim, a compiled path without Numba). Products without a path of
that name choose as usual ("rows" is the data gradient's only); pooling's paths
(ops/pool/windows.py: pool_compiled, pool_blocks, pool_taps) are forced the same way. The
thresholds on speed and memory do not stop a forced path.

Logging: with the 'dygraph.conv' logger at DEBUG, every choice is logged with the
product, the path and the shapes.

Example:
    >>> import numpy as np
    >>> from dygraph.ops.conv.im2col import Geometry
    >>> geo = Geometry((1, 1), (1, 1), ((0, 0), (0, 0)), 1)
    >>> x, w = np.ones((4, 8, 6, 6)), np.ones((8, 8, 1, 1))
    >>> forward_path(np, x, w, geo)
    'pointwise'
    >>> with force_path("im2col"):
    ...     forward_path(np, x, w, geo)
    'im2col'
"""

import contextlib
import logging
import os

import numpy as np

from dygraph.backend import blas, compiled
from dygraph.ops.conv import channels_last
from dygraph.ops.conv.im2col import prod
from dygraph.ops.conv.implicit_gemm import implicit_pays

__all__ = ["FORWARD_PATHS", "DATA_PATHS", "FILTER_PATHS", "POOL_PATHS", "force_path",
           "forced_path", "forward_path", "data_path", "filter_path", "pointwise",
           "per_sample", "depthwise_kernel", "log_choice"]

FORWARD_PATHS = ("depthwise_compiled", "depthwise", "channels_last", "implicit", "batch_last",
                 "pointwise", "im2col")
DATA_PATHS = FORWARD_PATHS[:-1] + ("rows", "im2col")
FILTER_PATHS = FORWARD_PATHS
POOL_PATHS = ("pool_compiled", "pool_blocks", "pool_taps")
_NAMES = frozenset(DATA_PATHS + POOL_PATHS)

# Up to this many output positions per sample the data gradient runs batch-last (fewer
# with a stride, whose adds run in runs of N values only): _batch_last_pays says why, and
# the figures are in docs/PERFORMANCE.md#conv-paths.
_BATCH_LAST_POSITIONS = 64
_BATCH_LAST_STRIDED_POSITIONS = 16

_LOG = logging.getLogger("dygraph.conv")


def _checked(name, source):
    if name is not None and name not in _NAMES:
        raise ValueError(f"{source}: unknown conv or pool path {name!r}; the paths are "
                         f"{', '.join(sorted(_NAMES))}")
    return name


# The forced path: one cell, read by every selector (a list, so that force_path can set it).
_FORCED = [_checked(os.environ.get("DYGRAPH_CONV_PATH") or None, "DYGRAPH_CONV_PATH")]


@contextlib.contextmanager
def force_path(name):
    """Run the block with every conv or pool product that has a path called `name` on that
    path (ValueError where the path cannot take a conv's geometry); None lifts a force.
    For tests and for comparing paths; the setting is process-wide, not per thread.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x, w = dygraph.ones([2, 8, 5, 5]), dygraph.ones([4, 8, 3, 3])
        >>> with force_path("batch_last"):
        ...     F.conv2d(x, w).shape
        [2, 4, 3, 3]
    """
    previous = _FORCED[0]
    _FORCED[0] = _checked(name, "force_path")
    try:
        yield
    finally:
        _FORCED[0] = previous


def forced_path():
    """The path force_path or DYGRAPH_CONV_PATH forces now, or None.

    Example:
        >>> with force_path("im2col"):
        ...     forced_path()
        'im2col'
    """
    return _FORCED[0]


def log_choice(product, name, *arrays):
    """Log a choice on the 'dygraph.conv' logger at DEBUG (a level check when off)."""
    if _LOG.isEnabledFor(logging.DEBUG):
        _LOG.debug("%s: %s path (shapes %s)", product, name,
                   ", ".join(str(tuple(a.shape)) for a in arrays))
    return name


def pointwise(ksize, geo):
    """True for a 1x1 conv with stride 1 and no padding: its columns are the input itself.

    Example:
        >>> from dygraph.ops.conv.im2col import Geometry
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


def depthwise_kernel(xp, *arrays):
    """The compiled 2-D depthwise kernels (dygraph.kernels.numba.depthwise2d) for these arrays'
    dtype, or None (no Numba, kernels off, not 4-D NumPy float32/float64).

    Example:
        >>> kernel = depthwise_kernel(np, np.ones((1, 2, 3, 3)))
        >>> kernel is None or kernel.__name__
        'dygraph.kernels.numba.depthwise2d'
    """
    if arrays[0].ndim != 4:
        return None
    return compiled.kernels("depthwise2d", xp, *(a for a in arrays if a is not None))


def _batch_last_pays(xp, n, osz, w, geo):
    """Whether the data gradient should run batch-last (ops/conv/batch_last.py): on the
    CPU, groups 1, more than one sample and one tap, and at most _BATCH_LAST_POSITIONS
    output positions per sample (_BATCH_LAST_STRIDED_POSITIONS with a stride). Batch-last
    makes col2im's adds N times longer, which pays on small maps; on bigger ones the
    other paths win. With a stride its adds run in runs of N values only, and the implicit
    GEMM's phases win from 8x8 outputs. With one sample its runs are no longer; with groups
    it loses too; 1x1 filters need no col2im at all. On the GPU its many tap copies are so
    many kernel launches: one im2col and one product do it in two. Figures:
    docs/PERFORMANCE.md#conv-paths."""
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


def _depthwise(w_shape, geo):
    """One input and one output channel per group (dygraph.ops.conv.depthwise.is_depthwise,
    by shape)."""
    return geo.groups > 1 and w_shape[0] == geo.groups and w_shape[1] == 1


def _unfit(name, xp, a, w_shape, geo):
    """Why path `name` cannot run the conv of a weight of w_shape, with `a` its input or
    output gradient, or None when it can."""
    compiled_note = ("it needs Numba with the compiled kernels on (DYGRAPH_COMPILED) and "
                     "non-empty NumPy float32 or float64 arrays")
    if name.startswith("depthwise") and not _depthwise(w_shape, geo):
        return (f"it runs depthwise convs only (groups = in channels = out channels), not "
                f"groups={geo.groups} with weight shape {tuple(w_shape)}")
    if name in ("depthwise_compiled", "channels_last") and a.ndim != 4:
        return f"it runs 2-D convs only, not {a.ndim - 2}-D"
    if name == "depthwise_compiled" and depthwise_kernel(xp, a) is None:
        return compiled_note
    if name == "channels_last":
        if geo.groups != 1:
            return f"it runs convs without groups only, not groups={geo.groups}"
        if compiled.kernels("channels_last", xp, a) is None:
            return compiled_note
    if name == "implicit" and not blas.available(xp, a.dtype):
        return f"it needs NumPy float32 or float64 arrays and OpenBLAS, not {a.dtype}"
    if name == "pointwise" and not pointwise(w_shape[2:], geo):
        return (f"it runs 1x1 filters with stride 1 and no padding only, not filter "
                f"{tuple(w_shape[2:])}, stride {tuple(geo.stride)}, padding {geo.pads}")
    if name == "rows" and geo.stride[-1] != 1:
        return f"it needs stride 1 in the last dim, not {geo.stride[-1]}"
    return None


def _forced(product, names, xp, a, w_shape, geo):
    """The forced path when `product` has one of that name (checked), else None."""
    name = _FORCED[0]
    if name is None or name not in names:
        return None
    reason = _unfit(name, xp, a, w_shape, geo)
    if reason is not None:
        raise ValueError(f"conv path {name!r} (forced) cannot run the {product} of this conv "
                         f"(shapes {tuple(a.shape)} and weight {tuple(w_shape)}): {reason}")
    return name


def forward_path(xp, x, w, geo):
    """The forward's path for x (N, C, *S) and w (M, C/groups, *k): the module's table.

    Example:
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1,), (1,), ((1, 1),), 1)
        >>> forward_path(np, np.ones((2, 4, 9)), np.ones((3, 4, 3)), geo)
        'batch_last'
    """
    name = _forced("forward", FORWARD_PATHS, xp, x, w.shape, geo)
    if name is None:
        name = _forward_table(xp, x, w, geo)
    return log_choice("conv forward", name, x, w)


def _forward_table(xp, x, w, geo):
    in_sizes, ksize = x.shape[2:], w.shape[2:]
    osz = geo.out_sizes(in_sizes, ksize)
    if _depthwise(w.shape, geo):
        kernel = depthwise_kernel(xp, x, w)
        return ("depthwise_compiled" if kernel is not None and kernel.pays(ksize, geo, osz)
                else "depthwise")
    if channels_last.kernel_for(xp, x, w, geo, in_sizes, osz) is not None:
        return "channels_last"
    if implicit_pays(xp, x.dtype, in_sizes, w.shape, geo):
        return "implicit"
    if _batch_last_pays(xp, x.shape[0], osz, w, geo):
        return "batch_last"
    if pointwise(ksize, geo) and per_sample(x.shape[1], geo.groups, prod(osz)):
        return "pointwise"
    return "im2col"


def data_path(xp, g, w, in_sizes, geo, after=None):
    """The data gradient's path for g (N, M, *O) and w onto (N, C, *in_sizes); `after` is
    the forward's path when a forward ran (its backward follows it but after im2col).

    Example:
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1,), (1,), ((1, 1),), 1)
        >>> data_path(np, np.ones((2, 3, 9)), np.ones((3, 4, 3)), (9,), geo, after="implicit")
        'implicit'
    """
    name = _forced("data gradient", DATA_PATHS, xp, g, w.shape, geo)
    if name is None:
        name = (after if after not in (None, "im2col") else
                _data_table(xp, g, w, in_sizes, geo))
    return log_choice("conv data gradient", name, g, w)


def _data_table(xp, g, w, in_sizes, geo):
    ksize, osz = w.shape[2:], g.shape[2:]
    if _depthwise(w.shape, geo):
        kernel = depthwise_kernel(xp, g, w)
        return ("depthwise_compiled" if kernel is not None and kernel.pays(ksize, geo, osz)
                else "depthwise")
    if channels_last.kernel_for(xp, g, w, geo, in_sizes, osz, data=True) is not None:
        return "channels_last"
    if _batch_last_pays(xp, g.shape[0], osz, w, geo):
        return "batch_last"
    if implicit_pays(xp, g.dtype, in_sizes, w.shape, geo, data=True):
        return "implicit"
    if pointwise(ksize, geo) and per_sample(w.shape[1] * geo.groups, geo.groups, prod(osz)):
        return "pointwise"
    if _rows_pay(osz[-1], in_sizes[-1], geo, g.shape[0] * prod(osz), w):
        return "rows"
    return "im2col"


def filter_path(xp, x, g, ksize, geo, after=None):
    """The filter gradient's path for x (N, C, *S) and g (N, M, *O); `after` as for
    data_path.

    Example:
        >>> from dygraph.ops.conv.im2col import Geometry
        >>> geo = Geometry((1,), (1,), ((0, 0),), 1)
        >>> filter_path(np, np.ones((2, 4, 9)), np.ones((2, 3, 9)), (1,), geo)
        'pointwise'
    """
    w_shape = (g.shape[1], x.shape[1] // geo.groups) + tuple(ksize)
    name = _forced("filter gradient", FILTER_PATHS, xp, x, w_shape, geo)
    if name is None:
        name = (after if after not in (None, "im2col") else
                _filter_table(xp, x, g, w_shape, geo))
    return log_choice("conv filter gradient", name, x, g)


def _filter_table(xp, x, g, w_shape, geo):
    ksize, osz = w_shape[2:], g.shape[2:]
    if _depthwise(w_shape, geo):
        kernel = depthwise_kernel(xp, x, g)
        return ("depthwise_compiled" if kernel is not None and kernel.pays(ksize, geo, osz)
                else "depthwise")
    if implicit_pays(xp, x.dtype, x.shape[2:], w_shape, geo):
        return "implicit"
    if pointwise(ksize, geo) and per_sample(x.shape[1], geo.groups, prod(osz)):
        return "pointwise"
    return "im2col"
