"""Batch norm on running statistics on a GPU without gradients: one kernel
(dygraph/kernels/cuda/batch_norm.py), checked on the CuPy stand-in against the CPU's
array formula, with the layouts and affine forms batch norm takes; with gradients to
record, the op path runs as before."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from tools import cupy_standin


def _stats(c, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(c).astype(dtype), (rng.random(c) + 0.5).astype(dtype),
            rng.standard_normal(c).astype(dtype), rng.standard_normal(c).astype(dtype))


@pytest.mark.parametrize("data_format, shape", [("NCHW", (4, 3, 5, 2)), ("NHWC", (4, 5, 2, 3)),
                                                ("NCL", (4, 3, 7)), ("NC", (6, 3))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("affine", ["both", "none", "bias"])
def test_inference_batch_norm_is_one_kernel_and_the_cpu_numbers(standin_gpu, data_format,
                                                                 shape, dtype, affine):
    x = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    mean, var, w, b = _stats(3, dtype)
    w = None if affine in ("none", "bias") else w
    b = None if affine == "none" else b

    def run(place):
        t = [None if a is None else dygraph.to_tensor(a, place=place)
             for a in (x, mean, var, w, b)]
        return F.batch_norm(t[0], t[1], t[2], t[3], t[4], training=False, epsilon=1e-3,
                            data_format=data_format)

    dygraph.set_device("cpu")  # the reference: the CPU's array formula
    want = run(dygraph.CPUPlace()).numpy()
    dygraph.set_device("gpu:0")
    before = cupy_standin.calls_by_name["batch_norm_inference"]
    got = run(dygraph.CUDAPlace(0))
    assert cupy_standin.calls_by_name["batch_norm_inference"] == before + 1
    assert got.stop_gradient and got.numpy().dtype == want.dtype
    rtol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=rtol)


def test_a_layer_in_eval_mode_runs_the_kernel_and_trains_through_the_op(standin_gpu):
    bn = dygraph.nn.BatchNorm2D(3)
    bn.eval()
    x = dygraph.randn([2, 3, 4, 4])
    before = cupy_standin.calls_by_name["batch_norm_inference"]
    with dygraph.no_grad():
        bn(x)
    assert cupy_standin.calls_by_name["batch_norm_inference"] == before + 1
    # Frozen statistics with gradients (fine-tuning): the op, whose backward runs.
    x.stop_gradient = False
    y = bn(x)
    assert cupy_standin.calls_by_name["batch_norm_inference"] == before + 1
    y.sum().backward()
    assert x.grad is not None and bn.weight.grad is not None
