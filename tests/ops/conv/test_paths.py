"""Every conv path on every layout (conv_paths.py chooses; conv_kernels.py runs them).

For geometries that reach each path's range, every path that can take the geometry is
forced (conv_paths.force_path) and its forward, data, filter and bias gradients are checked
against a float64 reference that sums one tap at a time, in float32 and float64, with the
input, weight and upstream gradient contiguous, broadcast (zero strides), Fortran-ordered,
reversed (negative strides) or sliced (every other element of a NaN-filled buffer). The
gradients run both as a Conv's backward (after its forward, reading what it kept) and
alone (conv_data: the transposed conv; conv_filter: double backward). Forcing a path that
cannot take a geometry must raise. Then: the selector's defaults, the environment switch,
the debug log, the bias gradient's float32 accuracy, and pooling's paths on every layout.
"""

import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import blas, compiled
from dygraph.ops.conv import convolution as conv_op
from dygraph.ops.conv import paths as conv_paths
from dygraph.ops.conv.products import conv_backward, conv_data, conv_filter, conv_forward
from dygraph.ops.pool import windows as pool_kernels
from dygraph.ops.pool.windows import PoolGeometry
from dygraph.tensor.tensor import _new_tensor
from tests.op_specs.spec_conv import conv_ref
from tests.op_specs.spec_pooling import pool_ref
from tests.ops.conv.geometry import geometry

pytestmark = pytest.mark.skipif(not blas.available(np, np.float32),
                                reason="the implicit path needs NumPy's OpenBLAS")
COMPILED = compiled.enabled()

# name: (x shape, w shape, stride, padding, dilation, groups, the forward's own path with
# Numba on): between them every path's range, the big-map ones included.
CASES = {
    "lenet2": ((4, 20, 12, 12), (10, 20, 5, 5), 1, 0, 1, 1, "channels_last"),
    "map16": ((2, 16, 16, 16), (16, 16, 3, 3), 1, 1, 1, 1, "implicit"),
    "strided": ((2, 16, 9, 8), (16, 16, 3, 3), 2, 1, 1, 1, "channels_last"),
    "dilated": ((2, 8, 11, 10), (6, 8, 3, 2), (2, 1), ((2, 0), (1, 1)), (1, 2), 1, "im2col"),
    "groups": ((3, 8, 7, 7), (8, 4, 3, 3), 1, 1, 1, 2, "im2col"),
    "stem": ((1, 3, 16, 16), (8, 3, 7, 7), 2, 3, 1, 1, "channels_last"),
    "first_layer": ((2, 3, 20, 20), (4, 3, 3, 3), 1, 0, 1, 1, "im2col"),
    "many_samples": ((40, 3, 4, 4), (2, 3, 2, 2), 1, 0, 1, 1, "batch_last"),
    "pointwise": ((3, 32, 8, 8), (24, 32, 1, 1), 1, 0, 1, 1, "pointwise"),
    "pointwise_small": ((4, 64, 2, 2), (32, 64, 1, 1), 1, 0, 1, 1, "im2col"),
    "depthwise_same": ((2, 6, 10, 9), (6, 1, 3, 3), 1, 1, 1, 6, "depthwise_compiled"),
    "depthwise_same_s2": ((2, 4, 9, 8), (4, 1, 3, 3), 2, 1, 1, 4, "depthwise_compiled"),
    "depthwise_phases": ((2, 4, 19, 18), (4, 1, 3, 3), 2, 0, 1, 4, "depthwise_compiled"),
    "depthwise_small": ((2, 4, 6, 6), (4, 1, 3, 3), 2, 0, 1, 4, "depthwise"),
    "conv1d": ((2, 8, 20), (6, 8, 3), 1, 1, 1, 1, "batch_last"),
    "conv3d": ((2, 4, 5, 6, 5), (3, 4, 2, 3, 2), (1, 2, 1), 1, 1, 1, "im2col"),
}
LAYOUTS = ("contiguous", "broadcast", "fortran", "reversed", "sliced")


def _geometry(case):
    x_shape, w_shape, stride, padding, dilation, groups, _ = CASES[case]
    return geometry(stride, padding, dilation, groups, len(x_shape) - 2)


def _paths(case):
    """The paths that can take a case's geometry (with Numba on, the compiled ones too)."""
    x_shape, w_shape, *_ = CASES[case]
    geo = _geometry(case)
    two_d = len(x_shape) == 4
    paths = {"implicit", "batch_last", "im2col"}
    if geo.groups > 1 and w_shape[0] == geo.groups and w_shape[1] == 1:
        paths |= {"depthwise", "depthwise_compiled"} if two_d and COMPILED else {"depthwise"}
    if two_d and geo.groups == 1 and COMPILED:
        paths.add("channels_last")
    if conv_paths.pointwise(w_shape[2:], geo):
        paths.add("pointwise")
    if geo.stride[-1] == 1:
        paths.add("rows")
    return paths


def _values(case, broadcast):
    """float64 (x, w, b, g) of a case; with `broadcast`, x and g constant over the batch and
    the first spatial dim (so that a zero-strided view can hold them)."""
    x_shape, w_shape, *_ = CASES[case]
    rng = np.random.default_rng(len(case))
    geo = _geometry(case)
    out = geo.out_sizes(x_shape[2:], w_shape[2:])
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    b, g = rng.standard_normal(w_shape[0]), rng.standard_normal((x_shape[0], w_shape[0]) + out)
    if broadcast:
        x = np.broadcast_to(x[:1, :, :1], x.shape).copy()
        g = np.broadcast_to(g[:1, :, :1], g.shape).copy()
    return x, w, b, g


_REFERENCES = {}


def _reference(case, broadcast):
    """(x, w, b, g, y, dx, dw, db) in float64: y by spec_conv's conv_ref, the gradients by
    the same walk over the taps, each tap's window of the padded input read (dW) or added
    into (dx)."""
    key = (case, broadcast)
    if key not in _REFERENCES:
        x, w, b, g = _values(case, broadcast)
        geo = _geometry(case)
        pads = [p for pair in geo.pads for p in pair]
        y = conv_ref(x, w, b, list(geo.stride), pads, list(geo.dilation), geo.groups)
        xp = np.pad(x, [(0, 0), (0, 0)] + list(geo.pads))
        dxp, dw = np.zeros_like(xp), np.zeros_like(w)
        grp, out = geo.groups, g.shape[2:]
        mg, cg = w.shape[0] // grp, w.shape[1]
        o = "pqr"[:len(out)]
        for tap in np.ndindex(*w.shape[2:]):
            index = (slice(None), slice(None)) + tuple(
                slice(t * d, t * d + s * (o - 1) + 1, s)
                for t, d, s, o in zip(tap, geo.dilation, geo.stride, out))
            for k in range(grp):
                ms, cs = slice(k * mg, (k + 1) * mg), slice(k * cg, (k + 1) * cg)
                dw[(ms, slice(None)) + tap] += np.einsum(f"nm{o},nc{o}->mc", g[:, ms],
                                                         xp[index][:, cs])
                dxp[index][:, cs] += np.einsum("nm...,mc->nc...", g[:, ms],
                                               w[(ms, slice(None)) + tap])
        dx = dxp[(slice(None), slice(None)) + geo.unpadded(x.shape[2:])]
        db = g.sum(axis=(0,) + tuple(range(2, g.ndim)))
        _REFERENCES[key] = (x, w, b, g, y, dx, dw, db)
    return _REFERENCES[key]


def _laid_out(a, layout, data=True):
    """`a` (C-ordered, values fit for the layout) as a view in `layout`, same values. A
    weight or bias (not `data`) stays C-ordered in the broadcast layout."""
    if layout == "contiguous" or (layout == "broadcast" and not data):
        return a
    if layout == "broadcast":
        return np.broadcast_to(a[:1, :, :1], a.shape)
    if layout == "fortran":
        return np.asfortranarray(a)
    if layout == "reversed":
        return np.flip(np.ascontiguousarray(np.flip(a)))
    big = np.full(tuple(2 * s + 1 for s in a.shape), np.nan, a.dtype)
    view = big[tuple(slice(1, 1 + 2 * s, 2) for s in a.shape)]
    view[...] = a
    return view


def _close(got, want, dtype, what):
    """got against the float64 `want`, relative to want's largest value."""
    assert got.shape == want.shape and got.dtype == dtype, what
    scale = max(np.abs(want).max(), 1.0)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    err = np.abs(got.astype(np.float64) - want).max() / scale
    assert err <= tol, f"{what}: relative error {err:.2e} > {tol:.0e}"


def _case_path_pairs():
    return [(case, path) for case in CASES for path in conv_paths.DATA_PATHS]


@pytest.mark.parametrize("case, path", _case_path_pairs())
def test_every_path_on_every_layout_matches_the_float64_reference(case, path):
    x_shape, w_shape, *_ = CASES[case]
    geo = _geometry(case)
    if path not in _paths(case):
        x, w = np.ones(x_shape), np.ones(w_shape)
        g = np.ones((x_shape[0], w_shape[0]) + geo.out_sizes(x_shape[2:], w_shape[2:]))
        with conv_paths.force_path(path), pytest.raises(ValueError, match=repr(path)):
            if path == "rows":  # the data gradient's path only
                conv_data(np, g, w, x_shape[2:], geo)
            else:
                conv_forward(np, x, w, None, geo)
        return
    in_sizes, ksize = x_shape[2:], w_shape[2:]
    for layout in LAYOUTS:
        x64, w64, b64, g64, *want = _reference(case, layout == "broadcast")
        for dtype in (np.float32, np.float64):
            x, w, b, g = (_laid_out(a.astype(dtype), layout, data) for a, data in
                          ((x64, True), (w64, False), (b64, False), (g64, True)))
            what = f"{case} on {path}, {layout} {np.dtype(dtype).name}"
            with conv_paths.force_path(path):
                forward = conv_paths.forward_path(np, x, w, geo)
                assert forward == path or path == "rows", what
                y, kept = conv_forward(np, x, w, b, geo, keep_cols=True, path=forward)
                grads = conv_backward(np, x, w, g, in_sizes, geo, forward, kept,
                                      (True, True, True))
                alone = (conv_data(np, g, w, in_sizes, geo), conv_filter(np, x, g, ksize, geo))
            del kept
            for got, ref, name in zip((y,) + grads + alone, want + want[1:3],
                                      ("y", "dx", "dw", "db", "dx alone", "dw alone")):
                _close(got, ref, dtype, f"{what}: {name}")


@pytest.mark.parametrize("path", conv_paths.FORWARD_PATHS)
def test_the_gradient_of_a_sum_through_the_op_on_every_path(monkeypatch, path):
    # The issue's case: from 4096 outputs sum()'s gradient is a broadcast view (all strides
    # zero), which the 1x1 filter gradient handed to BLAS as it was. The input is reversed.
    x_shape, w_shape, groups = {
        "depthwise_compiled": ((8, 8, 10, 9), (8, 1, 3, 3), 8),
        "depthwise": ((8, 8, 10, 9), (8, 1, 3, 3), 8),
        "pointwise": ((3, 32, 8, 8), (24, 32, 1, 1), 1)}.get(
            path, ((8, 20, 12, 12), (10, 20, 5, 5), 1))
    padding = (w_shape[-1] - 1) // 2 if groups > 1 else 0
    geo = geometry(1, padding, 1, groups, 2)
    if not COMPILED and path in ("depthwise_compiled", "channels_last"):
        pytest.skip("the compiled kernels are off")
    rng = np.random.default_rng(9)
    x64, w64 = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    x = _new_tensor(_laid_out(x64.astype(np.float32), "reversed"), None, 0, False)
    w = dygraph.to_tensor(w64.astype(np.float32), stop_gradient=False)
    seen = []
    monkeypatch.setattr(conv_op, "conv_backward",
                        lambda xp, x, w, g, *rest: seen.append(g.strides) or conv_backward(
                            xp, x, w, g, *rest))
    with conv_paths.force_path(path):
        F.conv2d(x, w, padding=padding, groups=groups).sum().backward()
    assert seen and all(s == 0 for s in seen[0])
    ones = np.ones((x_shape[0], w_shape[0]) + geo.out_sizes(x_shape[2:], w_shape[2:]))
    with conv_paths.force_path("im2col"):
        want_dx = conv_data(np, ones, w64, x_shape[2:], geo)
        want_dw = conv_filter(np, x64, ones, w_shape[2:], geo)
    _close(x.grad.numpy(), want_dx, np.float32, f"{path}: dx")
    _close(w.grad.numpy(), want_dw, np.float32, f"{path}: dw")


@pytest.mark.skipif(not COMPILED, reason="the compiled kernels are off")
@pytest.mark.parametrize("case", list(CASES))
def test_each_case_reaches_the_path_it_stands_for(case):
    x_shape, w_shape, *_, own = CASES[case]
    x, w = np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32)
    assert conv_paths.forward_path(np, x, w, _geometry(case)) == own


def test_the_backward_follows_the_forward_and_a_force_overrides_it():
    x_shape, w_shape, *_ = CASES["map16"]
    geo = _geometry("map16")
    x, g = np.zeros(x_shape, np.float32), np.zeros(x_shape, np.float32)
    w = np.zeros(w_shape, np.float32)
    assert conv_paths.data_path(np, g, w, x_shape[2:], geo, after="batch_last") == "batch_last"
    assert conv_paths.filter_path(np, x, g, (3, 3), geo, after="implicit") == "implicit"
    # After im2col (or with no forward) the gradients choose by their own tables.
    assert conv_paths.data_path(np, g, w, x_shape[2:], geo, after="im2col") == "implicit"
    with conv_paths.force_path("rows"):
        assert conv_paths.forward_path(np, x, w, geo) == "implicit"  # no forward "rows"
        assert conv_paths.data_path(np, g, w, x_shape[2:], geo, after="implicit") == "rows"
    assert conv_paths.forced_path() is None
    with pytest.raises(ValueError, match="unknown conv or pool path 'fastest'"):
        with conv_paths.force_path("fastest"):
            pass


def test_the_error_names_the_path_and_the_reason():
    geo = geometry(1, 1, 1, 1, 2)
    x, w = np.ones((2, 4, 6, 6)), np.ones((4, 4, 3, 3))
    with conv_paths.force_path("pointwise"), pytest.raises(
            ValueError, match=r"'pointwise' \(forced\) cannot run the forward .* 1x1 filters"):
        conv_forward(np, x, w, None, geo)
    with conv_paths.force_path("depthwise"), pytest.raises(ValueError, match="depthwise convs"):
        F.conv2d(dygraph.to_tensor(x), dygraph.to_tensor(w), padding=1)


def test_the_environment_variable_forces_a_path_and_the_log_says_which_ran():
    script = ("import logging, numpy as np, dygraph, dygraph.nn.functional as F\n"
              "logging.basicConfig(level=logging.DEBUG, format='%(name)s %(message)s')\n"
              "x = dygraph.to_tensor(np.ones((2, 8, 6, 6), np.float32), stop_gradient=False)\n"
              "F.conv2d(x, dygraph.ones([4, 8, 3, 3])).sum().backward()\n")
    env = dict(os.environ, DYGRAPH_CONV_PATH="batch_last")
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=120, check=True, cwd=root)
    assert "dygraph.conv conv forward: batch_last path" in run.stderr
    assert "dygraph.conv conv data gradient: batch_last path" in run.stderr
    env["DYGRAPH_CONV_PATH"] = "warp_speed"
    bad = subprocess.run([sys.executable, "-c", "import dygraph.nn.functional"], env=env,
                         capture_output=True, text=True, timeout=120, cwd=root)
    assert bad.returncode != 0 and "DYGRAPH_CONV_PATH" in bad.stderr


def test_the_log_is_silent_unless_debug(caplog):
    x, w = np.ones((2, 8, 6, 6)), np.ones((4, 8, 3, 3))
    geo = geometry(1, 0, 1, 1, 2)
    with caplog.at_level(logging.INFO, logger="dygraph.conv"):
        conv_paths.forward_path(np, x, w, geo)
    assert caplog.records == []
    with caplog.at_level(logging.DEBUG, logger="dygraph.conv"):
        name = conv_paths.forward_path(np, x, w, geo)
    assert [r.getMessage() for r in caplog.records] == [
        f"conv forward: {name} path (shapes (2, 8, 6, 6), (4, 8, 3, 3))"]


@pytest.mark.parametrize("case", ["lenet2_batch64", "lenet1_batch64", "depthwise_same"])
def test_float32_bias_gradient_is_as_accurate_as_a_pairwise_sum(case):
    # LeNet's second conv at batch 64 summed its bias gradient row by row in float32 on the
    # channels-last path: 1.5e-4 off, against 4.3e-5 for NumPy's pairwise sum.
    shapes = {"lenet2_batch64": ((64, 20, 12, 12), (50, 20, 5, 5), 1),
              "lenet1_batch64": ((64, 1, 28, 28), (20, 1, 5, 5), 1),
              "depthwise_same": ((16, 32, 16, 16), (32, 1, 3, 3), 32)}
    x_shape, w_shape, groups = shapes[case]
    geo = geometry(1, (w_shape[-1] - 1) // 2 if groups > 1 else 0, 1, groups, 2)
    rng = np.random.default_rng(7)
    out = geo.out_sizes(x_shape[2:], w_shape[2:])
    g = (rng.standard_normal((x_shape[0], w_shape[0]) + out) + 0.5).astype(np.float32)
    want = g.astype(np.float64).sum(axis=(0, 2, 3))
    per_channel = np.ascontiguousarray(g.swapaxes(0, 1)).reshape(w_shape[0], -1)
    pairwise = np.abs(per_channel.sum(axis=1) - want).max()
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    for path in conv_paths.FORWARD_PATHS:
        if path == "pointwise" or (path.startswith("depthwise") != (groups > 1)) or (
                not COMPILED and path in ("channels_last", "depthwise_compiled")):
            continue
        with conv_paths.force_path(path):
            _, kept = conv_forward(np, x, w, None, geo, keep_cols=True, path=path)
            db = conv_backward(np, x, w, g, x_shape[2:], geo, path, kept,
                               (True, True, True))[2]
        assert np.abs(db - want).max() <= pairwise, path


POOLS = {
    "max2x2": ((2, 3, 8, 9), (2, 2), (2, 2), ((0, 0), (0, 0)), "max"),
    "max3x3_s1": ((2, 3, 7, 6), (3, 3), (1, 1), ((1, 1), (1, 1)), "max"),
    "max_global": ((2, 3, 5, 5), (5, 5), (5, 5), ((0, 0), (0, 0)), "max"),
    "avg_global": ((2, 3, 6, 6), (6, 6), (6, 6), ((0, 0), (0, 0)), "avg"),
    "avg2x2": ((2, 3, 6, 8), (2, 2), (2, 2), ((0, 0), (0, 0)), "avg"),
    "avg3x3_s2": ((2, 3, 7, 7), (3, 3), (2, 2), ((1, 1), (1, 1)), "avg"),
}


def _pool_paths(geo):
    paths = {"pool_taps"}
    if geo.tiles:
        paths.add("pool_blocks")
    if (COMPILED and geo.ksize == geo.stride == (2, 2)
            and not any(lo or e for (lo, _), e in zip(geo.pads, geo.ext))):
        paths.add("pool_compiled")
    return paths


@pytest.mark.parametrize("case", list(POOLS))
def test_every_pool_path_on_every_layout(case):
    x_shape, ksize, stride, pads, mode = POOLS[case]
    geo = PoolGeometry.regular(x_shape[2:], ksize, stride, pads, False)
    rng = np.random.default_rng(8)
    divisor = pool_kernels.avg_divisor(geo, True, None)
    for path in conv_paths.POOL_PATHS:
        if path not in _pool_paths(geo):
            with conv_paths.force_path(path), pytest.raises(ValueError, match=repr(path)):
                pool_kernels.max_pool(np, np.ones(x_shape), geo)
            continue
        for layout in LAYOUTS:
            base = rng.permutation(int(np.prod(x_shape))).reshape(x_shape) * 0.1 - 1.0
            if layout == "broadcast":
                base = np.broadcast_to(base[:1, :, :1], x_shape).copy()
            out = geo.out_sizes
            g64 = rng.standard_normal(x_shape[:2] + out)
            if layout == "broadcast":
                g64 = np.broadcast_to(g64[:1, :, :1], g64.shape).copy()
            want = pool_ref(base, ksize, stride, list(pads), mode=mode)
            for dtype in (np.float32, np.float64):
                x, g = _laid_out(base.astype(dtype), layout), _laid_out(g64.astype(dtype), layout)
                what = f"{case} on {path}, {layout} {np.dtype(dtype).name}"
                with conv_paths.force_path("pool_taps"):
                    if mode == "max":
                        _, arg_ref = pool_kernels.max_pool(np, base, geo)
                        gx_ref = pool_kernels.max_scatter(np, g64, arg_ref, geo)
                    else:
                        gx_ref = pool_kernels.avg_scatter(np, g64, geo, divisor)
                with conv_paths.force_path(path):
                    if mode == "max":
                        y, arg = pool_kernels.max_pool(np, x, geo)
                        gx = pool_kernels.max_scatter(np, g, arg, geo)
                        np.testing.assert_array_equal(arg, arg_ref, err_msg=what)
                        back = pool_kernels.max_gather(np, _laid_out(base.astype(dtype),
                                                                     layout), arg, geo)
                        _close(back, want, dtype, f"{what}: gather")
                    else:
                        y = pool_kernels.avg_pool(np, x, geo, divisor)
                        gx = pool_kernels.avg_scatter(np, g, geo, divisor)
                _close(y, want, dtype, f"{what}: y")
                _close(gx, gx_ref, dtype, f"{what}: dx")
