"""auto_cast(dtype='bfloat16') on the GPU path rounds to bfloat16 with one fused kernel an
op: all its operands in one launch, its output in another, and the same for their
gradients (dygraph/kernels/cuda/precision.py, its NumPy statements run on the CuPy
stand-in); a training step's losses and gradients equal the CPU path's (ml_dtypes'
rounding)."""

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
            names = ("round_bfloat16", "round_bfloat16_4")
            before = [cupy_standin.calls_by_name[name] for name in names]
            got = _step()
            single, together = (cupy_standin.calls_by_name[name] - b
                                for name, b in zip(names, before))
        finally:
            dygraph.set_device("cpu")
    # Each linear: its operands (input, weight, bias) together, its output alone, and the
    # same for their gradients: 8 launches (15 with a launch a tensor; the data takes no
    # gradient).
    assert (single, together) == (4, 4)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


def test_round_bfloat16_all_rounds_each_array_in_its_shape():
    """Six arrays (a 0-d one, an empty one, a transposed view): two launches, four arrays
    and then two, each result in its array's shape with ml_dtypes' values."""
    import ml_dtypes

    from dygraph.kernels.cuda import precision

    rng = np.random.default_rng(1)
    hosts = [rng.standard_normal((3, 5)).astype(np.float32).T, np.float32(1.00390625),
             rng.standard_normal(7).astype(np.float32), np.zeros((0, 4), np.float32),
             rng.standard_normal((2, 3, 4)).astype(np.float32),
             rng.standard_normal(9).astype(np.float32)[::3]]
    with cupy_standin.installed():
        cp = cupy_standin.module()
        arrays = [cp.asarray(h) for h in hosts]
        arrays[0] = cp.asarray(np.ascontiguousarray(hosts[0].T)).T  # a strided device view
        before = cupy_standin.calls_by_name["round_bfloat16_4"]
        rounded = precision.round_bfloat16_all(arrays)
        nothing = precision.round_bfloat16_all([arrays[3], arrays[3][:, :2]])  # no elements
        launches = cupy_standin.calls_by_name["round_bfloat16_4"] - before
        got = [cp.asnumpy(r) for r in rounded]
    assert launches == 2 and [a.shape for a in nothing] == [(0, 4), (0, 2)]
    for h, g in zip(hosts, got):
        assert g.shape == np.shape(h) and g.dtype == np.float32
        want = np.asarray(h).astype(ml_dtypes.bfloat16).astype(np.float32)
        np.testing.assert_array_equal(g, want)
