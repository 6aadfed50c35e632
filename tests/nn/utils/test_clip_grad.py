"""clip_grad_norm_ / clip_grad_value_ against Paddle 3.3's recorded values."""

import numpy as np
import pytest

import dygraph
from dygraph.nn.utils import clip_grad_norm_, clip_grad_value_
from tests.nn.utils.refs import REFS, arr


def _params_with_grads():
    params = [dygraph.to_tensor(arr([2, 3], 1), stop_gradient=False),
              dygraph.to_tensor(arr([4], 2), stop_gradient=False)]
    (params[0] ** 3).sum().backward()
    (params[1] * 2.0).sum().backward()
    return params


@pytest.mark.parametrize("case", REFS["clip_grad_norm"],
                         ids=lambda c: f"{c['norm_type']}-{c['max_norm']}")
def test_clip_grad_norm_matches_paddle(case):
    params = _params_with_grads()
    total = clip_grad_norm_(params, case["max_norm"], norm_type=float(case["norm_type"]))
    assert total.shape == [] and total.dtype == dygraph.float32
    np.testing.assert_allclose(float(total), case["total"], rtol=1e-5)
    for param, grad in zip(params, case["grads"]):
        np.testing.assert_allclose(param.grad.numpy(), grad, rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_edges():
    w = dygraph.to_tensor([1.0, 2.0], stop_gradient=False)
    assert float(clip_grad_norm_(w, 1.0)) == 0.0  # no gradient yet
    with pytest.raises(ValueError):
        clip_grad_norm_(w, 1.0, norm_type=3)
    (w * float("nan")).sum().backward()
    with pytest.raises(RuntimeError):
        clip_grad_norm_(w, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_matches_paddle():
    w = dygraph.to_tensor(arr([2, 3], 1), stop_gradient=False)
    (w ** 3).sum().backward()
    assert clip_grad_value_(w, 0.75) is None
    np.testing.assert_allclose(w.grad.numpy(), REFS["clip_grad_value"], rtol=1e-6)


def test_training_step_with_clipping():
    dygraph.seed(0)
    net = dygraph.nn.Linear(4, 1)
    opt = dygraph.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    x, y = dygraph.randn([16, 4]), dygraph.randn([16, 1])
    for _ in range(3):
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        clip_grad_norm_(net.parameters(), 0.1)
        total = np.sqrt(sum(float((p.grad ** 2).sum()) for p in net.parameters()))
        assert total <= 0.1 + 1e-6
        opt.step()
        opt.clear_grad()
