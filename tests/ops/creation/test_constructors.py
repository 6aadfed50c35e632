"""Paddle 3.3's keywords of the creation functions: requires_grad, uniform's range."""

import pytest

import dygraph

MAKERS = [
    lambda **k: dygraph.zeros([2], **k), lambda **k: dygraph.ones([2], **k),
    lambda **k: dygraph.full([2], 1.5, **k), lambda **k: dygraph.empty([2], **k),
    lambda **k: dygraph.zeros_like(dygraph.ones([2]), **k),
    lambda **k: dygraph.ones_like(dygraph.ones([2]), **k),
    lambda **k: dygraph.full_like(dygraph.ones([2]), 3.0, **k),
    lambda **k: dygraph.empty_like(dygraph.ones([2]), **k),
    lambda **k: dygraph.arange(3.0, **k), lambda **k: dygraph.linspace(0, 1, 3, **k),
    lambda **k: dygraph.eye(2, **k), lambda **k: dygraph.rand([2], **k),
    lambda **k: dygraph.randn([2], **k), lambda **k: dygraph.standard_normal([2], **k),
    lambda **k: dygraph.uniform([2], **k),
]


@pytest.mark.parametrize("make", MAKERS)
def test_requires_grad_makes_a_leaf_that_takes_a_gradient(make):
    assert make().stop_gradient
    x = make(requires_grad=True)
    assert not x.stop_gradient
    (x * 2.0).sum().backward()
    assert x.grad is not None


def test_uniform_draws_from_zero_to_one_by_default():
    values = dygraph.uniform([1000]).numpy()
    assert values.min() >= 0.0 and values.max() < 1.0


def test_full_like_refuses_a_value_the_dtype_cannot_hold():
    # as Paddle: out of an integer or bool dtype's range is a ValueError
    assert dygraph.full_like(dygraph.ones([2], dtype="bool"), 1.0).tolist() == [True, True]
    for like, value, dtype in (("bool", 2.0, None), ("int8", 300, None),
                               ("float32", -1, "uint8")):
        with pytest.raises(ValueError, match=f"full_like: fill_value {value} is out of range"):
            dygraph.full_like(dygraph.ones([2], dtype=like), value, dtype=dtype)
    assert dygraph.full_like(dygraph.ones([2], dtype="int8"), 127).tolist() == [127, 127]
