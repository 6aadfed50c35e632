"""paddle.sparse.nn: sparse convolutions and pooling against dense NumPy references on
random point sets (every geometry Paddle's sparse layers take), softmax and the
activations, the layers (parameters, defaults, repr, batch norm modes) and a small
point-cloud network that trains."""

import itertools
import math

import numpy as np
import pytest

import dygraph
from dygraph import sparse

F = sparse.nn.functional
RNG = np.random.default_rng(4)


def _point_set(batch, spatial, channels, count):
    """A COO point set [batch, *spatial, channels] of `count` distinct random points."""
    cells = RNG.choice(batch * math.prod(spatial), count, replace=False)
    points = np.stack(np.unravel_index(np.sort(cells), (batch,) + tuple(spatial)))
    values = RNG.standard_normal((count, channels))
    return points, values


def _dense_conv(points, values, shape, weight, stride, pads, dilation):
    """Dense correlation (pads: (before, after) per dim) of the points' features; returns
    the output grid and which output positions have a point in their window."""
    nd = len(shape) - 2
    grid = np.zeros(shape)
    grid[tuple(points)] = values
    occupied = np.zeros(shape[:-1])
    occupied[tuple(points)] = 1
    pad = [(0, 0)] + list(pads) + [(0, 0)]
    grid, occupied = np.pad(grid, pad), np.pad(occupied, pad[:-1])
    kernel = weight.shape[:nd]
    out_size = [(grid.shape[1 + i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                for i in range(nd)]
    out = np.zeros([shape[0]] + out_size + [weight.shape[-1]])
    reached = np.zeros([shape[0]] + out_size, bool)
    for tap in itertools.product(*(range(k) for k in kernel)):
        window = (slice(None),) + tuple(
            slice(t * d, t * d + s * (o - 1) + 1, s)
            for t, d, s, o in zip(tap, dilation, stride, out_size))
        out += grid[window] @ weight[tap]
        reached |= occupied[window] > 0
    return out, reached


GEOMETRIES = [  # (stride, padding, dilation, kernel)
    (1, 0, 1, 3), (2, 1, 1, 3), (1, 1, 2, 3), ([1, 2, 1], [1, 0, 1], 1, [3, 2, 3]),
    (1, [1, 1, 0, 0, 1, 1], 1, 3), (2, "SAME", 1, 3), (1, "VALID", 1, 2), (3, 2, 1, 4),
]


@pytest.mark.parametrize("stride,padding,dilation,kernel", GEOMETRIES)
def test_conv3d_matches_a_dense_convolution(stride, padding, dilation, kernel):
    shape = [2, 5, 6, 7, 3]
    points, values = _point_set(2, shape[1:4], 3, 30)
    k = [kernel] * 3 if isinstance(kernel, int) else kernel
    weight = RNG.standard_normal(k + [3, 4])
    bias = RNG.standard_normal(4)
    x = sparse.sparse_coo_tensor(points, values, shape)
    got = F.conv3d(x, dygraph.to_tensor(weight), dygraph.to_tensor(bias), stride, padding,
                   dilation)
    s3 = [stride] * 3 if isinstance(stride, int) else stride
    d3 = [dilation] * 3
    if padding == "SAME":
        pads = []
        for size, kk, s in zip(shape[1:4], k, s3):
            total = max(0, (math.ceil(size / s) - 1) * s + kk - size)
            pads.append((total // 2, total - total // 2))
    elif padding == "VALID":
        pads = [(0, 0)] * 3
    elif isinstance(padding, int):
        pads = [(padding, padding)] * 3
    elif len(padding) == 3:
        pads = [(p, p) for p in padding]
    else:
        pads = list(zip(padding[0::2], padding[1::2]))
    out, reached = _dense_conv(points, values, shape, weight, s3, pads, d3)
    assert got.shape == list(out.shape)
    assert got.indices().tolist() == np.stack(np.nonzero(reached)).tolist()
    np.testing.assert_allclose(got.values().numpy(), out[reached] + bias, atol=1e-10)


@pytest.mark.parametrize("kernel,dilation", [(3, 1), (5, 1), (3, 2), ([1, 3, 3], 1)])
def test_subm_conv3d_keeps_the_points(kernel, dilation):
    shape = [2, 4, 5, 6, 2]
    points, values = _point_set(2, shape[1:4], 2, 25)
    order = RNG.permutation(25)  # the output keeps the input's order, coalesced or not
    x = sparse.sparse_coo_tensor(points[:, order], values[order], shape)
    k = [kernel] * 3 if isinstance(kernel, int) else kernel
    weight = RNG.standard_normal(k + [2, 3])
    got = F.subm_conv3d(x, dygraph.to_tensor(weight), dilation=dilation, stride=2,
                        padding=7)
    pads = [(kk // 2 * dilation,) * 2 for kk in k]
    out, _ = _dense_conv(points, values, shape, weight, [1] * 3, pads, [dilation] * 3)
    assert got.shape == shape[:-1] + [3]
    coalesced = x.coalesce()
    assert got.indices().tolist() == coalesced.indices().tolist()
    np.testing.assert_allclose(got.values().numpy(), out[tuple(coalesced.indices().numpy())],
                               atol=1e-10)


def test_conv2d_and_subm_conv2d():
    shape = [2, 6, 5, 3]
    points, values = _point_set(2, shape[1:3], 3, 20)
    x = sparse.sparse_coo_tensor(points, values, shape)
    weight = RNG.standard_normal((3, 3, 3, 2))
    out, reached = _dense_conv(points, values, shape, weight, [2, 1], [(1, 1), (0, 0)],
                               [1, 1])
    got = F.conv2d(x, dygraph.to_tensor(weight), stride=[2, 1], padding=[1, 0])
    np.testing.assert_allclose(got.values().numpy(), out[reached], atol=1e-10)
    out, _ = _dense_conv(points, values, shape, weight, [1, 1], [(1, 1)] * 2, [1, 1])
    for fn in (F.subm_conv2d, F.subm_conv2d_igemm):
        got = fn(x, dygraph.to_tensor(weight))
        np.testing.assert_allclose(got.values().numpy(), out[tuple(points)], atol=1e-10)


@pytest.mark.parametrize("kernel,stride,padding,ceil_mode", [
    (2, None, 0, False), (3, 2, 1, False), ([1, 2, 3], 1, 0, False), (2, 2, 0, True)])
def test_max_pool3d_over_the_points(kernel, stride, padding, ceil_mode):
    shape = [2, 5, 5, 5, 2]
    points, values = _point_set(2, shape[1:4], 2, 30)
    x = sparse.sparse_coo_tensor(points, values, shape)
    got = F.max_pool3d(x, kernel, stride, padding, ceil_mode)
    k = [kernel] * 3 if isinstance(kernel, int) else kernel
    s = k if stride is None else [stride] * 3
    grid = np.full(shape, -np.inf)
    grid[tuple(points)] = values
    grid = np.pad(grid, [(0, 0)] + [(padding, padding + (s[0] if ceil_mode else 0))] * 3
                  + [(0, 0)], constant_values=-np.inf)
    out_size = [(shape[1 + i] + 2 * padding - k[i] + (s[i] - 1 if ceil_mode else 0))
                // s[i] + 1 for i in range(3)]
    want = np.full([2] + out_size + [2], -np.inf)
    for o in itertools.product(*(range(n) for n in out_size)):
        block = grid[:, o[0] * s[0]:o[0] * s[0] + k[0], o[1] * s[1]:o[1] * s[1] + k[1],
                     o[2] * s[2]:o[2] * s[2] + k[2]]
        want[(slice(None),) + o] = block.max(axis=(1, 2, 3))
    reached = np.isfinite(want[..., 0])
    assert got.shape == list(want.shape)
    assert got.indices().tolist() == np.stack(np.nonzero(reached)).tolist()
    np.testing.assert_array_equal(got.values().numpy(), want[reached])


def test_max_pool3d_of_integers_and_booleans():
    x = sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 1], [0, 1]], [[-5], [-7]],
                                 [1, 2, 2, 2, 1])
    assert F.max_pool3d(x, 2).values().tolist() == [[-5]]
    assert F.max_pool3d(sparse.cast(x, value_dtype="bool"), 2).values().tolist() == [[True]]


def test_softmax_layouts_and_axes():
    a = RNG.standard_normal((2, 3, 4)) * (RNG.random((2, 3, 4)) < 0.6)
    x = dygraph.to_tensor(a).to_sparse_coo(3)
    stored = a != 0
    for axis in (0, 1, 2, -1):
        e = np.where(stored, np.exp(a), 0)
        want = e / np.where(stored, e.sum(axis=axis, keepdims=True), 1)
        got = F.softmax(x, axis=axis).to_dense().numpy()
        np.testing.assert_allclose(got, np.where(stored, want, 0), rtol=1e-12)
    csr = F.softmax(dygraph.to_tensor(a).to_sparse_csr()).to_dense().numpy()
    np.testing.assert_allclose(csr, F.softmax(x).to_dense().numpy(), rtol=1e-12)
    hybrid = dygraph.to_tensor(a).to_sparse_coo(2)
    values = hybrid.values().numpy()
    got = F.softmax(hybrid, axis=2).values().numpy()
    np.testing.assert_allclose(got, np.exp(values) / np.exp(values).sum(-1, keepdims=True))
    with pytest.raises(ValueError, match="CSR tensor takes softmax over its last axis"):
        F.softmax(dygraph.to_tensor(a).to_sparse_csr(), axis=1)


def test_activation_layers():
    x = sparse.sparse_coo_tensor([[0, 1, 2]], [-2.0, 3.0, 9.0], [4])
    assert sparse.nn.ReLU()(x).values().tolist() == [0.0, 3.0, 9.0]
    assert sparse.nn.ReLU6()(x).values().tolist() == [0.0, 3.0, 6.0]
    assert sparse.nn.LeakyReLU(0.5)(x).values().tolist() == [-1.0, 3.0, 9.0]
    assert repr(sparse.nn.LeakyReLU(0.5)) == "LeakyReLU(negative_slope=0.5)"
    assert sparse.nn.Softmax()(x).values().numpy().sum() == pytest.approx(1.0)


def test_conv_layers():
    conv = sparse.nn.Conv3D(4, 8, [3, 2, 3], stride=2, padding=1)
    assert conv.weight.shape == [3, 2, 3, 4, 8] and conv.bias.shape == [8]
    assert conv.weight.numpy().std() == pytest.approx(math.sqrt(2 / (18 * 4)), rel=0.2)
    assert repr(conv) == ("Conv3D(4, 8, kernel_size=[3, 2, 3], stride=[2, 2, 2], padding=1, "
                          "data_format=NDHWC)")
    subm = sparse.nn.SubmConv2D(3, 5, 3, key="k", backend="igemm", bias_attr=False)
    assert subm.weight.shape == [3, 3, 3, 5] and subm.bias is None
    points, values = _point_set(1, [6, 6], 3, 10)
    x = sparse.sparse_coo_tensor(points, values.astype("float32"), [1, 6, 6, 3])
    assert subm(x).indices().tolist() == points.tolist()
    for bad in (dict(padding_mode="reflect"), dict(groups=2)):
        with pytest.raises(ValueError):
            sparse.nn.Conv2D(3, 5, 3, **bad)
    with pytest.raises(ValueError, match="backend must be None or 'igemm'"):
        sparse.nn.SubmConv3D(3, 5, 3, backend="cutlass")
    with pytest.raises(ValueError, match="data_format must be 'NDHWC'"):
        F.conv3d(sparse.sparse_coo_tensor(points[[0, 1, 2, 2]], values, [1, 6, 6, 6, 3]),
                 dygraph.ones([1, 1, 1, 3, 1], "float64"), data_format="NCDHW")
    with pytest.raises(TypeError, match=r"x \(float32\) and weight \(float64\)"):
        F.subm_conv2d(x, dygraph.ones([3, 3, 3, 1], "float64"))


def test_batch_norm_modes_and_sync_conversion():
    points, values = _point_set(1, [4, 4, 4], 3, 20)
    x = sparse.sparse_coo_tensor(points, values.astype("float32"), [1, 4, 4, 4, 3])
    bn = sparse.nn.BatchNorm(3, momentum=0.5)
    out = bn(x).values().numpy()
    np.testing.assert_allclose(out.mean(0), 0, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.5 * values.mean(0), rtol=1e-5)
    bn.eval()
    want = (values - bn._mean.numpy()) / np.sqrt(bn._variance.numpy() + 1e-5)
    np.testing.assert_allclose(bn(x).values().numpy(), want, rtol=1e-4, atol=1e-5)
    net = dygraph.nn.Sequential(sparse.nn.BatchNorm(3), sparse.nn.ReLU())
    converted = sparse.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert type(converted[0]) is sparse.nn.SyncBatchNorm
    assert converted[0].weight is net[0].weight or converted[0].weight.shape == [3]
    np.testing.assert_allclose(converted(x).values().numpy(), np.maximum(
        sparse.nn.BatchNorm(3)(x).values().numpy(), 0), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="data_format must be one of"):
        sparse.nn.BatchNorm(3, data_format="NCDHW")


def test_max_pool_layer():
    pool = sparse.nn.MaxPool3D(2, 2)
    assert repr(pool) == "MaxPool3D(kernel_size=2, stride=2, padding=0)"
    with pytest.raises(ValueError, match="returns no mask"):
        sparse.nn.MaxPool3D(2, return_mask=True)


def test_a_point_cloud_network_trains():
    """Two submanifold blocks, a strided convolution, pooling to a global feature and a
    linear head learn to tell two point-cloud shapes apart (a plane and a line)."""
    dygraph.seed(0)

    def cloud(kind, seed):
        rng = np.random.default_rng(seed)
        if kind == 0:  # a plane z = 3 with holes
            cells = [(a, b, 3) for a in range(8) for b in range(8) if rng.random() < 0.7]
        else:  # a thick line along the first axis
            cells = [(a, b, c) for a in range(8) for b in (3, 4) for c in (3, 4)
                     if rng.random() < 0.9]
        return np.array(cells).T

    def batch(seed):
        clouds = [cloud(k, seed + k) for k in (0, 1)]
        idx = np.concatenate([np.vstack([np.full(c.shape[1], b), c])
                              for b, c in enumerate(clouds)], axis=1)
        values = np.ones((idx.shape[1], 1), "float32")
        return sparse.sparse_coo_tensor(idx, values, [2, 8, 8, 8, 1]), np.array([0, 1])

    net = dygraph.nn.Sequential(sparse.nn.SubmConv3D(1, 8, 3), sparse.nn.BatchNorm(8),
                                sparse.nn.ReLU(), sparse.nn.SubmConv3D(8, 8, 3),
                                sparse.nn.ReLU(), sparse.nn.Conv3D(8, 8, 2, stride=2),
                                sparse.nn.MaxPool3D(4, 4))
    head = dygraph.nn.Linear(8, 2)
    params = net.parameters() + head.parameters()
    opt = dygraph.optimizer.Adam(learning_rate=0.02, parameters=params)
    losses = []
    for step in range(25):
        x, label = batch(step)
        feats = net(x).to_dense().reshape([2, -1, 8]).max(axis=1)
        loss = dygraph.nn.functional.cross_entropy(head(feats), dygraph.to_tensor(label))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert np.mean(losses[-5:]) < 0.3 * np.mean(losses[:5])
