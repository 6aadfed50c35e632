"""The fused GPU kernels (dygraph.backend.cuda_kernels) against the array formulas they
replace, run on the same CuPy arrays."""

import numpy as np
import pytest

from dygraph.backend import cuda_kernels
from dygraph.optimizer.adam import _adam_step
from tests.gpu import requires_gpu

pytestmark = requires_gpu


@pytest.mark.parametrize("dtype, rtol", [("float32", 2e-6), ("float64", 1e-13)])
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
        cuda_kernels.adam_update(fused, grad, fused_m, fused_v, 0.01, beta1, beta2, 1e-8,
                                 beta1 ** step, beta2 ** step)
    assert fused.dtype == param.dtype
    np.testing.assert_allclose(fused_m.get(), moments["moment1"].get(), rtol=rtol)
    np.testing.assert_allclose(fused_v.get(), moments["moment2"].get(), rtol=rtol)
    np.testing.assert_allclose(fused.get(), param.get(), rtol=rtol, atol=rtol)
