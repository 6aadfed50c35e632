"""The fused GPU kernels (dygraph.kernels.cuda) against the array formulas they
replace, run on the same CuPy arrays."""

import numpy as np
import pytest

from dygraph.kernels.cuda import optimizer_updates, random_draws
from dygraph.optimizer.adam import _adam_step
from tests.gpu import requires_gpu

pytestmark = requires_gpu


# float32 moments differ from the array formula's by up to 3e-6 relative after four steps
# (measured while CUDA fused multiply-adds; the kernels are compiled without since).
@pytest.mark.parametrize("dtype, rtol", [("float32", 2e-5), ("float64", 1e-13)])
def test_fused_adam_equals_the_array_formula(dtype, rtol):
    import cupy

    rng = np.random.default_rng(0)
    param = cupy.asarray(rng.standard_normal((37, 5)).astype(dtype))
    fused = param.copy()
    moments = {"moment1": cupy.zeros_like(param), "moment2": cupy.zeros_like(param)}
    fused_m, fused_v = cupy.zeros_like(param), cupy.zeros_like(param)
    beta1, beta2 = 0.9, 0.999
    for step in range(1, 5):
        grad = cupy.asarray(rng.standard_normal(param.shape).astype(dtype))
        pows = {"beta1_pow_acc": np.array([beta1 ** step]),
                "beta2_pow_acc": np.array([beta2 ** step])}
        param -= _adam_step(grad, 0.01, beta1, beta2, 1e-8, dict(moments, **pows))
        optimizer_updates.adam_update(fused, grad, fused_m, fused_v, 0.01, beta1, beta2, 1e-8,
                                 beta1 ** step, beta2 ** step)
    assert fused.dtype == param.dtype
    np.testing.assert_allclose(fused_m.get(), moments["moment1"].get(), rtol=rtol)
    np.testing.assert_allclose(fused_v.get(), moments["moment2"].get(), rtol=rtol)
    np.testing.assert_allclose(fused.get(), param.get(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("time_major, direction", [(False, "forward"), (True, "bidirect")])
def test_rnn_on_the_gpu_equals_the_cpu(kind, time_major, direction):
    """The LSTM's and GRU's fused GPU steps, forward and backward, with initial states,
    against the CPU path, batch-first and time-major, one way and both."""
    import dygraph

    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 3, 4))
    layers, batch = (2 if direction == "bidirect" else 1), (3 if time_major else 5)
    h0, c0 = (rng.standard_normal((layers, batch, 6)) for _ in range(2))
    weights = rng.standard_normal((5, 3, 6 * layers))
    results = []
    for place in ("cpu", "gpu:0"):
        dygraph.seed(0)
        cls = dygraph.nn.LSTM if kind == "lstm" else dygraph.nn.GRU
        lstm = cls(4, 6, direction=direction, time_major=time_major)
        lstm.to(place, dtype="float64")  # the same initial weights on both devices
        dygraph.set_device(place)
        try:
            inputs = [dygraph.to_tensor(a, stop_gradient=False) for a in (x, h0, c0)]
            if kind == "lstm":
                out, (h, c) = lstm(inputs[0], tuple(inputs[1:]))
            else:
                inputs = inputs[:2]
                out, h = lstm(*inputs)
                c = h
            ((out * dygraph.to_tensor(weights)).sum() + (h * h).sum() + c.sum()).backward()
            results.append([t.numpy() for t in (out, h, c)]
                           + [t.grad.numpy() for t in inputs]
                           + [p.grad.numpy() for p in lstm.parameters()])
        finally:
            dygraph.set_device("cpu")
    assert len(results[1]) == len(results[0])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_mask_equals_its_numpy_statement(dtype):
    """The Philox draws are integer arithmetic and an exact scaling: equal to the bit."""
    import cupy

    from dygraph.kernels.cuda import references

    state = np.array([0xA4093822299F31D0, (1 << 32) - 100], np.uint64)  # a carry inside
    keep = cupy.empty((33, 65), dtype)
    random_draws.dropout_mask(cupy.asarray(state), 0.3, 2.0, keep)
    expected = np.empty((33, 65), dtype)
    references.dropout_mask(state, np.float32(0.3), np.dtype(dtype).type(2.0), expected)
    np.testing.assert_array_equal(keep.get(), expected)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_and_normal_draws_equal_their_numpy_statements(dtype):
    """Uniform draws are integer arithmetic and exact scalings (equal to the bit); normal
    ones go through log, sqrt and cos, which CUDA and NumPy round differently."""
    import cupy

    from dygraph.kernels.cuda import references

    state = np.array([0xA4093822299F31D0, (1 << 32) - 100], np.uint64)
    for kind, a, b in (("uniform", -2.0, 3.0), ("normal", 1.0, 0.5)):
        got = cupy.empty((33, 65), dtype)
        getattr(random_draws, f"{kind}_draw")(cupy.asarray(state), a, b, got)
        want = np.empty((33, 65), dtype)
        t = np.dtype(dtype).type
        getattr(references, f"{kind}_draw")(state, t(a), t(b), want)
        if kind == "uniform":
            np.testing.assert_array_equal(got.get(), want)
        else:
            np.testing.assert_allclose(got.get(), want, rtol=1e-5 if dtype == "float32"
                                       else 1e-12, atol=1e-6)


@pytest.mark.parametrize("dtype, rtol", [("float32", 1e-6), ("float64", 1e-14)])
def test_inference_batch_norm_equals_its_numpy_statement(dtype, rtol):
    import cupy

    from dygraph.kernels.cuda import batch_norm
    from dygraph.kernels.cuda.references import KERNELS

    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16, 5, 5)).astype(dtype)
    stats = [rng.standard_normal((1, 16, 1, 1)).astype(dtype) for _ in range(4)]
    stats[1] = np.abs(stats[1]) + 0.1  # a variance
    for w, b in ((stats[2], stats[3]), (None, stats[3]), (None, None)):
        got = batch_norm.batch_norm_inference(
            cupy.asarray(x), cupy.asarray(stats[0]), cupy.asarray(stats[1]),
            None if w is None else cupy.asarray(w), None if b is None else cupy.asarray(b),
            1e-5)
        t = np.dtype(dtype).type
        want = KERNELS["dygraph_batch_norm_inference"](
            x, stats[0], stats[1], x if w is None else w, x if b is None else b, t(1e-5),
            w is not None, b is not None)
        np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("geometry", [((9, 9), (3, 3), (2, 2), 1, False),
                                      ((7, 10), (3, 2), (2, 3), 0, True)])
def test_max_pool_kernels_equal_the_offset_path_to_the_bit(dtype, geometry):
    import cupy

    from dygraph.kernels.cuda import max_pool
    from dygraph.ops.conv.paths import force_path
    from dygraph.ops.pool.windows import PoolGeometry, max_scatter
    from dygraph.ops.pool.windows import max_pool as pool_on_arrays

    size, k, s, p, ceil = geometry
    geo = PoolGeometry.regular(size, k, s, ((p, p), (p, p)), ceil)
    rng = np.random.default_rng(0)
    x = np.round(rng.standard_normal((4, 8) + size) * 2).astype(dtype)  # ties
    x.reshape(-1)[:3] = [np.nan, np.inf, -0.0]
    with force_path("pool_taps"):
        want_y, want_arg = pool_on_arrays(np, x, geo)
    y, arg = max_pool.max_pool2d(cupy.asarray(x), geo)
    np.testing.assert_array_equal(y.get(), want_y)
    np.testing.assert_array_equal(arg.get(), want_arg)
    g = rng.standard_normal(want_y.shape).astype(dtype)
    with force_path("pool_taps"):
        want_dx = max_scatter(np, g, want_arg, geo)
    np.testing.assert_array_equal(max_pool.max_scatter2d(cupy.asarray(g), arg, geo).get(),
                                  want_dx)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 37, 256, 1000])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_row_kernels_equal_their_numpy_statements(dtype, n, log):
    """One block per row, forward and backward, with a NaN row and an all -inf row; the
    block's sums add in another order than NumPy's, hence a few units in the last place."""
    import cupy

    from dygraph.kernels.cuda import softmax_rows
    from dygraph.kernels.cuda.references import KERNELS

    rng = np.random.default_rng(n)
    x = (rng.standard_normal((6, n)) * 5).astype(dtype)
    x[1, n // 2], x[2, :] = np.nan, -np.inf
    g = rng.standard_normal((6, n)).astype(dtype)
    y = softmax_rows.softmax_rows(cupy, cupy.asarray(x), log)
    dx = softmax_rows.softmax_rows_grad(cupy, y, cupy.asarray(g), log)
    want_y, want_dx = np.empty_like(x), np.empty_like(x)
    with np.errstate(invalid="ignore"):
        KERNELS[f"dygraph_softmax_rows_{dtype}"](x, want_y, np.int64(n), np.int32(log))
        KERNELS[f"dygraph_softmax_rows_grad_{dtype}"](want_y, g, want_dx, np.int64(n),
                                                      np.int32(log))
    tol = 32 * np.finfo(dtype).eps
    for got, want in ((y.get(), want_y), (dx.get(), want_dx)):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [5, 256, 1000])
def test_layer_norm_row_kernels_equal_their_numpy_statements(dtype, n):
    import cupy

    from dygraph.kernels.cuda import layer_norm
    from dygraph.kernels.cuda.references import KERNELS

    rng = np.random.default_rng(n)
    x = (rng.standard_normal((7, n)) * 3 + 1).astype(dtype)
    w, b, g = (rng.standard_normal(s).astype(dtype) for s in (n, n, (7, n)))
    y, xhat, rstd = cupy.empty((7, n), dtype), cupy.empty((7, n), dtype), cupy.empty(7, dtype)
    layer_norm.layer_norm_rows(cupy.asarray(x), cupy.asarray(w), cupy.asarray(b), 1e-5, y,
                               xhat, rstd, n)
    dx, gxw = cupy.empty((7, n), dtype), cupy.empty((7, n), dtype)
    layer_norm.layer_norm_rows_grad(cupy.asarray(g), xhat, cupy.asarray(w), rstd, dx, gxw)
    want = [np.empty((7, n), dtype), np.empty((7, n), dtype), np.empty(7, dtype)]
    t, one = np.dtype(dtype).type, np.int32(1)
    KERNELS[f"dygraph_layer_norm_rows_{dtype}"](x, w, b, *want, np.int64(n), t(1e-5), one, one)
    want += [np.empty((7, n), dtype), np.empty((7, n), dtype)]
    KERNELS[f"dygraph_layer_norm_rows_grad_{dtype}"](g, want[1], w, want[2], want[3], want[4],
                                                     np.int64(n), one, one, one)
    tol = 64 * np.finfo(dtype).eps
    for got, expected in zip((y, xhat, rstd, dx, gxw), want):
        np.testing.assert_allclose(got.get(), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [3, 37, 1000])
def test_cross_entropy_row_kernels_equal_their_numpy_statements(dtype, n):
    import cupy

    from dygraph.kernels.cuda import cross_entropy_rows
    from dygraph.kernels.cuda.references import KERNELS

    rng = np.random.default_rng(n)
    x = (rng.standard_normal((9, n)) * 4).astype(dtype)
    label = rng.integers(0, n, (9, 1)).astype(np.int64)
    c = (rng.random((9, 1)) + 0.5).astype(dtype)
    prob, per = cross_entropy_rows.cross_entropy_rows(cupy, cupy.asarray(x),
                                                      cupy.asarray(label))
    dx = cross_entropy_rows.cross_entropy_rows_grad(cupy, prob, cupy.asarray(label),
                                                    cupy.asarray(c))
    want = [np.empty_like(x), np.empty((9, 1), dtype), np.empty_like(x)]
    KERNELS[f"dygraph_cross_entropy_rows_{dtype}"](x, label, want[0], want[1], np.int64(n))
    KERNELS[f"dygraph_cross_entropy_rows_grad_{dtype}"](want[0], label, c, want[2],
                                                        np.int64(n), np.int32(1))
    tol = 32 * np.finfo(dtype).eps
    for got, expected in zip((prob, per, dx), want):
        np.testing.assert_allclose(got.get(), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
# one kernel a sequence each way; above FUSED_WIDTH, a product and a kernel a step
@pytest.mark.parametrize("hidden", [200, 300])
@pytest.mark.parametrize("direction", ["forward", "bidirect"])
def test_rnn_sequences_with_their_products_equal_the_cpu(kind, hidden, direction):
    import dygraph

    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 7, 16))
    width = hidden * (2 if direction == "bidirect" else 1)
    weights = rng.standard_normal((3, 7, width))
    results = []
    for place in ("cpu", "gpu:0"):
        dygraph.seed(0)
        layer = (dygraph.nn.LSTM if kind == "lstm" else dygraph.nn.GRU)(
            16, hidden, direction=direction)
        layer.to(place, dtype="float64")
        dygraph.set_device(place)
        try:
            xt = dygraph.to_tensor(x, stop_gradient=False)
            out, state = layer(xt)
            h = state[0] if kind == "lstm" else state
            ((out * dygraph.to_tensor(weights)).sum() + (h * h).sum()).backward()
            results.append([out.numpy(), xt.grad.numpy()]
                           + [p.grad.numpy() for p in layer.parameters()])
        finally:
            dygraph.set_device("cpu")
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
