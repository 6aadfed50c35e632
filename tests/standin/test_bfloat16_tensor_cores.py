"""bfloat16 auto_cast on the GPU path: the products of low-precision ops, forward and
backward, run under Tensor Core modes that are exact for bfloat16 operands
(dygraph/backend/product_precision.py): cuBLAS's bfloat16 compute type, TF32 graphs for
cuDNN's convolutions; every other float32 product keeps float32 arithmetic. Checked on
the CuPy stand-in with cuDNN's stand-in, which count the products made in that mode and
keep the graphs built; the numbers against the CPU's."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import cudnn, product_precision
from tools import cupy_standin

pytest.importorskip("ml_dtypes")


class _Net(dygraph.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = dygraph.nn.Conv2D(3, 4, 3)
        self.fc = dygraph.nn.Linear(4 * 36, 5)

    def forward(self, x):
        return self.fc(F.relu(self.conv(x)).flatten(1))


def _step(x, y, amp):
    dygraph.seed(0)
    net = _Net()
    with dygraph.amp.auto_cast(enable=amp, dtype="bfloat16"):
        out = net(dygraph.to_tensor(x))
    loss = F.cross_entropy(out.astype("float32"), dygraph.to_tensor(y))
    loss.backward()
    # a float32 product outside auto_cast, after it
    extra = dygraph.matmul(dygraph.to_tensor(x[:, 0, 0]), dygraph.to_tensor(x[:, 0, 1]).T)
    return [float(loss), extra.numpy()] + [p.grad.numpy() for p in net.parameters()]


@pytest.mark.parametrize("amp", [True, False])
def test_products_of_bfloat16_ops_take_tensor_cores_and_nothing_else(amp):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 8, 8)).astype(np.float32)
    y = rng.integers(0, 5, 4)
    want = _step(x, y, amp)
    with cupy_standin.installed(cudnn=True):
        dygraph.set_device("gpu:0")
        try:
            before = cupy_standin.stats["bfloat16_products"]
            got = _step(x, y, amp)
            products = cupy_standin.stats["bfloat16_products"] - before
            conv_keys = [key for key in cudnn.graphs._PLANS if key[0].startswith("conv")]
            tf32_allowed = ["TENSOR_CORE" not in cudnn.graphs._PLANS[key].graph.deselected
                            for key in conv_keys]
        finally:
            dygraph.set_device("cpu")
    # Linear: its product forward, and the data and weight gradients' products back
    assert products == (3 if amp else 0)
    # the conv's forward and filter gradient graphs (x needs no gradient), TF32 allowed
    # with auto_cast only
    assert sorted(key[0] for key in conv_keys) == ["conv_fprop", "conv_wgrad"]
    assert all(key[-1] is amp for key in conv_keys) and tf32_allowed == [amp] * 2
    assert not product_precision.active()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)


def test_the_mode_ends_with_its_block_when_an_op_raises_and_is_per_thread():
    import threading

    with pytest.raises(RuntimeError):
        with product_precision.bfloat16_operands():
            assert product_precision.active()
            raise RuntimeError("an op failed")
    assert not product_precision.active()
    seen = []
    with product_precision.bfloat16_operands():
        other = threading.Thread(target=lambda: seen.append(product_precision.active()))
        other.start()
        other.join()
    assert seen == [False]  # another thread's products keep float32 arithmetic


def test_to_static_steps_capture_their_products_on_tensor_cores():
    """A program's ops are the eager ones: the low-precision products of the plain first
    run and of the capture (what the graphs replay) take the bfloat16 compute type."""
    rng = np.random.default_rng(1)
    x_np = rng.standard_normal((5, 8)).astype(np.float32)
    y_np = np.array([0, 1, 2, 3, 0])

    def losses(static):
        dygraph.seed(0)
        net = dygraph.nn.Sequential(dygraph.nn.Linear(8, 16), dygraph.nn.ReLU(),
                                    dygraph.nn.Linear(16, 4))
        opt = dygraph.optimizer.Adam(parameters=net.parameters())

        def step(x, y):
            with dygraph.amp.auto_cast(dtype="bfloat16"):
                out = net(x)
            loss = F.cross_entropy(out.astype("float32"), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        step = dygraph.jit.to_static(step) if static else step
        x, y = dygraph.to_tensor(x_np), dygraph.to_tensor(y_np)
        out, products = [], []
        for _ in range(4):
            before = cupy_standin.stats["bfloat16_products"]
            out.append(float(step(x, y)))
            products.append(cupy_standin.stats["bfloat16_products"] - before)
        return out, products

    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            eager, eager_products = losses(False)
            graphed, graphed_products = losses(True)
        finally:
            dygraph.set_device("cpu")
    # two linears forward; back, the second's data and weight products and the first's
    # weight product (x needs no gradient)
    assert eager_products == [5] * 4
    assert graphed_products == [5, 5, 0, 0]  # plain run, capture, then replays
    np.testing.assert_allclose(graphed, eager, rtol=1e-6)


def test_products_inside_a_capture_take_the_bfloat16_compute_type():
    from dygraph.backend import capture_products

    float32, float64 = 0, 1  # CUDA_R_32F, CUDA_R_64F
    assert capture_products._compute_type(float32) == 68  # CUBLAS_COMPUTE_32F
    with product_precision.bfloat16_operands():
        assert capture_products._compute_type(float32) == 75  # ..._32F_FAST_16BF
        assert capture_products._compute_type(float64) == 70  # float64 stays


def test_a_copy_of_a_tensor_core_op_runs_as_itself():
    """Programs run copies of their ops (control-flow blocks, second order): the copy's
    forward must keep what it saves on the copy, with the Tensor Core mode on."""
    import copy

    from dygraph.ops.nn.linear import Linear

    seen = []

    class Probe(Linear):
        def forward(self, xp, x, w, b=None):
            seen.append((self, product_precision.active()))
            return super().forward(xp, x, w, b)

    op = product_precision.for_bfloat16_operands(Probe())
    twin = copy.copy(op)
    twin.forward(np, np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))
    assert seen == [(twin, True)] and twin.x_shape == (2, 3) and "x_shape" not in vars(op)
    plain = copy.copy(Probe())
    assert "forward" not in vars(plain)
