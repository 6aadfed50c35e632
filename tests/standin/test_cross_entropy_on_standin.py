"""cross_entropy on the GPU path (dygraph/kernels/cuda/cross_entropy_rows.py: one kernel
forward, one back, classes on the last axis, run as their NumPy statements on the CuPy
stand-in) against the CPU path: the loss and the input's gradient over the reductions,
class weights, ignore_index and batch shapes; the forms the kernels leave to the array
formula; and a to_static step replayed as a CUDA graph."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from tools import cupy_standin


def _launches():
    return sum(n for name, n in cupy_standin.calls_by_name.items()
               if name.startswith("dygraph_cross_entropy_rows"))


def _run(x, label, **kwargs):
    t = dygraph.to_tensor(x, stop_gradient=False)
    loss = F.cross_entropy(t, dygraph.to_tensor(label), **kwargs)
    weights = np.linspace(0.5, 1.5, loss.size).reshape(loss.shape).astype(x.dtype)
    (loss * dygraph.to_tensor(weights)).sum().backward()
    return loss.numpy(), t.grad.numpy()


CASES = {
    "mean": ((8, 5), {}),
    "sum": ((8, 5), {"reduction": "sum"}),
    "none": ((8, 5), {"reduction": "none"}),
    "weights": ((8, 5), {"weight": "w"}),
    "ignore_index": ((8, 5), {"ignore_index": 2}),
    "batch_of_sequences": ((3, 4, 7), {}),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("dtype, tol", [("float32", 2e-6), ("float64", 1e-14)])
def test_one_kernel_each_way_and_the_cpu_numbers(standin_gpu, case, dtype, tol):
    shape, kwargs = CASES[case]
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    label = rng.integers(0, shape[-1], shape[:-1] + (1,)).astype(np.int64)
    if kwargs.get("weight") == "w":
        kwargs = dict(kwargs, weight=dygraph.to_tensor(
            np.linspace(0.2, 2.0, shape[-1]).astype(dtype)))
    dygraph.set_device("cpu")
    want = _run(x, label, **kwargs)
    dygraph.set_device("gpu:0")
    if "weight" in kwargs:
        kwargs["weight"] = dygraph.to_tensor(kwargs["weight"].numpy())
    before = _launches()
    got = _run(x, label, **kwargs)
    assert _launches() == before + 2
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", ["axis", "soft_label", "int32_labels"])
def test_other_forms_take_the_array_formula(standin_gpu, case):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 4))
    if case == "soft_label":
        label = rng.dirichlet(np.ones(4), 6)
        kwargs = {"soft_label": True}
    elif case == "axis":
        x, kwargs = x.T.copy(), {"axis": 0}
        label = rng.integers(0, 4, (1, 6)).astype(np.int64)
    else:
        label, kwargs = rng.integers(0, 4, (6, 1)).astype(np.int32), {}
    dygraph.set_device("cpu")
    want = _run(x, label, **kwargs)
    dygraph.set_device("gpu:0")
    before = _launches()
    got = _run(x, label, **kwargs)
    assert _launches() == before
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-14)


def test_a_to_static_step_replays_the_kernels_in_a_cuda_graph(standin_gpu):
    from dygraph.jit import cuda_graph

    x = np.random.default_rng(2).standard_normal((16, 8)).astype(np.float32)
    y = np.random.default_rng(3).integers(0, 4, (16, 1)).astype(np.int64)
    losses = {}
    for mode in ("eager", "to_static"):
        dygraph.seed(0)
        model = dygraph.nn.Linear(8, 4)
        opt = dygraph.optimizer.SGD(0.5, parameters=model.parameters())

        def step(data, target, model=model, opt=opt):
            loss = F.cross_entropy(model(data), target)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        if mode == "to_static":
            step = dygraph.jit.to_static(step)
        replays, launches = cuda_graph.stats["replays"], _launches()
        losses[mode] = [float(step(dygraph.to_tensor(x), dygraph.to_tensor(y)))
                        for _ in range(4)]
        assert _launches() > launches
    assert cuda_graph.stats["replays"] - replays == 2  # warm-up, capture, two replays
    np.testing.assert_allclose(losses["to_static"], losses["eager"], rtol=1e-6)
