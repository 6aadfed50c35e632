"""nn.functional behaviours matched to Paddle 3.3: the dropout family on integer and bool
inputs (their dtype kept, Paddle's truncated factors), dropout's refusal of a negative axis,
log_loss's [N, 1] shapes, integer mse_loss and square_error_cost, and
multi_label_margin_loss of an empty batch. Expected values are Paddle's recorded or measured
answers, or NumPy computations of the same rule."""

import math

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.ops.loss.likelihood_focal_dice import log_loss as log_loss_op
from dygraph.ops.nn.dropout import dropout as dropout_op

RNG = np.random.default_rng(0)
SELU = 1.6732632423543772848170429916717 * 1.0507009873554804934193349852946


def _keep(fn, shape, seed, *args, **kwargs):
    """The keep mask `fn` draws with `seed`: a run on float ones, nonzero where kept."""
    dygraph.seed(seed)
    return fn(dygraph.ones(shape), *args, **kwargs).numpy() != 0


@pytest.mark.parametrize("fn,shape", [(F.dropout1d, (2, 3, 5)), (F.dropout1d, (3, 5)),
                                      (F.dropout2d, (2, 3, 2, 2)),
                                      (F.dropout3d, (2, 3, 1, 2, 2))])
@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
@pytest.mark.parametrize("p", [0.5, 0.3])
def test_channel_dropout_keeps_integer_and_bool_dtypes(fn, shape, dtype, p):
    x = RNG.integers(-4, 5, shape).astype(dtype)
    keep = _keep(fn, shape, 3, p)
    dygraph.seed(3)
    got = fn(dygraph.to_tensor(x), p)
    assert got.dtype == dygraph.to_tensor(x).dtype
    # kept channels are scaled by trunc(1 / (1 - p)): 2 for p = 0.5, 1 for p = 0.3
    want = x & keep if dtype == "bool" else x * math.trunc(1 / (1 - p)) * keep
    np.testing.assert_array_equal(got.numpy(), want)


def test_dropout2d_of_int32_as_paddle_recorded_it():
    """Paddle's recorded dropout2d of int32 (default p): each channel is 0 or twice x."""
    x = RNG.integers(-3, 5, (2, 3, 6, 6)).astype(np.int32)
    y = F.dropout2d(dygraph.to_tensor(x)).numpy()
    assert y.dtype == np.int32
    for n in range(2):
        for c in range(3):
            assert (y[n, c] == 0).all() or (y[n, c] == 2 * x[n, c]).all()


@pytest.mark.parametrize("fn", [F.alpha_dropout, F.feature_alpha_dropout])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_alpha_dropouts_of_integers_use_paddle_truncated_factors(fn, dtype):
    x = RNG.integers(-8, 9, (2, 3, 4)).astype(dtype)
    xt = dygraph.to_tensor(x)
    # default p = 0.5: a = 0.886 and b = 0.779 truncate to 0 (Paddle's recorded zeros)
    out = fn(xt)
    assert out.dtype == xt.dtype and not out.numpy().any()
    # p = 0.9: a = 1.63 -> 1, b = 2.57 -> 2, alpha' = -1.76 -> -1 (measured on Paddle:
    # kept values x + 2, dropped ones 1)
    a = ((1 - 0.9) * (1 + 0.9 * SELU ** 2)) ** -0.5
    dygraph.seed(5)  # on ones, a kept value is a + b > 0, a dropped one b - a * alpha' < 0
    keep = fn(dygraph.ones(x.shape), 0.9).numpy() > 0
    assert (math.trunc(a), math.trunc(a * SELU * 0.9)) == (1, 2)
    dygraph.seed(5)
    np.testing.assert_array_equal(fn(xt, 0.9).numpy(), np.where(keep, x + 2, 1))
    assert not fn(xt, 1.0).numpy().any() and fn(xt, 1.0).dtype == xt.dtype
    np.testing.assert_array_equal(fn(xt, 0.5, training=False).numpy(), x)


def test_dropout_with_axis_on_integers_and_bools():
    """The op under F.dropout (the public name refuses these dtypes for axis=None, as
    Paddle's kernel; with an axis Paddle composes scale and multiply, which take them)."""
    x = RNG.integers(-4, 5, (3, 4)).astype(np.int64)
    xt = dygraph.to_tensor(x)
    keep = _keep(dropout_op, x.shape, 7, 0.5, axis=1)
    dygraph.seed(7)
    np.testing.assert_array_equal(dropout_op(xt, 0.5, axis=1).numpy(), 2 * x * keep)
    infer = dropout_op(xt, 0.5, axis=1, training=False, mode="downscale_in_infer")
    assert infer.dtype == dygraph.int64 and not infer.numpy().any()  # trunc(0.5) = 0
    np.testing.assert_array_equal(dropout_op(xt, 0.5, axis=1, training=False).numpy(), x)
    b = dygraph.to_tensor(np.ones((2, 3), bool))
    kept = dropout_op(b, 0.5, axis=1, training=False, mode="downscale_in_infer")
    assert kept.dtype == dygraph.bool and kept.numpy().all()  # 0.5 != 0: True stays
    assert not dropout_op(b, 1.0, axis=1).numpy().any()


def test_dropout_refuses_a_negative_axis_while_training():
    x = dygraph.rand([3, 4])
    for axis in (-1, [0, -1], 2, [0, 1, 1]):
        with pytest.raises(ValueError, match="^dropout: "):
            F.dropout(x, 0.5, axis=axis)
    # Paddle returns before it reads the axis: at inference, for p = 0 and for p = 1
    np.testing.assert_array_equal(F.dropout(x, 0.5, axis=-1, training=False).numpy(),
                                  x.numpy())
    np.testing.assert_array_equal(F.dropout(x, 0.0, axis=-1).numpy(), x.numpy())
    assert not F.dropout(x, 1.0, axis=-1).numpy().any()
    assert F.dropout(x, 0.5, axis=[1]).shape == [3, 4]


def _log_loss_ref(p, y, eps=1e-4):
    return -y * np.log(p + eps) - (1 - y) * np.log(1 - p + eps)


@pytest.mark.parametrize("dtype,fn", [("float32", F.log_loss), ("float64", log_loss_op)])
def test_log_loss_takes_n_by_1(dtype, fn):
    p = RNG.uniform(0.1, 0.9, (5, 1)).astype(dtype)
    y = (RNG.uniform(size=(5, 1)) > 0.5).astype(dtype)
    got = fn(dygraph.to_tensor(p), dygraph.to_tensor(y))
    assert got.shape == [5, 1] and got.numpy().dtype == np.dtype(dtype)
    np.testing.assert_allclose(got.numpy(), _log_loss_ref(p, y), rtol=1e-6)
    assert F.log_loss(dygraph.zeros([0, 1]), dygraph.zeros([0, 1])).shape == [0, 1]


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((0, 4), (0, 4)), ((), ()),
                                    ((3,), (3,)), ((3, 1, 1), (3, 1, 1)), ((3, 1), (4, 1)),
                                    ((3, 1), (3,)), ((3, 4), (4,)), ((3, 1), (1, 4))])
def test_log_loss_refuses_other_shapes(shapes):
    """Paddle's checks: equal shapes, 2-D, one column (ValueError)."""
    with pytest.raises(ValueError, match="^log_loss: "):
        F.log_loss(dygraph.rand(shapes[0]), dygraph.rand(shapes[1]))


def test_mse_loss_of_integers_as_paddle_recorded_it():
    x32 = np.array([[4, 3, -3, 2], [3, -1, -3, -3], [1, -3, -3, 2]], np.int32)
    y32 = np.array([[-2, -2, -3, 1], [2, -3, -2, -1], [1, 3, 3, -1]], np.int32)
    out = F.mse_loss(dygraph.to_tensor(x32), dygraph.to_tensor(y32))
    assert out.dtype == dygraph.int32 and out.numpy() == 12  # 153 / 12 truncated
    x64 = np.array([[-1, -1, 2, -2], [2, 1, 4, -3], [3, 1, -3, 1]])
    y64 = np.array([[4, 4, 3, -3], [1, -2, -3, 4], [3, 1, -1, -2]])
    out = F.mse_loss(dygraph.to_tensor(x64), dygraph.to_tensor(y64))
    assert out.dtype == dygraph.int64 and out.numpy() == 14


def test_mse_loss_of_integers_by_reduction():
    """Measured on Paddle 3.3: 'none' keeps the dtype, 'sum' is int64, 'mean' truncates."""
    x = dygraph.to_tensor(np.array([[1, -2], [3, 4]], np.int32))
    y = dygraph.to_tensor(np.array([[0, 0], [0, 1]], np.int32))
    none = F.mse_loss(x, y, reduction="none")
    assert none.dtype == dygraph.int32 and none.numpy().tolist() == [[1, 4], [9, 9]]
    total = F.mse_loss(x, y, reduction="sum")
    assert total.dtype == dygraph.int64 and total.numpy() == 23
    assert F.mse_loss(x, y).numpy() == 5  # 5.75
    empty = dygraph.zeros([0, 3], "int64")
    assert F.mse_loss(empty, empty).numpy() == 0
    f = F.mse_loss(dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([0.0, 0.0]))
    assert f.dtype == dygraph.float32 and f.numpy() == 2.5


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_square_error_cost_of_integers(dtype):
    x = np.array([[-2, -3, -3, -2], [-3, -1, 4, 4], [4, 4, -3, -2]], dtype)
    y = np.array([[-2, 2, -2, -2], [2, -3, -2, 1], [-2, 3, 2, -2]], dtype)
    out = F.square_error_cost(dygraph.to_tensor(x), dygraph.to_tensor(y))
    assert out.numpy().dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.numpy(), [[0, 25, 1, 0], [25, 4, 36, 9],
                                                [36, 1, 25, 0]])


@pytest.mark.parametrize("label_dtype", ["float32", "int64"])
def test_multi_label_margin_loss_of_an_empty_batch(label_dtype):
    """Paddle returns NaN (the mean of nothing), 0 and an empty loss, for any label dtype."""
    x, label = dygraph.zeros([0, 4]), dygraph.zeros([0, 4], label_dtype)
    mean = F.multi_label_margin_loss(x, label)
    assert mean.shape == [] and mean.dtype == dygraph.float32 and np.isnan(mean.numpy())
    assert F.multi_label_margin_loss(x, label, reduction="sum").numpy() == 0
    assert F.multi_label_margin_loss(x, label, reduction="none").shape == [0]
    with pytest.raises(ValueError, match="integer"):  # a float label with values still fails
        F.multi_label_margin_loss(dygraph.rand([1, 4]), dygraph.zeros([1, 4]))
