"""Loss layers and the behaviour of the loss functions beyond the spec table: shapes of
unreduced losses, ignore_index and weighted means, error messages, edge values."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import nn


def _t(a, grad=False):
    return dygraph.to_tensor(np.asarray(a), stop_gradient=not grad)


def _log_softmax(x):
    z = x - x.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 3)).astype(np.float32)
Y = RNG.normal(size=(4, 3)).astype(np.float32)
P = RNG.uniform(0.1, 0.9, (4, 3)).astype(np.float32)
LABELS = np.array([0, 2, 1, 2])


@pytest.mark.parametrize("layer, fn, args", [
    (nn.CrossEntropyLoss(reduction="sum"), lambda a, b: F.cross_entropy(a, b, reduction="sum"),
     (X, LABELS)),
    (nn.NLLLoss(), F.nll_loss, (X, LABELS)),
    (nn.MSELoss(), F.mse_loss, (X, Y)),
    (nn.L1Loss("none"), lambda a, b: F.l1_loss(a, b, "none"), (X, Y)),
    (nn.SmoothL1Loss(delta=0.5), lambda a, b: F.smooth_l1_loss(a, b, delta=0.5), (X, Y)),
    (nn.BCELoss(), F.binary_cross_entropy, (P, P)),
    (nn.BCEWithLogitsLoss(), F.binary_cross_entropy_with_logits, (X, P)),
    (nn.KLDivLoss("batchmean"), lambda a, b: F.kl_div(a, b, "batchmean"), (X, P)),
    (nn.MarginRankingLoss(0.5), lambda a, b, c: F.margin_ranking_loss(a, b, c, 0.5),
     (X, Y, np.sign(X))),
    (nn.HingeEmbeddingLoss(), F.hinge_embedding_loss, (X, np.where(X > 0, 1.0, -1.0))),
    (nn.CosineEmbeddingLoss(0.1), lambda a, b, c: F.cosine_embedding_loss(a, b, c, 0.1),
     (X, Y, np.array([1, -1, 1, -1]))),
    (nn.TripletMarginLoss(p=1), lambda a, b, c: F.triplet_margin_loss(a, b, c, p=1),
     (X, Y, P)),
])
def test_layer_matches_function(layer, fn, args):
    got = layer(*[_t(a) for a in args])
    want = fn(*[_t(a) for a in args])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_reductions_are_0d_and_none_keeps_label_shape():
    x, y = _t(X), _t(LABELS)
    assert F.cross_entropy(x, y).shape == []
    assert F.cross_entropy(x, y, reduction="none").shape == [4]
    assert F.cross_entropy(x, y.reshape([4, 1]), reduction="none").shape == [4, 1]
    assert F.cross_entropy(x, _t(P / P.sum(1, keepdims=True)), soft_label=True,
                           reduction="none").shape == [4, 1]
    assert F.mse_loss(x, _t(Y)).shape == []
    assert F.kl_div(x, _t(P), reduction="none").shape == [4, 3]


def test_cross_entropy_ignore_index_and_weighted_mean():
    labels = np.array([0, -100, 1, 2])
    weight = np.array([1.0, 2.0, 3.0], np.float32)
    got = F.cross_entropy(_t(X), _t(labels), weight=_t(weight))
    logp = _log_softmax(X.astype(np.float64))
    keep = [0, 2, 3]
    w = weight[labels[keep]]
    want = -(logp[keep, labels[keep]] * w).sum() / w.sum()
    np.testing.assert_allclose(float(got), want, rtol=1e-5)
    none = F.cross_entropy(_t(X), _t(labels), reduction="none").numpy()
    assert none[1] == 0.0
    # Without weights the mean is over the samples that are not ignored.
    mean = F.cross_entropy(_t(X), _t(labels))
    np.testing.assert_allclose(float(mean), -logp[keep, labels[keep]].mean(), rtol=1e-5)


def test_cross_entropy_gradient_is_softmax_minus_onehot_over_n():
    x = _t(X, grad=True)
    F.cross_entropy(x, _t(LABELS)).backward()
    p = np.exp(_log_softmax(X.astype(np.float64)))
    want = (p - np.eye(3)[LABELS]) / 4
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-7)
    assert x.grad.dtype == dygraph.float32


def test_cross_entropy_all_ignored_gives_zero_not_nan():
    x = _t(X, grad=True)
    loss = F.cross_entropy(x, _t(np.full(4, 1)), ignore_index=1)
    loss.backward()
    assert float(loss) == 0.0 and np.all(x.grad.numpy() == 0)


def test_cross_entropy_label_errors_name_shapes_and_dtypes():
    with pytest.raises(ValueError, match=r"label shape \[3\].*input shape \[4, 3\]"):
        F.cross_entropy(_t(X), _t(np.array([0, 1, 2])))
    with pytest.raises(TypeError, match="dtype float32"):
        F.cross_entropy(_t(X), _t(np.array([0.0, 1.0, 2.0, 1.0], np.float32)))
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        F.cross_entropy(_t(X), _t(np.array([0, 1, 3, 1])))
    with pytest.raises(ValueError, match="soft label"):
        F.cross_entropy(_t(X), _t(P[:2]), soft_label=True)
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(_t(X), _t(LABELS), reduction="avg")
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match=r"weight.*shape \[3\]"):
        F.cross_entropy(_t(X), _t(LABELS), weight=_t(np.ones(2, np.float32)))


def test_softmax_with_cross_entropy_returns_softmax():
    loss, sm = F.softmax_with_cross_entropy(_t(X), _t(LABELS[:, None]), return_softmax=True)
    np.testing.assert_allclose(sm.numpy(), np.exp(_log_softmax(X)), rtol=1e-5)
    assert loss.shape == [4, 1]


def test_cross_entropy_double_backward_runs_through_ops():
    x = _t(X.astype(np.float64), grad=True)
    (g,) = dygraph.grad(F.cross_entropy(x, _t(LABELS)), [x], create_graph=True)
    (g * g).sum().backward()
    assert x.grad is not None and np.isfinite(x.grad.numpy()).all()


def test_binary_cross_entropy_at_zero_and_one_is_finite():
    p = _t(np.array([0.0, 1.0, 0.5], np.float32), grad=True)
    y = _t(np.array([1.0, 0.0, 1.0], np.float32))
    loss = F.binary_cross_entropy(p, y, reduction="none")
    np.testing.assert_allclose(loss.numpy(), [100.0, 100.0, np.log(2)], rtol=1e-6)
    loss.sum().backward()
    assert np.isfinite(p.grad.numpy()).all()
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        F.binary_cross_entropy(_t(np.array([1.5], np.float32)), _t(np.array([1.0], np.float32)))


def test_bce_with_logits_is_stable_for_large_logits():
    z = _t(np.array([-200.0, 200.0], np.float32), grad=True)
    loss = F.binary_cross_entropy_with_logits(z, _t(np.array([1.0, 0.0], np.float32)),
                                              reduction="none")
    np.testing.assert_allclose(loss.numpy(), [200.0, 200.0])
    loss.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [-1.0, 1.0])


def test_kl_div_ignores_nonpositive_labels():
    x = _t(X, grad=True)
    label = np.where(P > 0.5, P, 0.0).astype(np.float32)
    loss = F.kl_div(x, _t(label), reduction="sum")
    safe = np.where(label > 0, label, 1.0)
    np.testing.assert_allclose(float(loss), (label * (np.log(safe) - X)).sum(), rtol=1e-5)
    loss.backward()
    assert np.isfinite(x.grad.numpy()).all()


def _ctc_inputs():
    logits = RNG.normal(size=(5, 2, 4)).astype(np.float32)
    labels = np.array([[1, 2, 3], [2, 0, 0]], np.int32)
    return logits, labels, np.array([5, 3]), np.array([3, 1])


def test_ctc_reductions_and_layer():
    logits, labels, n, k = (_t(a) for a in _ctc_inputs())
    per = F.ctc_loss(logits, labels, n, k, reduction="none")
    assert per.shape == [2]
    np.testing.assert_allclose(float(F.ctc_loss(logits, labels, n, k)),
                               (per.numpy() / np.array([3, 1])).mean(), rtol=1e-6)
    np.testing.assert_allclose(float(nn.CTCLoss(reduction="sum")(logits, labels, n, k)),
                               per.numpy().sum(), rtol=1e-6)


def test_ctc_blank_index_and_impossible_alignment():
    logits, labels, n, k = _ctc_inputs()
    # With blank=3 the same problem relabelled gives the same loss.
    perm = [1, 2, 3, 0]  # new class j is old class perm[j]; old blank 0 becomes 3
    relabelled = np.array([[0, 1, 2], [1, 3, 3]], np.int32)
    a = F.ctc_loss(_t(logits), _t(labels), _t(n), _t(k), reduction="none")
    b = F.ctc_loss(_t(logits[:, :, perm]), _t(relabelled), _t(n), _t(k), blank=3,
                   reduction="none")
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)
    # A repeated label needs a blank between its copies: 2 steps cannot emit [1, 1].
    x = _t(logits[:2, :1], grad=True)
    loss = F.ctc_loss(x, _t(np.array([[1, 1]], np.int32)), _t(np.array([2])),
                      _t(np.array([2])), reduction="sum")
    assert np.isinf(float(loss))
    loss.backward()
    assert np.all(x.grad.numpy() == 0)


def test_ctc_norm_by_times_scales_the_gradient_only():
    logits, labels, n, k = _ctc_inputs()
    grads = []
    for norm in (False, True):
        x = _t(logits, grad=True)
        loss = F.ctc_loss(x, _t(labels), _t(n), _t(k), reduction="sum", norm_by_times=norm)
        loss.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0] / n[None, :, None], rtol=1e-5, atol=1e-7)


def test_ctc_argument_errors():
    logits, labels, n, k = _ctc_inputs()
    with pytest.raises(ValueError, match="log_probs"):
        F.ctc_loss(_t(logits[0]), _t(labels), _t(n), _t(k))
    with pytest.raises(ValueError, match="input_lengths"):
        F.ctc_loss(_t(logits), _t(labels), _t(np.array([6, 3])), _t(k))
    with pytest.raises(ValueError, match="blank"):
        F.ctc_loss(_t(logits), _t(np.array([[0, 1, 2], [2, 0, 0]], np.int32)), _t(n), _t(k))
    with pytest.raises(TypeError, match="labels"):
        F.ctc_loss(_t(logits), _t(labels.astype(np.float32)), _t(n), _t(k))


def test_loss_layers_call_their_functions():
    x = dygraph.to_tensor([[0.1, 0.2, 0.4, 0.8], [0.5, -0.3, 0.2, 0.0]])
    y = dygraph.to_tensor([3, 0])
    assert float(nn.MultiMarginLoss(reduction="sum")(x, y)) == pytest.approx(
        float(F.multi_margin_loss(x, y, reduction="sum")))
    var = dygraph.ones([2, 4])
    assert float(nn.GaussianNLLLoss(full=True)(x, x, var)) == pytest.approx(
        0.5 * np.log(2 * np.pi))
    with pytest.raises(ValueError, match="reduction"):
        nn.SoftMarginLoss(reduction="avg")
