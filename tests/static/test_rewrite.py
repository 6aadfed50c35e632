"""Plan rewrites: max pooling before relu gives eager's values and gradients, and leaves
alone what a user can see."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import static
from dygraph.static.rewrite import pool_before_relu


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _model(x, w, kwargs):
    return (F.max_pool2d(F.relu(x * w), **kwargs) * w.sum()).sum()


@pytest.mark.parametrize("kwargs", [{"kernel_size": 2},
                                    {"kernel_size": 3, "stride": 2, "padding": 1},
                                    {"kernel_size": 2, "ceil_mode": True}])
def test_pooling_before_relu_matches_eager(kwargs):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    x[0, 0] = -np.abs(x[0, 0])  # a channel where every window is negative
    w = rng.standard_normal((1, 3, 1, 1)).astype(np.float32)
    tx = dygraph.to_tensor(x, stop_gradient=False)
    tw = dygraph.to_tensor(w, stop_gradient=False)
    expected = _model(tx, tw, kwargs)
    expected.backward()

    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        vx, vw = static.data("x", [None, 3, 5, 5]), static.data("w", [1, 3, 1, 1])
        vx.stop_gradient = vw.stop_gradient = False
        out = _model(vx, vw, kwargs)
        grads = static.gradients([out], [vx, vw])
    dygraph.disable_static()
    ops = pool_before_relu(main.global_block().ops, {out.name})
    assert [o.type for o in ops].index("maxpool") < [o.type for o in ops].index("relu")
    got, gx, gw = static.Executor().run(main, feed={"x": x, "w": w},
                                        fetch_list=[out] + grads)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-5)
    np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw, tw.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_a_relu_result_that_is_fetched_or_shared_stays_in_place():
    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [None, 1, 4, 4])
        r = F.relu(x)
        pooled = F.max_pool2d(r, 2)
        shared = F.relu(x * 2.0)  # read by the pooling and by mean
        other = F.max_pool2d(shared, 2) + shared.mean()
    dygraph.disable_static()
    block = main.global_block()
    kept = [o.type for o in pool_before_relu(block.ops, {r.name, pooled.name})]
    assert kept == [o.type for o in block.ops]
    feed = {"x": np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)}
    got_r, got_pooled, _ = static.Executor().run(main, feed=feed,
                                                 fetch_list=[r, pooled, other])
    np.testing.assert_allclose(got_r, np.maximum(feed["x"], 0))
    assert got_pooled.shape == (2, 1, 2, 2)
