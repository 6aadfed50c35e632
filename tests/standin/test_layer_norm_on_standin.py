"""Layer norm on the GPU path (dygraph/ops/normalization/layer_rows.py: the row kernels
of dygraph/kernels/cuda/layer_norm.py, run as their NumPy statements on the CuPy
stand-in, and cuBLAS sums down the rows) against the CPU path: output and every gradient, with
and without weight and bias, over one and two trailing axes."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from tools import cupy_standin


def _run(shape, normalized, affine, dtype):
    rng = np.random.default_rng(0)
    x = dygraph.to_tensor(rng.standard_normal(shape).astype(dtype) * 3 + 1,
                          stop_gradient=False)
    w = b = None
    if affine:
        w = dygraph.to_tensor(rng.standard_normal(normalized).astype(dtype),
                              stop_gradient=False)
        b = dygraph.to_tensor(rng.standard_normal(normalized).astype(dtype),
                              stop_gradient=False)
    y = F.layer_norm(x, normalized, weight=w, bias=b, epsilon=1e-5)
    weights = dygraph.to_tensor(rng.standard_normal(shape).astype(dtype))
    (y * weights).sum().backward()
    return [y.numpy(), x.grad.numpy()] + ([w.grad.numpy(), b.grad.numpy()] if affine else [])


def _launches():
    return sum(n for name, n in cupy_standin.calls_by_name.items()
               if name.startswith("dygraph_layer_norm_rows"))


@pytest.mark.parametrize("shape, normalized", [((6, 5), [5]), ((2, 3, 4, 5), [4, 5])])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype, tol", [("float32", 2e-5), ("float64", 1e-12)])
def test_the_gpu_path_equals_the_cpu_path(shape, normalized, affine, dtype, tol):
    expected = _run(shape, normalized, affine, dtype)
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            before = _launches()
            got = _run(shape, normalized, affine, dtype)
            assert _launches() == before + 2  # one kernel forward, one back
        finally:
            dygraph.set_device("cpu")
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol)


def _weight_grads(dtype, x_needs_grad):
    rng = np.random.default_rng(1)
    x = dygraph.to_tensor(rng.standard_normal((4, 6)).astype(dtype),
                          stop_gradient=not x_needs_grad)
    w = dygraph.to_tensor(rng.standard_normal(6).astype(dtype), stop_gradient=False)
    b = dygraph.to_tensor(rng.standard_normal(6).astype(dtype), stop_gradient=False)
    y = F.layer_norm(x, [6], weight=w, bias=b)
    (y * dygraph.to_tensor(rng.standard_normal((4, 6)).astype(dtype))).sum().backward()
    return y.numpy(), w.grad.numpy(), b.grad.numpy()


@pytest.mark.parametrize("dtype, tol, launches", [("float64", 1e-12, 2), ("float16", 2e-2, 0)])
def test_weight_gradients_alone_and_the_array_formula_for_half_precision(standin_gpu, dtype,
                                                                         tol, launches):
    """An input without a gradient: the backward kernel writes only g * xhat. float16
    (no row kernel) runs the CPU's formula on the device."""
    dygraph.set_device("cpu")
    expected = _weight_grads(dtype, False)
    dygraph.set_device("gpu:0")
    before = _launches()
    got = _weight_grads(dtype, False)
    assert _launches() == before + launches
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=tol,
                                   atol=tol)
