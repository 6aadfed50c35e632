"""Device choice: CPU always; CUDA through CuPy when a GPU is present (skipped otherwise)."""

import importlib.util

import numpy as np
import pytest

import dygraph as paddle

HAS_CUPY = importlib.util.find_spec("cupy") is not None
HAS_GPU = HAS_CUPY and paddle.is_compiled_with_cuda()


def test_cpu_is_the_default_device():
    assert paddle.get_device() == "cpu"
    assert paddle.set_device("cpu") == "cpu"
    assert str(paddle.ones([1]).place) == "CPUPlace"
    assert paddle.CPUPlace() == paddle.CPUPlace()
    assert paddle.CUDAPlace(1) != paddle.CUDAPlace(0)


@pytest.mark.skipif(HAS_CUPY, reason="checks the message shown when CuPy is missing")
def test_gpu_without_cupy_names_the_package_to_install():
    with pytest.raises(RuntimeError, match="pip install cupy"):
        paddle.set_device("gpu")
    assert paddle.get_device() == "cpu"
    assert paddle.is_compiled_with_cuda() is False


def test_unknown_device_string():
    with pytest.raises(ValueError, match="unknown device"):
        paddle.set_device("tpu")


@pytest.mark.skipif(not HAS_GPU, reason="needs CuPy and a CUDA GPU")
def test_ops_and_backward_on_the_gpu():
    x = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3),
                         place=paddle.CUDAPlace(0), stop_gradient=False)
    assert str(x.place) == "CUDAPlace(0)"
    y = (paddle.tanh(x) * x).sum()
    y.backward()
    xn = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = np.tanh(xn) + xn * (1 - np.tanh(xn) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5)
    assert paddle.matmul(x, x.T).cpu().shape == [2, 2]


@pytest.mark.skipif(not HAS_GPU, reason="needs CuPy and a CUDA GPU")
def test_set_device_places_new_tensors_on_the_gpu():
    paddle.set_device("gpu:0")
    try:
        assert str(paddle.zeros([2]).place) == "CUDAPlace(0)"
        assert str(paddle.to_tensor([1.0]).place) == "CUDAPlace(0)"
    finally:
        paddle.set_device("cpu")
