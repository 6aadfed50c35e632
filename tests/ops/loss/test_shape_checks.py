"""Losses against labels of another shape than the input: the binary cross entropies raise
ValueError as Paddle 3.x does (an [N] label against an [N, 1] input would broadcast to an
[N, N] loss), mse_loss broadcasts as Paddle does and warns as PyTorch does."""

import warnings

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import nn, static

N = 4
LOGITS = np.linspace(-1.0, 1.0, N, dtype=np.float32).reshape(N, 1)
LABELS = np.array([0.0, 1.0, 1.0, 0.0], np.float32)


def _t(a):
    return dygraph.to_tensor(a)


BCE_CALLS = [
    ("binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits, LOGITS),
    ("binary_cross_entropy_with_logits", nn.BCEWithLogitsLoss(), LOGITS),
    ("binary_cross_entropy", F.binary_cross_entropy, 1.0 / (1.0 + np.exp(-LOGITS))),
    ("binary_cross_entropy", nn.BCELoss(), 1.0 / (1.0 + np.exp(-LOGITS))),
]


@pytest.mark.parametrize("op, loss, x", BCE_CALLS)
def test_binary_cross_entropies_reject_an_n_label_against_an_n_by_1_input(op, loss, x):
    with pytest.raises(ValueError, match=rf"{op}: input shape \[4, 1\] and label shape \[4\] "
                                         r"differ.*loss of shape \[4, 4\]"):
        loss(_t(x), _t(LABELS))
    with pytest.raises(ValueError, match=r"input shape \[4\] and label shape \[4, 1\]"):
        loss(_t(x.reshape(N)), _t(LABELS.reshape(N, 1)))
    with pytest.raises(ValueError, match=r"input shape \[4, 1\] and label shape \[1, 1\]"):
        loss(_t(x), _t(LABELS[:1].reshape(1, 1)))


@pytest.mark.parametrize("op, loss, x", BCE_CALLS)
def test_binary_cross_entropies_of_matching_shapes_still_compute(op, loss, x):
    out = loss(_t(x), _t(LABELS.reshape(N, 1)))
    flat = loss(_t(x.reshape(N)), _t(LABELS))
    np.testing.assert_allclose(out.numpy(), flat.numpy(), rtol=1e-6)


def test_binary_cross_entropy_weight_still_broadcasts():
    # Paddle checks only input against label; the weight broadcasts as before.
    p = _t(np.full((N, 1), 0.5, np.float32))
    loss = F.binary_cross_entropy(p, _t(LABELS.reshape(N, 1)), weight=_t(np.ones(N, "f4")),
                                  reduction="none")
    assert loss.shape == [N, N]


def test_static_binary_cross_entropy_checks_the_declared_shapes():
    dygraph.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [None, 1])
            assert F.binary_cross_entropy_with_logits(x, static.data("y", [None, 1])).shape \
                == []
            with pytest.raises(ValueError, match=r"input shape \[-1, 1\] and label shape "
                                                 r"\[-1\]"):
                F.binary_cross_entropy_with_logits(x, static.data("z", [None]))
    finally:
        dygraph.disable_static()


@pytest.mark.parametrize("loss", [F.mse_loss, nn.MSELoss()])
def test_mse_loss_broadcasts_an_n_label_against_n_by_1_with_a_warning(loss):
    x, y = _t(LOGITS), _t(LABELS)
    with pytest.warns(UserWarning, match=r"mse_loss: label shape \[4\] differs from input "
                                         r"shape \[4, 1\] and broadcasting gives a loss of "
                                         r"shape \[4, 4\]") as record:
        out = loss(x, y)
    assert record[0].filename == __file__  # the user's line, not dygraph's
    # Paddle computes the [4, 4] broadcast rather than raising: so does DyGraph.
    np.testing.assert_allclose(out.numpy(), ((LOGITS - LABELS) ** 2).mean(), rtol=1e-6)


@pytest.mark.parametrize("x_shape, y_shape", [((N, 1), (N, 1)), ((N, 3), (3,)),
                                              ((N, 3), (N, 1)), ((N, 1), (1,))])
def test_mse_loss_is_silent_when_the_label_broadcasts_into_the_input_shape(x_shape, y_shape):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = F.mse_loss(dygraph.ones(list(x_shape)), dygraph.zeros(list(y_shape)))
    assert float(out) == 1.0
