"""relu's and relu6's gradients on the GPU path (one fused kernel each,
dygraph/kernels/cuda/activations.py, run as its NumPy statement on the CuPy stand-in)
against the CPU path, at the edges of their pieces and with a NaN gradient."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from tools import cupy_standin


def _grad(fn, x, g):
    t = dygraph.to_tensor(x, stop_gradient=False)
    fn(t).backward(dygraph.to_tensor(g))
    return t.grad.numpy()


@pytest.mark.parametrize("fn, kernel", [(F.relu, "relu_grad"), (F.relu6, "relu6_grad")])
def test_the_gpu_path_equals_the_cpu_path(fn, kernel):
    x = np.array([[-1.0, 0.0, 0.5, 6.0, 7.0, 3.0]], np.float32)
    g = np.array([[1.0, 2.0, 3.0, 4.0, np.nan, 6.0]], np.float32)
    expected = _grad(fn, x, g)
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            before = cupy_standin.calls_by_name[kernel]
            got = _grad(fn, x, g)
            assert cupy_standin.calls_by_name[kernel] == before + 1
        finally:
            dygraph.set_device("cpu")
    np.testing.assert_array_equal(got, expected)
