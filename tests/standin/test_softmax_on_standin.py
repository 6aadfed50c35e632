"""softmax and log_softmax on the GPU path (dygraph/kernels/cuda/softmax_rows.py: one
kernel forward and one back along the last axis, run as their NumPy statements on the
CuPy stand-in) against the CPU path: outputs and gradients, the rows' special values, the
cases left to the array formula, double backward, and a to_static step replayed as a
CUDA graph."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.jit import cuda_graph
from tools import cupy_standin

FUNCTIONS = {"softmax": F.softmax, "log_softmax": F.log_softmax}


def _inputs(shape, dtype, special=False):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    if special:
        x[0, 0, 1] = np.nan
        x[1, 1, :] = -np.inf
        x[0, 1, -1] = np.inf
    return x, rng.standard_normal(shape).astype(dtype)


def _run(name, x, weights, axis=-1, view=None):
    t = dygraph.to_tensor(x, stop_gradient=False)
    source = t if view is None else view(t)
    y = FUNCTIONS[name](source, axis=axis)
    (y * dygraph.to_tensor(weights if view is None else view(dygraph.to_tensor(weights))
                           .numpy())).sum().backward()
    return y.numpy(), t.grad.numpy()


def _kernel_calls():
    return sum(n for k, n in cupy_standin.calls_by_name.items() if "softmax_rows" in k)


@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("dtype, tol", [("float32", 2e-6), ("float64", 1e-14)])
@pytest.mark.parametrize("special", [False, True])
def test_one_kernel_each_way_and_the_cpu_numbers(standin_gpu, name, dtype, tol, special):
    x, weights = _inputs((3, 4, 37), dtype, special)
    dygraph.set_device("cpu")
    with np.errstate(invalid="ignore"):
        want = _run(name, x, weights)
        dygraph.set_device("gpu:0")
        before = _kernel_calls()
        got = _run(name, x, weights)
    assert _kernel_calls() == before + 2  # the forward and the backward
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("case", ["axis", "transposed", "float16"])
def test_other_axes_layouts_and_dtypes_take_the_array_formula(standin_gpu, name, case):
    x, weights = _inputs((3, 4, 5), "float16" if case == "float16" else "float64")
    axis = 1 if case == "axis" else -1
    view = (lambda t: t.transpose([0, 2, 1])) if case == "transposed" else None
    dygraph.set_device("cpu")
    want = _run(name, x, weights, axis, view)
    dygraph.set_device("gpu:0")
    before = _kernel_calls()
    got = _run(name, x, weights, axis, view)
    if case == "transposed":  # transpose copies: the kernel sees a C-ordered input
        assert _kernel_calls() == before + 2
    else:
        assert _kernel_calls() == before
    tol = 2e-3 if case == "float16" else 1e-14
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol,
                                   atol=tol)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_double_backward_goes_through_the_tensor_formula(standin_gpu, name):
    results = []
    for place in ("cpu", "gpu:0"):
        dygraph.set_device(place)
        x = dygraph.to_tensor(np.linspace(-2, 2, 12).reshape(3, 4), stop_gradient=False)
        y = FUNCTIONS[name](x)
        (gx,) = dygraph.grad((y * y).sum(), x, create_graph=True)
        (gx * gx).sum().backward()
        results.append((gx.numpy(), x.grad.numpy()))
    for g, w in zip(*reversed(results)):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-14)


class _Attention(dygraph.nn.Layer):
    def __init__(self):
        super().__init__()
        self.q = dygraph.nn.Linear(8, 8)

    def forward(self, x):
        scores = dygraph.matmul(self.q(x), x, transpose_y=True)
        return F.softmax(scores) + F.log_softmax(scores).exp()


def _losses(mode, x):
    dygraph.seed(0)
    model = _Attention()
    opt = dygraph.optimizer.SGD(0.1, parameters=model.parameters())

    def step(data):
        loss = (model(data) * data.sum(-1, keepdim=True)).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    if mode == "to_static":
        step = dygraph.jit.to_static(step)
    return [float(step(dygraph.to_tensor(x))) for _ in range(4)]


def test_a_to_static_step_replays_the_kernels_in_a_cuda_graph(standin_gpu):
    x = np.random.default_rng(3).standard_normal((2, 5, 8)).astype(np.float32)
    eager = _losses("eager", x)
    replays, launches = cuda_graph.stats["replays"], _kernel_calls()
    graphed = _losses("to_static", x)
    assert cuda_graph.stats["replays"] - replays == 2  # warm-up, capture, two replays
    assert _kernel_calls() > launches
    np.testing.assert_allclose(graphed, eager, rtol=1e-6)
