"""Behaviour of the common nn.functional ops beyond the spec table: interpolate against
hand-computed values for each coordinate rule, dropout statistics and modes, argument
errors, and properties (unfold/fold adjointness, identity grids, mask equivalences)."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.autograd import gradcheck

RNG = np.random.default_rng(0)
SQUARE = [[[[1.0, 2.0], [3.0, 4.0]]]]


def _t(a, grad=False):
    return dygraph.to_tensor(a, stop_gradient=not grad)


def _interp(x, **kwargs):
    return F.interpolate(_t(x), **kwargs).numpy()


# -- interpolate: hand-computed values -----------------------------------------------------
def test_nearest_upsamples_by_repetition():
    np.testing.assert_array_equal(_interp(SQUARE, scale_factor=2)[0, 0],
                                  [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]])
    # Downsampling picks floor(k * in / out): 5 -> 2 reads positions 0 and 2.
    row = [[[0.0, 1.0, 2.0, 3.0, 4.0]]]
    np.testing.assert_array_equal(_interp(row, size=[2], mode="nearest"), [[[0, 2]]])
    # With aligned corners it rounds k * (in - 1) / (out - 1): 3 -> 5 reads 0 1 1 2 2.
    np.testing.assert_array_equal(
        _interp([[[1.0, 2.0, 3.0]]], size=[5], mode="nearest", align_corners=True),
        [[[1, 2, 2, 3, 3]]])


def test_bilinear_half_pixel_centres():
    # align_corners=False, align_mode=0: src = (dst + 0.5) * in / out - 0.5, clamped at 0.
    want = [[1.0, 1.25, 1.75, 2.0], [1.5, 1.75, 2.25, 2.5],
            [2.5, 2.75, 3.25, 3.5], [3.0, 3.25, 3.75, 4.0]]
    np.testing.assert_allclose(_interp(SQUARE, size=[4, 4], mode="bilinear")[0, 0], want)


def test_bilinear_aligned_corners():
    # src = dst * (in - 1) / (out - 1): the corners keep their values.
    got = _interp(SQUARE, size=[3, 4], mode="bilinear", align_corners=True)[0, 0]
    third = 1.0 / 3.0
    np.testing.assert_allclose(got, [[1, 1 + third, 2 - third, 2],
                                     [2, 2 + third, 3 - third, 3],
                                     [3, 3 + third, 4 - third, 4]], rtol=1e-6)


def test_bilinear_align_mode_1_and_linear():
    # align_mode=1: src = dst * in / out; the last source clamps to the edge.
    np.testing.assert_allclose(
        _interp(SQUARE, size=[2, 4], mode="bilinear", align_mode=1)[0, 0],
        [[1, 1.5, 2, 2], [3, 3.5, 4, 4]])
    ramp = [[[0.0, 10.0]]]
    np.testing.assert_allclose(_interp(ramp, size=[5], mode="linear", align_corners=True),
                               [[[0, 2.5, 5, 7.5, 10]]])
    np.testing.assert_allclose(_interp(ramp, size=[5], mode="linear"), [[[0, 1, 5, 9, 10]]],
                               atol=1e-6)


def test_scale_factor_sets_the_source_step():
    # Paddle steps by 1 / scale_factor when it is given, by in / out otherwise: with
    # scale 1.5 a length-3 axis becomes 4 long with step 2/3 instead of 3/4.
    row = [[[0.0, 10.0, 20.0]]]
    by_scale = _interp(row, scale_factor=1.5, mode="linear", align_mode=1)
    np.testing.assert_allclose(by_scale, [[[0, 20 / 3, 40 / 3, 20]]], rtol=1e-5)
    by_size = _interp(row, size=[4], mode="linear", align_mode=1)
    np.testing.assert_allclose(by_size, [[[0, 7.5, 15, 20]]], rtol=1e-6)
    redone = _interp(row, scale_factor=1.5, mode="linear", align_mode=1,
                     recompute_scale_factor=True)
    np.testing.assert_allclose(redone, by_size, rtol=1e-6)


def test_area_averages_adaptive_windows_and_bicubic_keeps_constants():
    got = _interp([[[1.0, 2.0, 3.0, 4.0, 5.0]]], size=[2], mode="area")
    np.testing.assert_allclose(got, [[[2.0, 4.0]]])  # windows [0, 3) and [2, 5)
    flat = np.full((1, 1, 3, 3), 7.0)
    np.testing.assert_allclose(_interp(flat, size=[5, 4], mode="bicubic"), 7.0, rtol=1e-6)


def test_same_size_copies_and_channels_last_agree():
    x = _t(RNG.standard_normal((2, 3, 4, 5)), grad=True)
    same = F.interpolate(x, size=[4, 5], mode="bicubic")
    np.testing.assert_array_equal(same.numpy(), x.numpy())
    same.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 1.0)
    nchw = F.interpolate(x, size=[7, 3], mode="bilinear").numpy()
    nhwc = F.interpolate(_t(x.numpy().transpose(0, 2, 3, 1)), size=[7, 3], mode="bilinear",
                         data_format="NHWC").numpy()
    np.testing.assert_allclose(nhwc.transpose(0, 3, 1, 2), nchw, rtol=1e-12)


def test_interpolate_gradient_adds_back_to_sources():
    x = _t(SQUARE, grad=True)
    F.interpolate(x, scale_factor=3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((1, 1, 2, 2), 9.0))
    big = _t(RNG.standard_normal((1, 2, 70, 3)), grad=True)  # long axis: the gather path
    assert gradcheck(lambda t: F.interpolate(t, size=[151, 5], mode="bicubic"), [big])


@pytest.mark.parametrize("kwargs, error", [
    ({"size": [4, 4], "scale_factor": 2}, ValueError),
    ({}, ValueError),
    ({"size": [4, 4], "mode": "linear"}, ValueError),
    ({"size": [4, 4], "mode": "cubic"}, ValueError),
    ({"size": [4]}, ValueError),
    ({"size": [4, 4], "data_format": "NCW"}, ValueError),
    ({"size": [4, 4], "mode": "bilinear", "align_corners": 1}, TypeError),
    ({"size": [4, 4], "mode": "bilinear", "align_mode": 2}, ValueError),
    ({"scale_factor": -1.0}, ValueError),
    ({"scale_factor": 2, "mode": "area"}, ValueError),
])
def test_interpolate_argument_errors(kwargs, error):
    with pytest.raises(error, match="interpolate"):
        F.interpolate(dygraph.ones([1, 1, 2, 2]), **kwargs)


# -- dropout family ---------------------------------------------------------------------------
def test_dropout_statistics_axis_and_gradient():
    dygraph.seed(1)
    x = _t(np.ones((300, 200)), grad=True)
    y = F.dropout(x, 0.3)
    kept = y.numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(y.numpy()[kept], 1 / 0.7)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.numpy())  # the gradient is the mask scale
    rows = F.dropout(dygraph.ones([50, 6]), 0.5, axis=0).numpy()
    assert np.all(rows.min(1) == rows.max(1)) and 0 < rows[:, 0].mean() < 2


def test_dropout_edge_probabilities_and_inference():
    x = dygraph.ones([3, 4])
    assert F.dropout(x, 0.0) is x and F.dropout(x, 0.5, training=False) is x
    np.testing.assert_array_equal(F.dropout(x, 1.0).numpy(), 0.0)
    np.testing.assert_array_equal(F.alpha_dropout(x, 1.0).numpy(), 0.0)
    np.testing.assert_allclose(
        F.dropout(x, 0.2, training=False, mode="downscale_in_infer").numpy(), 0.8)


@pytest.mark.parametrize("kwargs, error", [
    ({"p": 1.5}, ValueError), ({"p": "0.5"}, TypeError), ({"mode": "scale"}, ValueError),
    ({"axis": 2}, ValueError), ({"axis": [0, 1, 0]}, ValueError),
])
def test_dropout_argument_errors(kwargs, error):
    with pytest.raises(error, match="dropout"):
        F.dropout(dygraph.ones([2, 2]), **kwargs)


# -- embedding, one_hot, label_smooth, normalize, cosine_similarity ---------------------------
def test_embedding_functional_accepts_array_ids():
    w = _t(np.arange(8.0).reshape(4, 2))
    np.testing.assert_array_equal(F.embedding(np.array([3, 0]), w).numpy(), [[6, 7], [0, 1]])
    np.testing.assert_array_equal(F.embedding(_t([3, 0]), w, padding_idx=-1).numpy(),
                                  [[0, 0], [0, 1]])


def test_one_hot_values_and_errors():
    out = F.one_hot(_t([[2], [0]]), 3)
    assert out.shape == [2, 1, 3] and out.dtype == dygraph.float32 and out.stop_gradient
    np.testing.assert_array_equal(out.numpy()[:, 0], [[0, 0, 1], [1, 0, 0]])
    with pytest.raises(ValueError, match="out of range"):
        F.one_hot(_t([3]), 3)
    with pytest.raises(TypeError, match="int"):
        F.one_hot(_t([1.0]), 3)


def test_label_smooth_with_prior():
    label = _t([[0.0, 1.0, 0.0]])
    prior = _t([[0.5, 0.25, 0.25]])
    np.testing.assert_allclose(F.label_smooth(label, prior, epsilon=0.4).numpy(),
                               [[0.2, 0.7, 0.1]], rtol=1e-6)


def test_normalize_norms_and_zero_vectors():
    x = RNG.standard_normal((3, 4))
    for p in (1, 2, 3.0, np.inf):
        norm = np.linalg.norm(x, ord=p, axis=1, keepdims=True)
        np.testing.assert_allclose(F.normalize(_t(x), p=p).numpy(), x / norm, rtol=1e-10)
    zero = _t(np.zeros((2, 3)), grad=True)
    F.normalize(zero).sum().backward()
    assert np.all(np.isfinite(zero.grad.numpy()))
    with pytest.raises(ValueError, match="axis"):
        F.normalize(dygraph.ones([3]), axis=1)


def test_cosine_similarity_of_a_zero_vector_has_a_finite_gradient():
    a, b = _t(np.zeros((2, 3)), grad=True), _t(np.ones((2, 3)), grad=True)
    out = F.cosine_similarity(a, b)
    np.testing.assert_array_equal(out.numpy(), 0.0)
    out.sum().backward()
    assert np.all(np.isfinite(a.grad.numpy()))


# -- unfold / fold / pixel shuffle --------------------------------------------------------------
def test_fold_is_the_adjoint_of_unfold():
    x = RNG.standard_normal((2, 3, 6, 5))
    args = ([3, 2], [2, 1], [1, 0, 2, 1], [1, 2])
    cols = F.unfold(_t(x), *args).numpy()
    y = RNG.standard_normal(cols.shape)
    back = F.fold(_t(y), [6, 5], *args).numpy()
    np.testing.assert_allclose((cols * y).sum(), (x * back).sum(), rtol=1e-10)


@pytest.mark.parametrize("call", [
    lambda: F.unfold(dygraph.ones([1, 4, 4]), 2),
    lambda: F.unfold(dygraph.ones([1, 1, 2, 2]), 3),
    lambda: F.unfold(dygraph.ones([1, 1, 4, 4]), 2, paddings=[1, 2, 3]),
    lambda: F.fold(dygraph.ones([1, 4, 5]), [3, 3], 2),
    lambda: F.pixel_unshuffle(dygraph.ones([1, 1, 3, 4]), 2),
    lambda: F.pixel_shuffle(dygraph.ones([1, 4, 2, 2]), 2, "NCW"),
])
def test_rearranging_ops_reject_bad_shapes(call):
    with pytest.raises(ValueError):
        call()


# -- grid_sample ---------------------------------------------------------------------------------
def _identity_grid(h, w, align_corners):
    if align_corners:
        ys, xs = np.linspace(-1, 1, h), np.linspace(-1, 1, w)
    else:
        ys, xs = (np.arange(h) * 2 + 1) / h - 1, (np.arange(w) * 2 + 1) / w - 1
    gx, gy = np.meshgrid(xs, ys)
    return np.stack([gx, gy], -1)[None]


@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_identity_grid_reproduces_the_image(mode, align_corners):
    x = RNG.standard_normal((1, 2, 3, 4))
    grid = _identity_grid(3, 4, align_corners)
    out = F.grid_sample(_t(x), _t(grid), mode=mode, align_corners=align_corners).numpy()
    np.testing.assert_allclose(out, x, atol=1e-12)


def test_grid_sample_padding_modes_and_3d():
    x = _t(np.array([[[[0.0, 10.0, 20.0]]]]))  # one row of three pixels
    # x = 1.5 lands at pixel 2.5 (right of the image), x = -1.25 at pixel -0.25.
    grid = _t(np.array([[[[1.5, 0.0], [-1.25, 0.0]]]]))
    zeros = F.grid_sample(x, grid).numpy().ravel()
    border = F.grid_sample(x, grid, padding_mode="border").numpy().ravel()
    reflect = F.grid_sample(x, grid, padding_mode="reflection").numpy().ravel()
    np.testing.assert_allclose(zeros, [10.0, 0.0])  # half of pixel 2; pixel -1 reads 0
    np.testing.assert_allclose(border, [20.0, 0.0])  # clamped to pixels 2 and 0
    np.testing.assert_allclose(reflect, [15.0, 2.5])  # mirrored to 1.5 and 0.25
    vol = RNG.standard_normal((1, 1, 2, 3, 2))
    d, h, w = np.linspace(-1, 1, 2), np.linspace(-1, 1, 3), np.linspace(-1, 1, 2)
    gz, gy, gx = np.meshgrid(d, h, w, indexing="ij")
    grid3 = np.stack([gx, gy, gz], -1)[None]
    np.testing.assert_allclose(F.grid_sample(_t(vol), _t(grid3)).numpy(), vol, atol=1e-12)


def test_grid_sample_checks_arguments():
    with pytest.raises(ValueError, match="grid"):
        F.grid_sample(dygraph.ones([1, 1, 2, 2]), dygraph.ones([1, 2, 2, 3]))
    with pytest.raises(ValueError, match="padding_mode"):
        F.grid_sample(dygraph.ones([1, 1, 2, 2]), dygraph.ones([1, 2, 2, 2]),
                      padding_mode="wrap")


# -- scaled_dot_product_attention ----------------------------------------------------------
def test_attention_masks_and_layouts():
    q, k, v = (_t(RNG.standard_normal((2, 4, 3, 5))) for _ in range(3))
    keep = RNG.random((2, 3, 4, 4)) > 0.4
    keep[..., 0] = True
    as_bool = F.scaled_dot_product_attention(q, k, v, _t(keep)).numpy()
    as_float = F.scaled_dot_product_attention(q, k, v, _t(np.where(keep, 0.0, -np.inf)))
    np.testing.assert_allclose(as_bool, as_float.numpy(), rtol=1e-12)
    causal = F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy()
    np.testing.assert_allclose(causal[:, 0], v.numpy()[:, 0], rtol=1e-12)  # sees only key 0
    unbatched = F.scaled_dot_product_attention(q[0], k[0], v[0]).numpy()
    np.testing.assert_allclose(unbatched, F.scaled_dot_product_attention(q, k, v).numpy()[0])
    dropped = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5, training=False).numpy()
    np.testing.assert_allclose(dropped, F.scaled_dot_product_attention(q, k, v).numpy())
    with pytest.raises(ValueError, match="head_dim"):
        F.scaled_dot_product_attention(q, k[..., :4], v)


def test_sequence_helpers():
    np.testing.assert_array_equal(F.sequence_mask(dygraph.to_tensor([2, 0]), 3).numpy(),
                                  [[1, 1, 0], [0, 0, 0]])
    labels = dygraph.to_tensor([5, 2, 5])
    remapped, centers = F.class_center_sample(labels, 10, 4)
    centers = centers.numpy()
    assert len(centers) == 4 and list(centers[:2]) == [2, 5] and len(set(centers)) == 4
    np.testing.assert_array_equal(centers[remapped.numpy()], labels.numpy())
