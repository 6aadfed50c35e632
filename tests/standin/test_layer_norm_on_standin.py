"""Layer norm on the GPU path (dygraph/ops/normalization/layer_rows.py: cuBLAS row sums
and the fused kernels of dygraph/kernels/cuda/layer_norm.py, run as their NumPy
statements on the CuPy stand-in) against the CPU path: output and every gradient, with
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


@pytest.mark.parametrize("shape, normalized", [((6, 5), [5]), ((2, 3, 4, 5), [4, 5])])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype, tol", [("float32", 2e-5), ("float64", 1e-12)])
def test_the_gpu_path_equals_the_cpu_path(shape, normalized, affine, dtype, tol):
    expected = _run(shape, normalized, affine, dtype)
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            before = cupy_standin.calls_by_name["layer_norm_scale"]
            got = _run(shape, normalized, affine, dtype)
            assert cupy_standin.calls_by_name["layer_norm_scale"] == before + 1
        finally:
            dygraph.set_device("cpu")
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol)
