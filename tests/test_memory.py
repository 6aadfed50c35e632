"""Training loops keep a flat memory footprint: the workspace stops growing once every
buffer shape has been seen, and so does the process's resident set.
"""

import os

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.ops.workspace import workspace
from dygraph.vision.models import MNISTNet

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                                reason="reads the resident set from /proc")


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _train(step, steps, marks):
    """Run `step` `steps` times; return {mark: (workspace bytes held, RSS MB)}."""
    seen = {}
    for i in range(1, steps + 1):
        step()
        if i in marks:
            seen[i] = (workspace.held, _rss_mb())
    return seen


def test_conv_pool_training_memory_is_flat():
    # The seeds' MNIST model (conv, max-pool, linear): its max-pool scratch buffers were
    # requested as np.bool_ and given back as dtype('bool'), so none was ever reused.
    dygraph.seed(0)
    model = MNISTNet()
    opt = dygraph.optimizer.Adam(parameters=model.parameters())
    rng = np.random.default_rng(0)
    x = dygraph.to_tensor(rng.standard_normal((8, 1, 28, 28)).astype(np.float32))
    y = dygraph.to_tensor(rng.integers(0, 10, (8, 1)))

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()

    seen = _train(step, 300, {50, 300})
    assert seen[300][0] <= seen[50][0]
    assert seen[300][1] - seen[50][1] < 8, seen


def test_mlp_and_create_graph_loops_memory_is_flat():
    dygraph.seed(0)
    net = dygraph.nn.Sequential(dygraph.nn.Linear(32, 64), dygraph.nn.Tanh(),
                                dygraph.nn.Linear(64, 1))
    opt = dygraph.optimizer.SGD(0.01, parameters=net.parameters())
    x = dygraph.randn([16, 32])
    x.stop_gradient = False

    def step():
        out = net(x)
        (gx,) = dygraph.grad(out.sum(), [x], create_graph=True)
        loss = out.mean() + (gx * gx).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()

    seen = _train(step, 400, {100, 400})
    assert seen[400][1] - seen[100][1] < 8, seen


def test_workspace_limit_caps_what_is_kept():
    saved = workspace.limit
    try:
        workspace.limit = workspace.held  # nothing more may be kept
        buf = workspace.take(np, (1024, 1024), np.float32)
        workspace.give(buf)
        assert workspace.take(np, (1024, 1024), np.float32) is not buf
    finally:
        workspace.limit = saved
