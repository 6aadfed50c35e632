"""Gradient clipping objects and weight-decay regularizers on their own."""

import numpy as np
import pytest

import dygraph
from dygraph.framework.parameter import Parameter
from dygraph.nn.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from dygraph.regularizer import L1Decay, L2Decay

RNG = np.random.default_rng(1)


def pairs(*grads, need_clip=None):
    out = []
    for i, g in enumerate(grads):
        p = Parameter(np.zeros_like(g), name=f"p{i}")
        if need_clip is not None:
            p.need_clip = need_clip[i]
        out.append((p, dygraph.to_tensor(g)))
    return out


def test_clip_by_value_defaults_min_to_minus_max():
    g = RNG.normal(size=(4, 5)) * 3
    [(_, got)] = ClipGradByValue(1.5)(pairs(g))
    np.testing.assert_array_equal(got.numpy(), np.clip(g, -1.5, 1.5))
    [(_, got)] = ClipGradByValue(2.0, min=0.5)(pairs(g))
    np.testing.assert_array_equal(got.numpy(), np.clip(g, 0.5, 2.0))


def test_clip_by_norm_is_per_tensor():
    small, big = np.full(4, 0.1), np.full(4, 10.0)
    (_, a), (_, b) = ClipGradByNorm(1.0)(pairs(small, big))
    np.testing.assert_allclose(a.numpy(), small)  # under the limit: untouched
    np.testing.assert_allclose(b.numpy(), big / np.linalg.norm(big))


def test_clip_by_global_norm_scales_all_together_and_skips_need_clip_false():
    g1, g2, g3 = (RNG.normal(size=s) for s in [(3,), (2, 2), (5,)])
    out = ClipGradByGlobalNorm(0.5)(pairs(g1, g2, g3, need_clip=[True, True, False]))
    norm = np.sqrt(np.sum(g1 ** 2) + np.sum(g2 ** 2))
    scale = 0.5 / max(norm, 0.5)
    np.testing.assert_allclose(out[0][1].numpy(), g1 * scale, rtol=1e-12)
    np.testing.assert_allclose(out[1][1].numpy(), g2 * scale, rtol=1e-12)
    np.testing.assert_array_equal(out[2][1].numpy(), g3)


def test_clipping_never_modifies_the_given_gradients():
    g = np.full(3, 5.0)
    given = pairs(g)
    for clip in (ClipGradByValue(1.0), ClipGradByNorm(1.0), ClipGradByGlobalNorm(1.0)):
        clip(given)
        np.testing.assert_array_equal(given[0][1].numpy(), g)


def test_float16_gradients_keep_their_dtype_and_do_not_overflow_the_norm():
    g = np.full(4, 300.0, np.float16)  # sum of squares 360000 > float16 max
    [(_, got)] = ClipGradByGlobalNorm(1.0)(pairs(g))
    assert got.dtype == dygraph.float16
    np.testing.assert_allclose(got.numpy().astype(np.float64), np.full(4, 0.5), rtol=1e-3)


@pytest.mark.parametrize("make, exc", [
    (lambda: ClipGradByValue(-1.0), ValueError),
    (lambda: ClipGradByValue(1.0, min=2.0), ValueError),
    (lambda: ClipGradByValue("1"), TypeError),
    (lambda: ClipGradByNorm(0.0), ValueError),
    (lambda: ClipGradByGlobalNorm(-2.0), ValueError),
    (lambda: ClipGradByGlobalNorm(1.0, group_name=3), TypeError),
    (lambda: L2Decay("big"), TypeError),
])
def test_bad_arguments(make, exc):
    with pytest.raises(exc):
        make()


def test_regularizers_add_their_gradient():
    p = dygraph.to_tensor(np.array([2.0, -3.0, 0.0]))
    g = dygraph.to_tensor(np.array([1.0, 1.0, 1.0]))
    np.testing.assert_allclose(L2Decay(0.5)(p, g).numpy(), [2.0, -0.5, 1.0])
    np.testing.assert_allclose(L1Decay(0.5)(p, g).numpy(), [1.5, 0.5, 1.0])
    np.testing.assert_array_equal(g.numpy(), [1.0, 1.0, 1.0])
    assert str(L2Decay(0.25)) == "L2Decay, coeff=0.250000"


def test_regularizer_reaches_the_optimizer_through_param_attr():
    pa = dygraph.ParamAttr(regularizer=L2Decay(0.5), learning_rate=2.0, need_clip=False)
    from dygraph.optimizer import SGD
    p = Parameter(np.array([1.0]), name="w", learning_rate=pa.learning_rate,
                  regularizer=pa.regularizer, need_clip=pa.need_clip)
    opt = SGD(0.1, parameters=[p], grad_clip=ClipGradByValue(0.01))
    p.grad = dygraph.to_tensor(np.array([1.0]))
    opt.step()
    np.testing.assert_allclose(p.numpy(), [1.0 - 0.1 * 2.0 * (1.0 + 0.5)])
