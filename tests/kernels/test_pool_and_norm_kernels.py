"""The GPU kernels of max pooling and of batch norm's running statistics
(dygraph/kernels/cuda/max_pool.py, batch_norm.py), checked without a GPU: each body is
compiled as host C++ (g++, no contraction of multiply-adds, as the kernels are compiled
with --fmad=false) and run over its elements as CuPy would (`i` the element, raw arrays
indexed flat), then compared to the bit with what the CPU computes for the same call:
the pooling's offset path (dygraph/ops/pool/windows.py) and batch_norm's update of its
running statistics; and with the NumPy statements the CuPy stand-in runs
(dygraph/kernels/cuda/references.py)."""

import ctypes

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import cudnn
from dygraph.kernels.cuda import max_pool
from dygraph.kernels.cuda.references import KERNELS
from dygraph.kernels.cuda.registry import KERNEL_SPECS
from dygraph.ops.conv.paths import force_path
from dygraph.ops.pool.windows import PoolGeometry, max_scatter
from dygraph.ops.pool.windows import max_pool as pool_on_arrays
from tests.kernels.elementwise_c import element_loop, host_library

C_TYPES = {"float32": "float", "float64": "double"}
# The kernels tested, with the parameters that are scalars (passed by value).
SCALARS = {"max_pool2d": {"H", "W", "OH", "OW", "KH", "KW", "SH", "SW", "PH", "PW", "low"},
           "max_scatter2d": {"H", "W", "OH", "OW", "KH", "KW", "SH", "SW", "PH", "PW"},
           "batch_norm_running": {"momentum", "rest", "eps"}}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    text = "#include <cmath>\nusing namespace std;\n" + "".join(
        element_loop(f"{name}_{dtype}", *KERNEL_SPECS[name], SCALARS[name], C_TYPES[dtype])
        for name in SCALARS for dtype in C_TYPES)
    return host_library(tmp_path_factory, "pool_norm", text)


def _call(library, name, dtype, args, n):
    """Run the host kernel over n elements: arrays by pointer, the rest by value."""
    scalar = {np.int32: ctypes.c_int, np.float32: ctypes.c_float, np.float64: ctypes.c_double}
    c_args = [a.ctypes.data_as(ctypes.c_void_p) if isinstance(a, np.ndarray)
              else scalar[type(a)](a) for a in args]
    getattr(library, f"{name}_{dtype}")(*c_args, ctypes.c_longlong(n))


def _bits(a):
    return np.ascontiguousarray(a).view(f"u{a.itemsize}")


# (input size, kernel, stride, padding, ceil_mode): overlapping windows, padding, a last
# partial window, windows wider than their stride, a window as large as the input.
GEOMETRIES = [((9, 9), (3, 3), (2, 2), (1, 1), False), ((8, 8), (2, 2), (2, 2), (0, 0), False),
              ((7, 10), (3, 2), (2, 3), (1, 0), True), ((5, 6), (3, 3), (1, 1), (1, 1), False),
              ((4, 4), (4, 4), (1, 1), (0, 0), False), ((6, 5), (2, 3), (3, 1), (1, 1), True)]


def _data(dtype, shape, seed=0):
    """Random values with ties (rounded), NaN, infinities and -0.0 among them."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.standard_normal(shape) * 2).astype(dtype)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, 4, replace=False)] = [np.nan, np.inf, -np.inf, -0.0]
    return x


@pytest.mark.parametrize("dtype", list(C_TYPES))
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_max_pool_kernels_compute_what_the_offset_path_computes(library, dtype, geometry):
    size, k, s, p, ceil = geometry
    geo = PoolGeometry.regular(size, k, s, ((p[0], p[0]), (p[1], p[1])), ceil)
    x = _data(dtype, (2, 3) + size)
    with force_path("pool_taps"):
        want_y, want_arg = pool_on_arrays(np, x, geo)
    shape = x.shape[:2] + tuple(geo.out_sizes)
    geometry_args = max_pool._geometry(size, geo.out_sizes, geo)
    low = x.dtype.type(np.finfo(x.dtype).min)
    y, arg = np.empty(shape, dtype), np.empty(shape, np.int32)
    _call(library, "max_pool2d", dtype, (x, *geometry_args, low, y, arg), y.size)
    np.testing.assert_array_equal(_bits(y), _bits(want_y))
    np.testing.assert_array_equal(arg, want_arg)
    stand_in = np.empty_like(y), np.empty_like(arg)
    KERNELS["dygraph_max_pool2d"](x, *geometry_args, low, *stand_in)
    np.testing.assert_array_equal(_bits(stand_in[0]), _bits(y))
    np.testing.assert_array_equal(stand_in[1], arg)

    g = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    with force_path("pool_taps"):
        want_dx = max_scatter(np, g, want_arg, geo)
    dx = np.empty(x.shape, dtype)
    _call(library, "max_scatter2d", dtype, (g, arg, *max_pool._geometry(size, shape[2:], geo),
                                            dx), dx.size)
    np.testing.assert_array_equal(dx + 0.0, want_dx + 0.0)  # (+0.0: -0.0 and 0.0 alike)
    stand_in = np.empty_like(dx)
    KERNELS["dygraph_max_scatter2d"](g, arg, *max_pool._geometry(size, shape[2:], geo),
                                     stand_in)
    np.testing.assert_array_equal(stand_in + 0.0, dx + 0.0)


@pytest.mark.parametrize("dtype", list(C_TYPES))
def test_running_update_computes_what_the_array_formula_computes(library, dtype):
    rng = np.random.default_rng(2)
    c, momentum, eps = 64, 0.9, 1e-5
    t = np.dtype(dtype).type
    mean = rng.standard_normal(c).astype(dtype)
    # rstd around 1 / sqrt(var + eps), one below 1 / sqrt(eps) (var clipped to 0), one NaN
    rstd = (1.0 / np.sqrt(rng.random(c) * 4 + eps)).astype(dtype)
    rstd[:3] = [t(1.0 / np.sqrt(eps)) * t(1.001), t(np.nan), t(1.0 / np.sqrt(eps))]
    old_mean, old_var = rng.standard_normal(c).astype(dtype), rng.random(c).astype(dtype)
    # The array formulas batch_norm ran before the kernel (ops/normalization/norms.py).
    var = cudnn.batch_variance(np, rstd, eps)
    want = []
    for running, batch in ((old_mean, mean), (old_var, var)):
        data = running.copy()
        data *= momentum
        data += ((1.0 - momentum) * batch).astype(data.dtype)
        want.append(data)
    got = np.empty(c, dtype), np.empty(c, dtype)
    _call(library, "batch_norm_running", dtype, (old_mean, old_var, mean, rstd, t(momentum),
                                                 t(1.0 - momentum), t(np.float32(eps)), *got), c)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(_bits(g), _bits(w))
    stand_in = KERNELS["dygraph_batch_norm_running"](
        old_mean, old_var, mean, rstd, t(momentum), t(1.0 - momentum), t(np.float32(eps)))
    for s, g in zip(stand_in, got):
        np.testing.assert_array_equal(_bits(s), _bits(g))


def test_the_functional_max_pool_takes_the_kernel_on_the_stand_in():
    from tools import cupy_standin

    x = _data("float32", (2, 3, 9, 9))
    x[np.isnan(x) | np.isinf(x)] = 0.5
    g = np.random.default_rng(3).standard_normal((2, 3, 5, 5)).astype(np.float32)

    def run():
        xt = dygraph.to_tensor(x, stop_gradient=False)
        y = F.max_pool2d(xt, 3, 2, 1)
        (y * dygraph.to_tensor(g)).sum().backward()
        return y.numpy(), xt.grad.numpy()

    with force_path("pool_taps"):
        want = run()
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            before = dict(cupy_standin.calls_by_name)
            got = run()
            made = {k: v - before.get(k, 0) for k, v in cupy_standin.calls_by_name.items()}
        finally:
            dygraph.set_device("cpu")
    assert made.get("max_pool2d") == 1 and made.get("max_scatter2d") == 1
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
