"""interpolate / upsample: nearest, linear, bilinear, trilinear, bicubic and area resizing.

Each mode is separable: along one spatial axis every output position is a weighted sum of a
few input positions (1 for nearest, 2 for linear, 4 for bicubic, a window for area). This
module computes those source positions and weights with Paddle's coordinate rules (ratios
in float32, as its kernels compute them); ops/nn/resample.py turns them into one AxisMap per
resized axis and runs them (and their transposes for the gradient).
"""

import functools

import numpy as np

from dygraph.autograd.function import apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import float_operand
from dygraph.ops.nn.resample import AxisMap, Resample
from dygraph.tensor.tensor import Tensor

__all__ = ["interpolate", "upsample"]
NONDIFF = set()

_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_MODE_NDIM = {"linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,),
              "nearest": (3, 4, 5), "area": (3, 4, 5)}
_CUBIC_A = -0.75  # the cubic convolution parameter of Paddle's (and OpenCV's) bicubic


# -- coordinate rules (Paddle's interpolate kernels) ----------------------------------------
def _ratio(n_in, n_out, scale, align_corners, single_step):
    """Source step per output step, in float32 as Paddle computes it. For one output
    position Paddle's bilinear, bicubic and nearest kernels use 0 (they read the first
    pixel) while its linear and trilinear kernels keep in / out (`single_step`)."""
    if n_out <= 1 and (align_corners or not single_step):
        return np.float32(0.0)
    if align_corners:
        return np.float32(n_in - 1) / np.float32(n_out - 1)
    if scale is not None:
        return np.float32(1.0 / float(np.float32(scale)))
    return np.float32(n_in) / np.float32(n_out)


def _linear_taps(n_in, n_out, ratio, align_corners, align_mode):
    k = np.arange(n_out)
    if align_mode == 0 and not align_corners:  # pixel centres
        centre = np.float64(ratio) * (k + 0.5) - 0.5
        low = np.maximum(np.trunc(centre).astype(np.int64), 0)
        lam = np.maximum(centre, 0.0).astype(np.float32) - low
    else:
        corner = ratio * k.astype(np.float32)  # a float32 product, as in the kernel
        low = corner.astype(np.int64)
        lam = corner - low
    low = np.minimum(low, n_in - 1)
    high = np.minimum(low + 1, n_in - 1)
    lam = lam.astype(np.float64)
    return np.stack([low, high]), np.stack([1.0 - lam, lam])


def _nearest_taps(n_in, n_out, ratio, align_corners):
    k = np.arange(n_out)
    pos = ratio * k.astype(np.float32)
    if align_corners:
        pos = pos.astype(np.float64) + 0.5
    return np.clip(pos.astype(np.int64), 0, n_in - 1)[None], None


def _cubic_weights(t):
    a = _CUBIC_A

    def near(s):  # |s| <= 1
        return ((a + 2) * s - (a + 3)) * s * s + 1

    def far(s):  # 1 < |s| < 2
        return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a

    return np.stack([far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)])


def _cubic_taps(n_in, n_out, ratio, align_corners):
    k = np.arange(n_out, dtype=np.float64)
    src = np.float64(ratio) * k if align_corners else np.float64(ratio) * (k + 0.5) - 0.5
    low = np.floor(src)
    index = np.clip(low.astype(np.int64)[None] + np.arange(-1, 3)[:, None], 0, n_in - 1)
    return index, _cubic_weights(src - low)


def _area_taps(n_in, n_out):
    """Adaptive average pooling windows [floor(k n / m), ceil((k + 1) n / m))."""
    k = np.arange(n_out)
    start = (k * n_in) // n_out
    end = -((-(k + 1) * n_in) // n_out)
    width = end - start
    taps = np.arange(int(width.max()))[:, None]
    index = np.minimum(start + taps, end - 1)
    weight = (start + taps < end) / width
    return index, weight


def _antialias_filter(x, cubic):
    """The filter of antialiased resizing: the triangle (bilinear), or the cubic kernel
    with a = -0.5 (bicubic), at distances x in input pixels (of the stretched filter)."""
    x = np.abs(x)
    if not cubic:
        return np.maximum(1.0 - x, 0.0)
    a = -0.5
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def _antialias_taps(n_in, n_out, ratio, cubic):
    """Antialiased taps (Paddle's and PyTorch's rule): when shrinking (ratio > 1) the filter
    is stretched by the ratio, so that every input pixel contributes; each output position
    reads the input pixels within the filter's support around its centre, with the filter's
    weights normalized to sum to 1."""
    scale = float(ratio)
    support = (2.0 if cubic else 1.0) * max(scale, 1.0)
    centre = scale * (np.arange(n_out) + 0.5)
    # (truncation toward zero, as the kernels' int casts)
    start = np.maximum((centre - support + 0.5).astype(np.int64), 0)
    stop = np.minimum((centre + support + 0.5).astype(np.int64), n_in)
    pos = start + np.arange(int((stop - start).max()))[:, None]
    weight = _antialias_filter((pos - centre + 0.5) / max(scale, 1.0), cubic) * (pos < stop)
    total = weight.sum(axis=0)
    return np.minimum(pos, n_in - 1), weight / np.where(total == 0, 1.0, total)


@functools.lru_cache(maxsize=256)  # one map (and its device tables) per resize, reused
def _axis_map(mode, axis, n_in, n_out, scale, align_corners, align_mode, antialias=False):
    # (an antialiased single output keeps in / out, as linear does)
    ratio = _ratio(n_in, n_out, scale, align_corners,
                   antialias or mode in ("linear", "trilinear"))
    if antialias:
        index, weight = _antialias_taps(n_in, n_out, ratio, mode == "bicubic")
    elif mode == "nearest":
        index, weight = _nearest_taps(n_in, n_out, ratio, align_corners)
    elif mode == "bicubic":
        index, weight = _cubic_taps(n_in, n_out, ratio, align_corners)
    elif mode == "area":
        index, weight = _area_taps(n_in, n_out)
    else:
        index, weight = _linear_taps(n_in, n_out, ratio, align_corners, align_mode)
    return AxisMap(axis, n_in, index, weight)


# -- argument handling -----------------------------------------------------------------------
def _values(v, n, name):
    """An int/float, list/tuple (items may be Tensors) or Tensor -> n Python numbers."""
    if isinstance(v, Tensor):
        v = v.numpy().reshape(-1).tolist()
        if len(v) == 1:  # a one-element Tensor counts for every spatial dim
            v = v[0]
    if isinstance(v, (list, tuple)):
        v = [x.item() if isinstance(x, Tensor) else x for x in v]
        if len(v) != n:
            raise op_error("interpolate", f"{name} {v} has {len(v)} values; a {n + 2}-D input "
                           f"needs {n}")
        return v
    if isinstance(v, (int, float, np.integer, np.floating)):
        return [v] * n
    raise op_error("interpolate", f"{name} must be a number, a list/tuple or a Tensor, got "
                   f"{type(v).__name__}", TypeError)


def _check_args(ndim, mode, align_corners, align_mode, data_format, antialias=False):
    if ndim not in _FORMATS:
        raise op_error("interpolate", f"x must be a 3-D, 4-D or 5-D tensor, got {ndim}-D")
    if data_format is None:
        data_format = _FORMATS[ndim][0]
    data_format = str(data_format).upper()
    if data_format not in _FORMATS[ndim]:
        raise op_error("interpolate", f"data_format {data_format!r} does not fit a {ndim}-D "
                       f"input; expected {' or '.join(_FORMATS[ndim])}")
    mode = str(mode).lower()
    if mode not in _MODE_NDIM:
        raise op_error("interpolate", f"mode must be one of {sorted(_MODE_NDIM)}, got {mode!r}")
    if ndim not in _MODE_NDIM[mode]:
        raise op_error("interpolate", f"mode {mode!r} needs a "
                       f"{' or '.join(f'{n}-D' for n in _MODE_NDIM[mode])} input, got {ndim}-D")
    if not isinstance(align_corners, (bool, np.bool_)):
        raise op_error("interpolate", f"align_corners must be a bool, got "
                       f"{type(align_corners).__name__}", TypeError)
    if align_mode not in (0, 1):
        raise op_error("interpolate", f"align_mode must be 0 or 1, got {align_mode}")
    if antialias and mode not in ("bilinear", "bicubic"):
        raise op_error("interpolate", f"antialias needs mode 'bilinear' or 'bicubic', got "
                       f"{mode!r}")
    return mode, data_format


def _out_sizes(in_sizes, size, scale_factor, mode, recompute_scale_factor):
    n = len(in_sizes)
    if size is None and scale_factor is None:
        raise op_error("interpolate", "one of size and scale_factor must be given")
    if size is not None and scale_factor is not None:
        raise op_error("interpolate", "only one of size and scale_factor may be given")
    if mode == "area" and size is None:
        raise op_error("interpolate", "mode 'area' needs size (the output size)")
    if size is not None:
        sizes = [int(s) for s in _values(size, n, "size")]
        if any(s <= 0 for s in sizes):
            raise op_error("interpolate", f"every output size must be > 0, got {sizes}")
        return sizes, [None] * n
    scales = [float(s) for s in _values(scale_factor, n, "scale_factor")]
    if any(s <= 0 for s in scales):
        raise op_error("interpolate", f"scale_factor must be > 0, got {scale_factor}")
    sizes = [int(np.float32(i) * np.float32(s)) for i, s in zip(in_sizes, scales)]
    if any(s <= 0 for s in sizes):
        raise op_error("interpolate", f"scale_factor {scale_factor} gives output size {sizes} "
                       f"for input size {list(in_sizes)}; every size must be > 0")
    return sizes, ([None] * n if recompute_scale_factor else scales)


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format=None, recompute_scale_factor=None, antialias=False,
                name=None):
    """Resize the spatial dims of a 3-D (linear, nearest, area), 4-D (bilinear, bicubic,
    nearest, area) or 5-D (trilinear, nearest, area) input to `size`, or by `scale_factor`
    (output size floor(in * scale)). data_format (default by rank: NCW, NCHW, NCDHW) says
    where the channels are.

    Source coordinates follow Paddle: with align_corners the corner pixels align
    (src = dst * (in - 1) / (out - 1)); otherwise align_mode 0 uses pixel centres
    (src = (dst + 0.5) * in / out - 0.5, clamped at 0) and align_mode 1 uses
    src = dst * in / out. With scale_factor given, in / out is 1 / scale_factor.
    antialias (bilinear and bicubic only) widens the filter by in / out when shrinking, so
    that every input pixel counts (the cubic kernel then uses a = -0.5), as Paddle does.

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
        >>> F.interpolate(x, scale_factor=2).numpy()[0, 0, 0]
        array([1., 1., 2., 2.], dtype=float32)
        >>> F.interpolate(x, size=[3, 3], mode='bilinear', align_corners=True).numpy()[0, 0, 1]
        array([2. , 2.5, 3. ], dtype=float32)
    """
    x = float_operand(x, "interpolate")
    shape = x._data.shape
    mode, data_format = _check_args(len(shape), mode, align_corners, align_mode, data_format,
                                    bool(antialias))
    first = 2 if data_format[1] == "C" else 1
    axes = list(range(first, first + len(shape) - 2))
    in_sizes = [shape[a] for a in axes]
    sizes, scales = _out_sizes(in_sizes, size, scale_factor, mode, recompute_scale_factor)
    maps = []
    if sizes != in_sizes:  # Paddle copies the input when no size changes
        for a, n_in, n_out, s in zip(axes, in_sizes, sizes, scales):
            amap = _axis_map(mode, a, n_in, n_out, s, bool(align_corners), align_mode,
                             bool(antialias))
            if not amap.is_identity():
                maps.append(amap)
    return apply(Resample(maps), x)


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
             align_mode=0, data_format=None, name=None):
    """The same resizing as interpolate (Paddle's other name for it).

    Example:
        >>> import dygraph
        >>> import dygraph.nn.functional as F
        >>> x = dygraph.to_tensor([[[1.0, 3.0]]])
        >>> F.upsample(x, size=[3], mode='linear', align_corners=True).numpy()
        array([[[1., 2., 3.]]], dtype=float32)
    """
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)
