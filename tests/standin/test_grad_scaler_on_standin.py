"""GradScaler on a GPU reads its inf/NaN flags from the device once per step, not once
per parameter, and skips or takes the step as on the CPU (CuPy stand-in)."""

import numpy as np
import pytest

import dygraph
from tools import cupy_standin


def _step(poison):
    dygraph.seed(0)
    net = dygraph.nn.Sequential(dygraph.nn.Linear(4, 8), dygraph.nn.Linear(8, 2))
    opt = dygraph.optimizer.SGD(0.1, parameters=net.parameters())
    scaler = dygraph.amp.GradScaler(init_loss_scaling=8.0)
    x = dygraph.to_tensor(np.ones((3, 4), np.float32) * (np.inf if poison else 1.0))
    scaler.scale((net(x) ** 2).mean()).backward()
    reads = cupy_standin.stats["host_reads"]
    scaler.step(opt)
    scaler.update()
    reads = cupy_standin.stats["host_reads"] - reads
    return [p.numpy() for p in net.parameters()], reads


@pytest.mark.parametrize("poison", [False, True])
def test_one_read_per_step_and_the_cpus_update(poison):
    expected, _ = _step(poison)
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            got, reads = _step(poison)
        finally:
            dygraph.set_device("cpu")
    assert reads == 1
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6)
