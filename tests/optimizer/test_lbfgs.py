"""LBFGS (dygraph/optimizer/lbfgs.py, line_search.py) against the direct minimum of a
quadratic, with and without the strong-Wolfe line search, a hand-run first iteration, and
its closure check."""

import numpy as np
import pytest

import dygraph
from dygraph.framework.parameter import Parameter
from dygraph.optimizer import LBFGS


def _quadratic(seed=0):
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((4, 3))
    a, b = m.T @ m + np.eye(3), rng.standard_normal(3)
    return a, b, np.linalg.solve(a, b)


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_minimises_a_quadratic(line_search):
    a, b, best = _quadratic()
    w = Parameter(np.zeros(3))
    opt = LBFGS(parameters=[w], line_search_fn=line_search, max_iter=50)
    at, bt = dygraph.to_tensor(a), dygraph.to_tensor(b)

    def closure():
        opt.clear_grad()
        loss = 0.5 * (w * dygraph.matmul(at, w)).sum() - (bt * w).sum()
        loss.backward()
        return loss

    first = opt.step(closure)
    assert float(first) == 0.0
    # It stops on tolerance_change a little short of the minimum, as Paddle's does.
    np.testing.assert_allclose(w.numpy(), best, atol=1e-5)


def test_lbfgs_first_iteration_is_a_scaled_gradient_step():
    # Without a line search the first step is -g * min(1, 1 / |g|_1) * lr.
    w = Parameter(np.array([3.0, -1.0]))
    opt = LBFGS(learning_rate=0.5, parameters=[w], max_iter=1)

    def closure():
        opt.clear_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    g = np.array([6.0, -2.0])
    np.testing.assert_allclose(w.numpy(), [3.0, -1.0] - g * min(1, 1 / 8) * 0.5)


def test_lbfgs_needs_a_closure():
    opt = LBFGS(parameters=[Parameter(np.ones(1))])
    with pytest.raises(TypeError, match="closure"):
        opt.step(None)
