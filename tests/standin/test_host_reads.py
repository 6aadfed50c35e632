"""Fewer waits for the GPU in a training step (CuPy stand-in, which counts reads of device
values on the host): GradScaler reads its inf/NaN flags once per step, not once per
parameter, and Lamb keeps its trust ratios on the device; both update as on the CPU."""

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


def _lamb_steps():
    dygraph.seed(0)
    net = dygraph.nn.Sequential(dygraph.nn.Linear(4, 8), dygraph.nn.Linear(8, 2))
    opt = dygraph.optimizer.Lamb(0.01, parameters=net.parameters(), lamb_weight_decay=0.01)
    x = dygraph.to_tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    reads = 0
    for _ in range(3):
        (net(x) ** 2).mean().backward()
        before = cupy_standin.stats["host_reads"]
        opt.step()
        reads += cupy_standin.stats["host_reads"] - before
        opt.clear_grad()
    return [p.numpy() for p in net.parameters()], reads


def test_lamb_keeps_its_trust_ratios_on_the_gpu():
    expected, _ = _lamb_steps()
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            got, reads = _lamb_steps()
        finally:
            dygraph.set_device("cpu")
    assert reads == 0  # it read two norms per parameter and step
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
