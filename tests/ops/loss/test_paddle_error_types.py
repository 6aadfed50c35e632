"""Loss functions raise Paddle 3.3's exception types (issue 28's parity replay): errors that
Paddle raises with an assert are also AssertionErrors, a float label where class indices go
is also a ValueError."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.framework.errors import AssertedTypeError, AssertedValueError, ValueTypeError


def _t(a):
    return dygraph.to_tensor(np.asarray(a))


X = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)


@pytest.mark.parametrize("fn", [F.cross_entropy, F.nll_loss, F.softmax_with_cross_entropy])
def test_a_float_label_of_class_indices_is_a_value_type_error(fn):
    with pytest.raises(ValueTypeError, match=f"{fn.__name__}: label must hold integer .*"
                                             "float32"):
        fn(_t(X), _t(np.zeros((3, 1), np.float32)))
    with pytest.raises(TypeError, match="dtype bool") as caught:
        fn(_t(X), _t(np.zeros((3, 1), bool)))
    assert not isinstance(caught.value, ValueError)


def test_dice_loss_asserts_label_dtype_rank_and_last_dim():
    with pytest.raises(AssertedTypeError, match="dice_loss: label must be an int32 or int64"):
        F.dice_loss(_t(X), _t(np.zeros((3, 1), np.float32)))
    with pytest.raises(AssertedValueError, match=r"label \[N, \.\.\., 1\].*\[3, 4\]"):
        F.dice_loss(_t(X), _t(np.zeros((3, 4), np.int64)))
    with pytest.raises(AssertedValueError, match="2-D at least"):
        F.dice_loss(_t(X[0]), _t(np.zeros((1,), np.int64)))
    # mismatched leading dims stay a plain ValueError (the error walk records that type)
    with pytest.raises(ValueError, match="same leading dims"):
        F.dice_loss(_t(X), _t(np.zeros((2, 1), np.int64)))
    out = F.dice_loss(_t(X), _t(np.zeros((3, 1), np.int64)))
    assert out.shape == [] and out.dtype == dygraph.float32
