"""Layer norm's element-wise work on a GPU as four kernels around cuBLAS's row sums
(dygraph/ops/normalization/layer_rows.py): two forward, two backward.

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> sorted(n for n in KERNEL_SPECS if n.startswith("layer_norm"))[0]
    'layer_norm_center'
"""

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["layer_norm_center", "layer_norm_scale", "layer_norm_products", "layer_norm_dx"]

# Layer norm over rows of n elements (i = row * n + j), around cuBLAS's row sums
# (dygraph/ops/normalization/layer_rows.py). Center: x minus its row's mean, and its square.
_LAYER_NORM_CENTER = """
const T c = x - mean[i / n];
xhat = c;
sq = c * c;
"""

# Scale: from the row's sum of squares `var`, rstd = 1 / sqrt(var / n + eps) (kept per row)
# normalizes xhat in place; y = xhat * w + b.
_LAYER_NORM_SCALE = """
const ptrdiff_t row = i / n, j = i - row * n;
const T one = 1;
const T r = one / sqrt(var[row] / (T)n + eps);
const T h = xhat * r;
xhat = h;
T v = has_w ? h * w[j] : h;
if (has_b) v += b[j];
y = v;
if (j == 0) rstd[row] = r;
"""

# Backward, the products: gh = g * w, gx = gh * xhat (their row sums make dx) and, for the
# weight's gradient, g * xhat.
_LAYER_NORM_PRODUCTS = """
const T gw = has_w ? g * w[i % n] : g;
gh = gw;
gx = gw * xhat;
if (has_gxw) gxw[i] = g * xhat;
"""

# dx = (gh - (xhat * sum_gx / n + mean_g)) * rstd, the sums per row.
_LAYER_NORM_DX = """
const ptrdiff_t row = i / n;
dx = (gh - (xhat * (sum_gx[row] / (T)n) + mean_g[row])) * rstd[row];
"""

define("layer_norm_center", "T x, raw T mean, int64 n", "T xhat, T sq", _LAYER_NORM_CENTER)
define("layer_norm_scale", "raw T var, raw T w, raw T b, T eps, int64 n, bool has_w, "
                         "bool has_b", "T xhat, T y, raw T rstd", _LAYER_NORM_SCALE)
define("layer_norm_products", "T g, T xhat, raw T w, int64 n, bool has_w, bool has_gxw",
                            "T gh, T gx, raw T gxw", _LAYER_NORM_PRODUCTS)
define("layer_norm_dx", "T gh, T xhat, raw T mean_g, raw T sum_gx, raw T rstd, int64 n",
                      "T dx", _LAYER_NORM_DX)


def layer_norm_center(x, mean, xhat, sq):
    """xhat = x - mean (per row of x [rows, n]) and sq = xhat ** 2, one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> x, xhat = cupy.array([[1.0, 3.0]]), cupy.empty((1, 2))  # doctest: +SKIP
        >>> sq = cupy.empty((1, 2))  # doctest: +SKIP
        >>> layer_norm_center(x, cupy.array([2.0]), xhat, sq); sq  # doctest: +SKIP
        array([[1., 1.]])
    """
    kernel("layer_norm_center")(x, mean, x.shape[1], xhat, sq)


def layer_norm_scale(var, w, b, eps, xhat, y, rstd):
    """From the rows' sums of squares `var` ([rows]) of the centered xhat [rows, n]:
    rstd = 1 / sqrt(var / n + eps) into `rstd` ([rows]), xhat normalized in place and
    y = xhat * w + b (w, b: [n] or None), one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> xhat, y = cupy.array([[-1.0, 1.0]]), cupy.empty((1, 2))  # doctest: +SKIP
        >>> rstd = cupy.empty(1)  # doctest: +SKIP
        >>> layer_norm_scale(cupy.array([2.0]), None, None, 0.0, xhat, y, rstd); y  # doctest: +SKIP
        array([[-1.,  1.]])
    """
    t = xhat.dtype.type
    kernel("layer_norm_scale")(var, xhat if w is None else w, xhat if b is None else b,
                                t(eps), xhat.shape[1], w is not None, b is not None, xhat,
                                y, rstd)


def layer_norm_products(g, xhat, w, gh, gx, gxw):
    """gh = g * w (g where w is None), gx = gh * xhat and, unless gxw is gx, gxw =
    g * xhat, for arrays [rows, n], one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> g, xhat = cupy.ones((1, 2)), cupy.array([[-1.0, 1.0]])  # doctest: +SKIP
        >>> gh, gx = cupy.empty((1, 2)), cupy.empty((1, 2))  # doctest: +SKIP
        >>> layer_norm_products(g, xhat, None, gh, gx, gx); gx  # doctest: +SKIP
        array([[-1.,  1.]])
    """
    kernel("layer_norm_products")(g, xhat, xhat if w is None else w, g.shape[1],
                                   w is not None, gxw is not gx, gh, gx, gxw)


def layer_norm_dx(gh, xhat, mean_g, sum_gx, rstd, dx):
    """dx = (gh - (xhat * sum_gx / n + mean_g)) * rstd, the last three per row of the
    [rows, n] arrays, one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> gh, xhat = cupy.ones((1, 2)), cupy.zeros((1, 2))  # doctest: +SKIP
        >>> dx = cupy.empty((1, 2))  # doctest: +SKIP
        >>> one = cupy.ones(1)  # doctest: +SKIP
        >>> layer_norm_dx(gh, xhat, one, one, one, dx); dx  # doctest: +SKIP
        array([[0., 0.]])
    """
    kernel("layer_norm_dx")(gh, xhat, mean_g, sum_gx, rstd, gh.shape[1], dx)
