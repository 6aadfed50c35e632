"""The fluid.layers that 1.5's documentation lists and the 2.x API renamed or folded:
each gives, in a static program and eagerly, what its 2.x counterpart computes with 1.x's
arguments and defaults (the 2.x ops are checked against Paddle elsewhere)."""

import numpy as np
import pytest

import dygraph
import dygraph.fluid as fluid
import dygraph.nn.functional as F
from dygraph import static


@pytest.fixture(autouse=True)
def _eager_afterwards():
    yield
    dygraph.disable_static()


def _x(shape, seed=0, scale=1.0):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.37 + seed) * scale).reshape(shape).astype(np.float32)


X = _x([2, 3, 4, 4], 1, 2.0)
T = dygraph.to_tensor
CASES = {  # name: (the 1.x call on x, the 2.x computation on a Tensor)
    "relu6": (lambda x: fluid.layers.relu6(x, threshold=1.5), lambda t: dygraph.clip(t, 0, 1.5)),
    "elu": (lambda x: fluid.layers.elu(x, 0.5), lambda t: F.elu(t, 0.5)),
    "selu": (fluid.layers.selu, F.selu),
    "swish": (fluid.layers.swish, lambda t: t * F.sigmoid(t)),
    "hard_sigmoid": (fluid.layers.hard_sigmoid, lambda t: dygraph.clip(0.2 * t + 0.5, 0, 1)),
    "brelu": (lambda x: fluid.layers.brelu(x, 0.5, 1.0), lambda t: dygraph.clip(t, 0.5, 1.0)),
    "soft_relu": (fluid.layers.soft_relu, F.softplus),
    "stanh": (fluid.layers.stanh, lambda t: 1.7159 * dygraph.tanh(0.67 * t)),
    "softshrink": (fluid.layers.softshrink, lambda t: F.softshrink(t, 0.5)),
    "hard_shrink": (fluid.layers.hard_shrink, lambda t: F.hardshrink(t, 0.5)),
    "thresholded_relu": (fluid.layers.thresholded_relu, lambda t: F.thresholded_relu(t, 1.0)),
    "logsigmoid": (fluid.layers.logsigmoid, F.log_sigmoid),
    "maxout": (lambda x: fluid.layers.maxout(x, 3), lambda t: F.maxout(t, 3)),
    "sign": (fluid.layers.sign, dygraph.sign),
    "cumsum": (lambda x: fluid.layers.cumsum(x, axis=1, exclusive=True, reverse=True),
               lambda t: dygraph.flip(dygraph.cumsum(dygraph.flip(t, [1]), 1), [1]) - t),
    "pool2d_max": (lambda x: fluid.layers.pool2d(x, 2, "max", 2),
                   lambda t: F.max_pool2d(t, 2, 2)),
    "pool2d_avg_stride1": (lambda x: fluid.layers.pool2d(x, 3, "avg", pool_padding=1),
                           lambda t: F.avg_pool2d(t, 3, 1, 1, exclusive=True)),
    "pool2d_global": (lambda x: fluid.layers.pool2d(x, pool_type="avg", global_pooling=True),
                      lambda t: F.adaptive_avg_pool2d(t, 1)),
    "adaptive_pool2d": (lambda x: fluid.layers.adaptive_pool2d(x, 3),
                        lambda t: F.adaptive_max_pool2d(t, 3)),
    "lrn": (lambda x: fluid.layers.lrn(x, n=3, alpha=0.01),
            lambda t: F.local_response_norm(t, 3, 0.03, 0.75, 1.0)),
    "pad2d": (lambda x: fluid.layers.pad2d(x, [1, 0, 2, 1], mode="reflect"),
              lambda t: F.pad(t, [2, 1, 1, 0], mode="reflect")),
    "resize_bilinear": (lambda x: fluid.layers.resize_bilinear(x, [6, 5]),
                        lambda t: F.interpolate(t, [6, 5], mode="bilinear",
                                                align_corners=True)),
    "pixel_shuffle": (lambda x: fluid.layers.pixel_shuffle(x, 1),
                      lambda t: F.pixel_shuffle(t, 1)),
    "shuffle_channel": (lambda x: fluid.layers.shuffle_channel(x, 3),
                        lambda t: F.channel_shuffle(t, 3)),
    "clip_by_norm": (lambda x: fluid.layers.clip_by_norm(x, 2.0),
                     lambda t: t * 2.0 / dygraph.linalg.norm(t)),
    "huber_loss": (lambda x: fluid.layers.huber_loss(x, x * 0.2, 0.5),
                   lambda t: dygraph.where(dygraph.abs(t * 0.8) <= 0.5, 0.32 * t * t,
                                           0.5 * (dygraph.abs(t * 0.8) - 0.25))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_in_a_program_and_eagerly_equals_its_2x_counterpart(name):
    old, new = CASES[name]
    expected = new(T(X)).numpy()
    np.testing.assert_allclose(old(X).numpy(), expected, rtol=1e-5, atol=1e-6)
    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        out = old(static.data("x", [None, 3, 4, 4]))
    (got,) = static.Executor().run(main, feed={"x": X}, fetch_list=[out])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_losses_have_1x_shapes_and_values():
    x, y = _x([4, 3], 2), (_x([4, 3], 3) > 0).astype(np.float32)
    loss = fluid.layers.sigmoid_cross_entropy_with_logits(x, y).numpy()
    np.testing.assert_allclose(loss, F.binary_cross_entropy_with_logits(
        T(x), T(y), reduction="none").numpy(), rtol=1e-5)
    ignored = y.copy()
    ignored[0] = -1
    normal = fluid.layers.sigmoid_cross_entropy_with_logits(x, ignored, ignore_index=-1,
                                                            normalize=True).numpy()
    assert (normal[0] == 0).all()
    np.testing.assert_allclose(normal[1:], loss[1:] / 9, rtol=1e-5)
    smooth = fluid.layers.smooth_l1(x, y, sigma=2.0).numpy()
    d = x - y
    expected = np.where(np.abs(d) < 0.25, 2 * d * d, np.abs(d) - 0.125).sum(1, keepdims=True)
    np.testing.assert_allclose(smooth, expected, rtol=1e-5)
    assert fluid.layers.cos_sim(x, x[:1]).shape == [4, 1]
    rank = fluid.layers.rank_loss(y[:, :1], x[:, :1], x[:, 1:2]).numpy()
    d = x[:, :1] - x[:, 1:2]
    np.testing.assert_allclose(rank, np.log1p(np.exp(d)) - y[:, :1] * d, rtol=1e-5)


def test_builders_take_1x_names_and_shapes():
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with dygraph.utils.unique_name.guard(), static.program_guard(main, startup):
        img = fluid.layers.data("img", [3, 8, 8])
        ids = fluid.layers.data("ids", [1], dtype="int64")
        conv = fluid.layers.conv2d(img, 4, 3, act="relu")
        pool = fluid.layers.pool2d(conv, 2, "max", 2)
        norm = fluid.layers.batch_norm(pool, fuse_with_relu=True)
        emb = fluid.layers.embedding(ids, size=[10, 5])
        groups = fluid.layers.group_norm(norm, 2)
    assert [list(v.shape) for v in (conv, pool, norm, emb, groups)] == [
        [-1, 4, 6, 6], [-1, 4, 3, 3], [-1, 4, 3, 3], [-1, 5], [-1, 4, 3, 3]]
    names = sorted(p.name for p in main.all_parameters())
    assert names == ["batch_norm_0.b_0", "batch_norm_0.w_0", "batch_norm_0.w_1",
                     "batch_norm_0.w_2", "conv2d_0.b_0", "conv2d_0.w_0", "embedding_0.w_0",
                     "group_norm_0.b_0", "group_norm_0.w_0"]
    exe = static.Executor()
    exe.run(startup)
    out = exe.run(main, feed={"img": _x([2, 3, 8, 8]), "ids": np.array([[1], [7]])},
                  fetch_list=[groups, emb])
    assert out[0].shape == (2, 4, 3, 3) and out[1].shape == (2, 5)


def test_counters_arrays_and_shapes_in_a_program():
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = fluid.layers.data("x", [3], append_batch_size=False)
        step = fluid.layers.autoincreased_step_counter(begin=1)
        arr = fluid.layers.create_array("float32")
        i = fluid.layers.fill_constant([1], "int64", 0)
        fluid.layers.array_write(x, i, arr)
        fluid.layers.array_write(x * 2.0, fluid.layers.increment(i), arr)
        joined, sizes = fluid.layers.tensor_array_to_tensor(arr, axis=0)
        stacked, _ = fluid.layers.tensor_array_to_tensor(arr, axis=1, use_stack=True)
        ones = fluid.layers.fill_constant_batch_size_like(x, [-1, 2], "float32", 1.0)
        shape, rank = fluid.layers.shape(x), fluid.layers.rank(x)
        bad = fluid.layers.has_nan(x)
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": np.array([1.0, 2.0, 3.0], np.float32)}
    runs = [exe.run(main, feed=feed, fetch_list=[step, joined, sizes, stacked, ones, shape,
                                                 rank, bad]) for _ in range(2)]
    assert [r[0].tolist() for r in runs] == [[1], [2]]
    got = runs[1]
    assert got[1].tolist() == [1.0, 2.0, 3.0, 2.0, 4.0, 6.0] and got[2].tolist() == [3, 3]
    assert got[3].tolist() == [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]
    assert got[4].shape == (3, 2) and got[5].tolist() == [3] and got[6].tolist() == [1]
    assert got[7].tolist() == [False]


def test_1x_top_level_static_names():
    assert fluid.CompiledProgram is static.CompiledProgram
    assert fluid.param_attr.WeightNormParamAttr is static.WeightNormParamAttr
    from dygraph.base.backward import append_backward

    from dygraph.fluid.compiler import BuildStrategy

    assert append_backward is static.append_backward and BuildStrategy is static.BuildStrategy
    assert len(fluid.cpu_places(2)) == 2
    import dygraph.base as base

    base.disable_dygraph()
    assert not dygraph.in_dynamic_mode()
    base.enable_dygraph()
    assert dygraph.in_dynamic_mode() and base.gradients is static.gradients
