"""cuDNN (dygraph/backend/cudnn/) against the CuPy paths on the GPU: convolutions' forward
and both gradients over a grid of geometries and dtypes, the transposed conv and double
backward, batch norm in training (and eval mode, which stays on CuPy), float32 without TF32,
the graph cache, the current stream and CUDA graph capture, and the CuPy fallback without
the frontend.

Each comparison runs the same functional call twice, cuDNN on and off (use_cudnn), and says
in its failure message which cuDNN graphs ran and which cuDNN declined, with the reason."""

import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import cudnn as backend
from tests.gpu import requires_gpu

pytestmark = requires_gpu

# max |cuDNN - CuPy| / max |CuPy| allowed per dtype. float32 products over <= 600 terms differ
# by summation order only (about 1e-6); TF32 would be about 5e-4.
TOL = {"float32": 2e-5, "float16": 2e-2}


@pytest.fixture
def frontend(on_gpu):
    """cuDNN on, its frontend and library loaded (the test skips where they are not)."""
    if not backend.graphs._ON[0]:
        pytest.skip("cuDNN is switched off (DYGRAPH_CUDNN=0)")
    try:
        import cudnn  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"nvidia-cudnn-frontend is not installed ({exc})")
    assert backend.enabled(), ("nvidia-cudnn-frontend imports but dygraph cannot use it: "
                               "see the RuntimeWarning (the cuDNN library not found?)")


def _served(run, *ops):
    """Run `run()` on an empty graph cache and say what cuDNN did with the graphs of `ops`:
    (result, {op: ['ran' or 'declined: reason', one per graph]})."""
    backend.graphs._PLANS.clear()
    result = run()
    done = {}
    for key, plan in backend.graphs._PLANS.items():
        if key[0] in ops:
            done.setdefault(key[0], []).append(
                "ran" if isinstance(plan, backend.graphs._Plan) else f"declined: {plan}")
    return result, done


def _err(got, want):
    scale = float(np.abs(want.astype(np.float64)).max()) or 1.0
    return float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max()) / scale


def _compare(name, on, off, dtype, report):
    assert len(on) == len(off)
    for i, (got, want) in enumerate(zip(on, off)):
        assert got.shape == want.shape and got.dtype == want.dtype, (name, i)
        err = _err(got, want)
        assert err <= TOL[dtype], (f"{name}: output {i} (y, dx, dw, db, ...) differs from "
                                   f"the CuPy path by {err:.2e} relative (allowed "
                                   f"{TOL[dtype]:.0e}); cuDNN: {report}")


_CONV = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}
# (id, x shape, w shape, keywords, cuDNN must run it: False where a decline is acceptable)
GEOMETRIES = [
    ("3x3", (2, 8, 9, 9), (16, 8, 3, 3), {"padding": 1}, True),
    ("1x1", (2, 16, 7, 7), (8, 16, 1, 1), {}, True),
    ("7x7_stride2", (2, 3, 16, 16), (8, 3, 7, 7), {"stride": 2, "padding": 3}, True),
    ("3x3_stride2", (2, 8, 10, 10), (8, 8, 3, 3), {"stride": 2, "padding": 1}, True),
    ("dilation2", (2, 4, 12, 12), (6, 4, 3, 3), {"padding": 2, "dilation": 2}, True),
    ("groups2", (2, 8, 9, 9), (8, 4, 3, 3), {"padding": 1, "groups": 2}, True),
    ("depthwise", (2, 8, 9, 9), (8, 1, 3, 3), {"padding": 1, "groups": 8}, True),
    ("depthwise_stride2", (2, 16, 10, 10), (16, 1, 3, 3),
     {"stride": 2, "padding": 1, "groups": 16}, True),
    ("rect_stride", (2, 4, 9, 11), (5, 4, 3, 2), {"stride": (2, 1), "padding": (1, 0)}, True),
    ("asym_pad", (2, 4, 8, 8), (4, 4, 3, 3), {"padding": [0, 1, 1, 2]}, False),
    ("same_even", (2, 4, 8, 8), (4, 4, 4, 4), {"padding": "same"}, False),
    ("conv1d", (2, 4, 20), (6, 4, 5), {"stride": 2, "padding": 2}, True),
    ("conv3d", (2, 4, 6, 6, 6), (4, 4, 3, 3, 3), {"padding": 1}, True),
    ("nhwc", (2, 9, 9, 8), (16, 8, 3, 3), {"padding": 1, "data_format": "NHWC"}, True),
]
HALF = {"3x3", "1x1", "depthwise", "conv1d", "nhwc", "7x7_stride2"}
CONV_OPS = ("conv_fprop", "conv_dgrad", "conv_wgrad")


def _conv_step(xs, ws, kw, dtype, on, bias=True):
    """y, dx, dw[, db] of sum(conv(x, w) * r) with cuDNN on or off."""
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(xs).astype(dtype)
    w_np = (rng.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(dtype)
    b_np = rng.standard_normal(ws[0]).astype(dtype)
    with backend.use_cudnn(on):
        x = dygraph.to_tensor(x_np, stop_gradient=False)
        w = dygraph.to_tensor(w_np, stop_gradient=False)
        b = dygraph.to_tensor(b_np, stop_gradient=False) if bias else None
        y = _CONV[len(xs)](x, w, b, **kw)
        r = dygraph.to_tensor(np.random.default_rng(1).standard_normal(y.shape).astype(dtype))
        (y * r).sum().backward()
        out = [y.numpy(), x.grad.numpy(), w.grad.numpy()]
        return out + ([b.grad.numpy()] if bias else [])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("case", GEOMETRIES, ids=[g[0] for g in GEOMETRIES])
def test_conv_matches_the_cupy_path(case, dtype, frontend):
    name, xs, ws, kw, must = case
    if dtype == "float16" and name not in HALF:
        pytest.skip("float16 runs a subset of the geometries")
    on, report = _served(lambda: _conv_step(xs, ws, kw, dtype, True), *CONV_OPS)
    off = _conv_step(xs, ws, kw, dtype, False)
    _compare(f"{name} {dtype}", on, off, dtype, report)
    if must:
        for op in CONV_OPS:
            assert any(s.startswith("ran") for s in report.get(op, [])), (
                f"{name} {dtype}: cuDNN did not run {op}: {report.get(op)}")


def test_bfloat16_reaches_cudnn_only_as_a_storage_dtype(frontend):
    """DyGraph stores bfloat16 tensors as float32 (NumPy and CuPy have no bfloat16), so a
    bfloat16 conv is a float32 one on cuDNN too; the bfloat16 graphs are reachable only by
    arrays whose dtype is named bfloat16, which CuPy cannot make here."""
    x = dygraph.to_tensor(np.ones((1, 2, 5, 5)), dtype="bfloat16")
    assert x.numpy().dtype == np.float32


def test_conv_transpose_and_double_backward_match(frontend):
    """conv2d_transpose with output_padding (cuDNN's data gradient into a bigger input), its
    gradients, and a gradient of a gradient (the three products through each other)."""
    rng = np.random.default_rng(2)
    x_np = rng.standard_normal((2, 6, 5, 5)).astype("float32")
    w_np = rng.standard_normal((6, 4, 3, 3)).astype("float32") / 8

    def run(on):
        with backend.use_cudnn(on):
            x = dygraph.to_tensor(x_np, stop_gradient=False)
            w = dygraph.to_tensor(w_np, stop_gradient=False)
            y = F.conv2d_transpose(x, w, stride=2, padding=1, output_padding=1)
            (gx,) = dygraph.grad((y * y).sum(), [x], create_graph=True)
            (gx * gx).sum().backward()
            return [y.numpy(), gx.numpy(), x.grad.numpy(), w.grad.numpy()]

    on, report = _served(lambda: run(True), *CONV_OPS)
    _compare("conv2d_transpose + double backward", on, run(False), "float32", report)
    assert any(s.startswith("ran") for s in report.get("conv_dgrad", [])), report


def test_float32_convs_do_not_use_tf32(frontend):
    """A long reduction (K = 256 * 9) against float64: float32 arithmetic errs about 1e-6,
    TF32 (10-bit mantissas) about 3e-4."""
    rng = np.random.default_rng(3)
    x_np = rng.standard_normal((4, 256, 12, 12))
    w_np = rng.standard_normal((64, 256, 3, 3))
    want = F.conv2d(dygraph.to_tensor(x_np), dygraph.to_tensor(w_np), padding=1).numpy()
    y, report = _served(lambda: F.conv2d(dygraph.to_tensor(x_np.astype("float32")),
                                         dygraph.to_tensor(w_np.astype("float32")),
                                         padding=1).numpy(), "conv_fprop")
    assert any(s.startswith("ran") for s in report.get("conv_fprop", [])), report
    err = _err(y, want)
    assert err < 2e-5, f"float32 conv errs {err:.1e} against float64: TF32 on? {report}"


def test_graph_cache_hits_on_the_second_call(frontend):
    x = dygraph.to_tensor(np.ones((3, 5, 11, 11), "float32"))
    w = dygraph.to_tensor(np.ones((7, 5, 3, 3), "float32"))
    first = F.conv2d(x, w, padding=1).numpy()
    built = backend.plan_count()
    second = F.conv2d(x, w, padding=1).numpy()
    assert backend.plan_count() == built, "the second call built a graph again"
    keys = [k for k in backend.graphs._PLANS if k[0] == "conv_fprop" and k[3] == (3, 5, 11, 11)]
    assert len(keys) == 1 and isinstance(backend.graphs._PLANS[keys[0]], backend.graphs._Plan), keys
    np.testing.assert_array_equal(first, second)


def test_runs_on_the_current_stream_and_can_be_captured(frontend):
    """A conv on a non-default stream gives the same numbers; once its graph is built, the
    conv is captured into a CUDA graph and replayed."""
    import cupy

    from dygraph.ops.conv.im2col import Geometry

    rng = np.random.default_rng(4)
    x = cupy.asarray(rng.standard_normal((2, 8, 9, 9)).astype("float32"))
    w = cupy.asarray(rng.standard_normal((16, 8, 3, 3)).astype("float32"))
    geo = Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 1)
    want = backend.conv_forward(cupy, x, w, geo)
    assert want is not None, backend.declined()
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        got = backend.conv_forward(cupy, x, w, geo)
        stream.synchronize()
        np.testing.assert_array_equal(got.get(), want.get())
        del got  # its memory, back in the pool of this stream, takes the captured output
        stream.begin_capture()
        try:
            captured = backend.conv_forward(cupy, x, w, geo)
        finally:
            graph = stream.end_capture()
        captured[...] = 0
        graph.launch(stream)
        stream.synchronize()
    np.testing.assert_array_equal(captured.get(), want.get())


BN_CASES = [
    # (id, x shape, data_format, dtype, cuDNN must run it in training)
    ("nchw", (4, 8, 5, 5), "NCHW", "float32", False),
    ("nhwc", (4, 5, 5, 8), "NHWC", "float32", False),
    ("nhwc_half", (4, 5, 5, 16), "NHWC", "float16", True),
    ("nchw_half", (4, 8, 5, 5), "NCHW", "float16", False),
    ("bn1d", (16, 6), "NC", "float32", False),
    ("ncl", (4, 6, 7), "NCL", "float32", False),
    ("ncdhw", (2, 4, 3, 4, 5), "NCDHW", "float32", False),
]


def _bn_step(xs, data_format, dtype, training, on):
    """y, dx, dw, db and the running statistics after one batch_norm call."""
    rng = np.random.default_rng(5)
    c = xs[-1] if data_format in ("NHWC", "NLC", "NDHWC") else xs[1]
    x_np = (rng.standard_normal(xs) * 2 + 0.5).astype(dtype)
    with backend.use_cudnn(on):
        x = dygraph.to_tensor(x_np, stop_gradient=False)
        w = dygraph.to_tensor(rng.standard_normal(c).astype(dtype), stop_gradient=False)
        b = dygraph.to_tensor(rng.standard_normal(c).astype(dtype), stop_gradient=False)
        mean = dygraph.to_tensor(rng.standard_normal(c).astype(dtype))
        var = dygraph.to_tensor(rng.uniform(0.5, 2, c).astype(dtype))
        y = F.batch_norm(x, mean, var, w, b, training=training, data_format=data_format)
        r = dygraph.to_tensor(np.random.default_rng(6).standard_normal(xs).astype(dtype))
        (y * r).sum().backward()
        return [t.numpy() for t in (y, x.grad, w.grad, b.grad, mean, var)]


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("case", BN_CASES, ids=[c[0] for c in BN_CASES])
def test_batch_norm_matches_the_cupy_path(case, training, frontend):
    name, xs, data_format, dtype, must = case
    ops = ("batchnorm", "batchnorm_backward")  # eval mode runs on CuPy
    on, report = _served(lambda: _bn_step(xs, data_format, dtype, training, True), *ops)
    off = _bn_step(xs, data_format, dtype, training, False)
    _compare(f"batch_norm {name} {dtype} training={training}", on, off, dtype, report)
    if must and training:
        for op in ops:
            assert any(s.startswith("ran") for s in report.get(op, [])), (
                f"batch_norm {name}: cuDNN did not run {op}: {report.get(op)}")


def test_without_the_frontend_the_cupy_path_runs(on_gpu, monkeypatch, caplog):
    """With `cudnn` unimportable: one RuntimeWarning naming nvidia-cudnn-frontend, convs on
    the CuPy paths, the same numbers."""
    monkeypatch.setitem(sys.modules, "cudnn", None)  # makes `import cudnn` raise
    monkeypatch.setattr(backend.graphs, "_LIB", [None, False])
    monkeypatch.setattr(backend.graphs, "_ON", [True])
    x = dygraph.to_tensor(np.ones((2, 3, 6, 6), "float32"))
    w = dygraph.to_tensor(np.ones((4, 3, 3, 3), "float32"))
    built = backend.plan_count()
    with caplog.at_level(logging.DEBUG, logger="dygraph.conv"):
        with pytest.warns(RuntimeWarning, match="nvidia-cudnn-frontend"):
            y = F.conv2d(x, w, padding=1)
    assert not backend.enabled() and backend.plan_count() == built
    paths = [r.getMessage() for r in caplog.records if "conv forward" in r.getMessage()]
    assert paths and not any("cudnn" in p for p in paths), paths
    assert float(y.numpy()[0, 0, 2, 2]) == 27.0


def test_dygraph_cudnn_0_switches_it_off():
    code = ("from dygraph.backend import cudnn; import sys; "
            "sys.exit(0 if not cudnn.enabled() and not cudnn.graphs._LIB[1] else 1)")
    env = {**os.environ, "DYGRAPH_CUDNN": "0"}
    assert subprocess.run([sys.executable, "-c", code], env=env, timeout=120).returncode == 0
