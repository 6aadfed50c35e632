"""auto_cast(dtype='bfloat16') on the GPU path rounds to bfloat16 with one fused kernel a
tensor (dygraph/kernels/cuda/precision.py, its NumPy statement run on the CuPy stand-in),
and a training step's losses and gradients equal the CPU path's (ml_dtypes' rounding)."""

import numpy as np
import pytest

import dygraph
from tools import cupy_standin

pytest.importorskip("ml_dtypes")


def _step():
    dygraph.seed(0)
    net = dygraph.nn.Sequential(dygraph.nn.Linear(8, 16), dygraph.nn.ReLU(),
                                dygraph.nn.Linear(16, 4))
    x = dygraph.to_tensor(np.random.default_rng(0).standard_normal((5, 8)).astype(np.float32))
    with dygraph.amp.auto_cast(dtype="bfloat16"):
        loss = (net(x) ** 2).mean()
    loss.backward()
    return [float(loss)] + [p.grad.numpy() for p in net.parameters()]


def test_bfloat16_rounding_on_the_gpu_equals_the_cpu():
    expected = _step()
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            before = cupy_standin.calls_by_name["round_bfloat16"]
            got = _step()
            rounded = cupy_standin.calls_by_name["round_bfloat16"] - before
        finally:
            dygraph.set_device("cpu")
    assert rounded >= 6  # the two products' inputs and outputs
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
