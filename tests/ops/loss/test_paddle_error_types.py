"""Loss functions raise Paddle 3.3's exception types (issue 28's parity replay): errors that
Paddle raises with an assert are also AssertionErrors, a float label where class indices go
is also a ValueError."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.framework.errors import (
    AssertedTypeError,
    AssertedValueError,
    RankIndexError,
    ValueTypeError,
)


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


def test_dice_loss_asserts_label_dtype_rank_last_dim_and_leading_dims():
    with pytest.raises(AssertedTypeError, match="dice_loss: label must be an int32 or int64"):
        F.dice_loss(_t(X), _t(np.zeros((3, 1), np.float32)))
    with pytest.raises(AssertedValueError, match=r"label \[N, \.\.\., 1\].*\[3, 4\]"):
        F.dice_loss(_t(X), _t(np.zeros((3, 4), np.int64)))
    with pytest.raises(AssertedValueError, match="2-D at least"):
        F.dice_loss(_t(X[0]), _t(np.zeros((1,), np.int64)))
    with pytest.raises(AssertedValueError, match=r"same leading dims, got \[3, 4\] and \[2, 1\]"):
        F.dice_loss(_t(X), _t(np.zeros((2, 1), np.int64)))
    out = F.dice_loss(_t(X), _t(np.zeros((3, 1), np.int64)))
    assert out.shape == [] and out.dtype == dygraph.float32


@pytest.mark.parametrize("shape", [[], [4]])
def test_class_losses_of_too_few_dims_are_index_errors_too(shape):
    label = _t(np.zeros(1, np.int64))
    with pytest.raises(RankIndexError, match=r"multi_margin_loss: input must be \[N, C\]"):
        F.multi_margin_loss(dygraph.ones(shape), label)
    with pytest.raises(RankIndexError, match=r"margin_cross_entropy: logits must be \[N, C\]"):
        F.margin_cross_entropy(dygraph.ones(shape), label)


def test_multi_margin_loss_float_labels_and_empty_batches():
    with pytest.raises(ValueTypeError, match="multi_margin_loss: label must hold integer"):
        F.multi_margin_loss(_t(X), _t(np.zeros(3, np.float32)))
    # an empty batch has no label to read: the mean of nothing, as Paddle
    out = F.multi_margin_loss(_t(np.zeros((0, 4), np.float32)), _t(np.zeros(0, np.float32)))
    assert out.shape == [] and np.isnan(out.numpy())


@pytest.mark.parametrize("fn", [F.smooth_l1_loss, F.kl_div, F.sigmoid_focal_loss])
def test_losses_that_refuse_a_broadcast_label(fn):
    with pytest.raises(ValueError, match=r"input shape \[3, 4\] and label shape \[4\] differ"):
        fn(_t(X), _t(X[0]))


def test_smooth_l1_loss_without_huber_divides_by_delta():
    x, y = _t(np.zeros(3, np.float32)), _t(np.float32([0.5, 2.0, -3.0]))
    huber = F.smooth_l1_loss(x, y, reduction="none", delta=1.5)
    np.testing.assert_allclose(huber.numpy(), [0.125, 1.875, 3.375])
    smooth = F.smooth_l1_loss(x, y, reduction="none", delta=1.5, is_huber=False)
    np.testing.assert_allclose(smooth.numpy(), huber.numpy() / 1.5, rtol=1e-6)
