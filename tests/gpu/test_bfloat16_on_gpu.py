"""bfloat16 auto_cast on a GPU: the low-precision products run on Tensor Cores
(dygraph/backend/product_precision.py: cuBLAS's CUBLAS_COMPUTE_32F_FAST_16BF on a handle of
the thread's, cuDNN's TF32 engines), which multiply bfloat16 operands exactly: results
differ from float32 arithmetic on the same operands only by the order of float32 sums.
A training step, eager and as CUDA graphs, against the CPU's."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import product_precision
from tests.gpu import requires_gpu

pytestmark = requires_gpu
ml_dtypes = pytest.importorskip("ml_dtypes")


def _bf16(a):
    return a.astype(ml_dtypes.bfloat16).astype(np.float32)


def _rel(got, want):
    return float(np.abs(got - want).max() / np.abs(want).max())


@pytest.mark.parametrize("shape", [(64, 96, 80), (7, 300, 5)])
def test_tensor_core_products_of_bfloat16_values_are_float32_sums(shape, monkeypatch):
    from dygraph.backend import _import_cupy, capture_products

    cupy = _import_cupy()  # CuPy with DyGraph's routing of products installed
    made = []
    bmm = capture_products._bmm
    monkeypatch.setattr(capture_products, "_bmm", lambda *a: made.append(1) or bmm(*a))
    m, k, n = shape
    rng = np.random.default_rng(0)
    a, b = _bf16(rng.standard_normal((m, k))), _bf16(rng.standard_normal((k, n)))
    exact = a.astype(np.float64) @ b.astype(np.float64)
    ga, gb = cupy.asarray(a), cupy.asarray(b)
    plain = cupy.matmul(ga, gb).get()
    assert not made  # float32 arithmetic, through CuPy
    with product_precision.bfloat16_operands():
        fast = cupy.matmul(ga, gb).get()
    assert made == [1]  # cuBLAS's bfloat16 compute type, on this thread's handle
    # float32 sums of k exact products: a few units of float32's last place per term
    assert _rel(fast, exact) < 4 * k * 2.0 ** -24
    assert _rel(plain, exact) < 4 * k * 2.0 ** -24


class _Net(dygraph.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = dygraph.nn.Conv2D(3, 8, 3, padding=1)
        self.fc = dygraph.nn.Linear(8 * 64, 10)

    def forward(self, x):
        return self.fc(F.relu(self.conv(x)).flatten(1))


def _steps(place, static):
    dygraph.set_device(place)
    try:
        dygraph.seed(0)
        net = _Net()
        opt = dygraph.optimizer.SGD(0.1, parameters=net.parameters())

        def step(x, y):
            with dygraph.amp.auto_cast(dtype="bfloat16"):
                out = net(x)
            loss = F.cross_entropy(out.astype("float32"), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        step = dygraph.jit.to_static(step) if static else step
        rng = np.random.default_rng(1)
        x = dygraph.to_tensor(rng.standard_normal((6, 3, 8, 8)).astype(np.float32))
        y = dygraph.to_tensor(rng.integers(0, 10, 6))
        losses = [float(step(x, y)) for _ in range(4)]
        return losses, [p.numpy() for p in net.parameters()]
    finally:
        dygraph.set_device("cpu")


@pytest.mark.parametrize("static", [False, True], ids=["eager", "cuda_graphs"])
def test_a_bfloat16_step_on_tensor_cores_equals_the_cpus(static):
    want_losses, want_params = _steps("cpu", False)
    got_losses, got_params = _steps("gpu:0", static)
    # bfloat16 roundings may land a unit apart where float32 sums differ in order
    np.testing.assert_allclose(got_losses, want_losses, rtol=2e-2)
    for g, w in zip(got_params, want_params):
        np.testing.assert_allclose(g, w, rtol=2e-2, atol=2e-3)


def test_the_rounding_kernels_give_ml_dtypes_bits():
    """round_bfloat16_all: six arrays of any layout (a transposed view, a 0-d and an empty
    one, a strided slice), four in one launch then two, to the bit of ml_dtypes'."""
    from dygraph.backend import _import_cupy
    from dygraph.kernels.cuda import precision

    cp = _import_cupy()
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2 ** 32, 4000, dtype=np.uint64).astype(np.uint32)
    bits[:6] = [0x3F808000, 0x3F818000, 0x7F7FFFFF, 0x7F800001, 0xFFC12345, 0x00008000]
    pool = bits.view(np.float32)
    hosts = [pool[:600].reshape(20, 30), pool[600:601].reshape(()), pool[601:608],
             pool[:0].reshape(0, 4), pool[1000:1024].reshape(2, 3, 4), pool[2000:2090]]
    arrays = [cp.asarray(h) for h in hosts]
    arrays[0], arrays[5] = arrays[0].T, arrays[5][::3]
    hosts[0], hosts[5] = hosts[0].T, hosts[5][::3]
    with np.errstate(invalid="ignore"):
        want = [np.asarray(h).astype(ml_dtypes.bfloat16).astype(np.float32) for h in hosts]
    for got, w in zip(precision.round_bfloat16_all(arrays), want):
        assert got.shape == w.shape and got.flags.c_contiguous
        np.testing.assert_array_equal(cp.asnumpy(got).view(np.uint32), w.view(np.uint32))
