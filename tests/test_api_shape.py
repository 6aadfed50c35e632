"""Behaviour of the Paddle 3 shape, scatter, search and product APIs beyond the spec table:
values Paddle 3.3 gives (written down here, so the tests need no Paddle), integer and
tie cases, the in-place and alias spellings, and the error messages."""

import numpy as np
import pytest

import dygraph as D


def _t(values, dtype=None, grad=False):
    return D.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


X = np.arange(6.0).reshape(2, 3)


def test_atleast_and_stacks():
    assert D.atleast_3d(_t(1.0)).shape == [1, 1, 1]
    out = D.atleast_2d(_t(1.0), _t([1.0, 2.0]))
    assert [o.shape for o in out] == [[1, 1], [1, 2]]
    assert D.hstack([_t([1, 2]), _t([3])]).numpy().tolist() == [1, 2, 3]
    assert D.dstack([_t([1.0, 2.0, 3.0])] * 2).shape == [1, 3, 2]
    assert D.column_stack([_t([1, 2]), _t([[3], [4]])]).numpy().tolist() == [[1, 3], [2, 4]]


def test_tensor_split_forms():
    parts = D.tensor_split(D.arange(7), 3)
    assert [p.numpy().tolist() for p in parts] == [[0, 1, 2], [3, 4], [5, 6]]
    parts = D.tensor_split(D.arange(7), [2, 5])
    assert [p.numpy().tolist() for p in parts] == [[0, 1], [2, 3, 4], [5, 6]]
    assert [p.shape for p in D.tensor_split(D.arange(2), 3)] == [[1], [1], [0]]
    with pytest.raises(ValueError, match="hsplit.*equal parts"):
        D.hsplit(D.ones([2, 3]), 2)
    with pytest.raises(ValueError, match="vsplit.*at least 2 dims"):
        D.vsplit(D.ones([4]), 2)
    assert [p.shape for p in D.ones([5, 2]).split_with_sizes([2, 3])] == [[2, 2], [3, 2]]


def test_block_diag_and_cartesian_prod_and_unstack():
    out = D.block_diag([_t([[1.0, 2.0, 3.0]]), _t([[1.0, 2.0], [3.0, 4.0]]), _t(5.0)])
    assert out.numpy().tolist() == [[1, 2, 3, 0, 0, 0], [0, 0, 0, 1, 2, 0],
                                    [0, 0, 0, 3, 4, 0], [0, 0, 0, 0, 0, 5]]
    prod = D.cartesian_prod([_t([1, 2]), _t([3, 4, 5])])
    assert prod.numpy().tolist() == [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]
    assert D.unstack(_t(X), 1, 3)[0].numpy().tolist() == [0.0, 3.0]
    with pytest.raises(ValueError, match="unstack: num=2"):
        D.unstack(_t(X), 1, 2)
    with pytest.raises(ValueError, match="broadcast_tensors"):
        D.broadcast_tensors([D.ones([2]), D.ones([3])])


def test_views():
    x = D.arange(8.0).reshape([2, 4])
    assert x.unfold(1, 2, 1).numpy().tolist() == [[[0, 1], [1, 2], [2, 3]],
                                                  [[4, 5], [5, 6], [6, 7]]]
    assert D.view(_t([1.0, 2.0], "float32"), "int32").numpy().tolist() == [1065353216,
                                                                          1073741824]
    assert D.view(_t([1.0, 2.0], "float32"), D.float16).shape == [4]
    assert D.as_strided(x, [3, 2], [1, 2], 1).numpy().tolist() == [[1, 3], [2, 4], [3, 5]]
    with pytest.raises(ValueError, match="as_strided.*outside"):
        D.as_strided(x, [3, 2], [2, 4], 1)
    assert D.narrow(_t(X), 1, -2, 2).numpy().tolist() == [[1, 2], [4, 5]]
    with pytest.raises(ValueError, match="narrow.*exceeds"):
        D.narrow(_t(X), 1, 2, 2)
    assert D.unflatten(D.ones([6]), 0, [2, 3]).shape == [2, 3]
    with pytest.raises(ValueError, match="unflatten"):
        D.unflatten(D.ones([6]), 0, [4, -1])
    assert x.permute(1, 0).shape == [4, 2]
    assert D.ravel(x).shape == [8]


def test_rot90_reverse_crop_diag_embed():
    x = D.arange(8.0).reshape([2, 4])
    assert D.rot90(x).numpy().tolist() == [[3, 7], [2, 6], [1, 5], [0, 4]]
    assert D.rot90(x, 2).numpy().tolist() == np.rot90(x.numpy(), 2).tolist()
    assert D.rot90(x, 4).numpy().tolist() == x.numpy().tolist()
    assert D.reverse(x, 0).numpy().tolist() == [[4, 5, 6, 7], [0, 1, 2, 3]]
    assert D.crop(x, [1, 2], [1, 1]).numpy().tolist() == [[5, 6]]
    assert D.crop(x, [-1, 2]).numpy().tolist() == [[0, 1], [4, 5]]
    with pytest.raises(ValueError, match="crop"):
        D.crop(x, [2, 2], [1, 0])
    out = D.diag_embed(_t([[1.0, 2.0]]), -1, 2, 0)
    assert out.shape == [3, 1, 3]
    assert out.numpy()[:, 0, :].tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    assert D.diagflat(_t(X), -1).shape == [7, 7]


def test_scatter_family_values():
    x = _t(X)
    out = D.scatter_reduce(x, 1, _t([[0, 0], [2, 2]]), _t([[1.0, 2.0], [4.0, 5.0]]), "mean")
    np.testing.assert_allclose(out.numpy(), [[1, 1, 2], [3, 4, 14 / 3]])
    out = D.scatter_reduce(x, 1, _t([[0, 0], [2, 2]]), _t([[1.0, 2.0], [4.0, 5.0]]), "mean",
                           include_self=False)
    np.testing.assert_allclose(out.numpy(), [[1.5, 1, 2], [3, 4, 4.5]])
    assert D.scatter_nd(_t([[1], [1], [0]]), _t([1.0, 2.0, 3.0]), [3]).numpy().tolist() == [
        3, 3, 0]
    assert D.index_fill(x, _t([1]), 0, _t(9.0)).numpy().tolist() == [[0, 1, 2], [9, 9, 9]]
    assert D.index_put(x, (_t([True, False]),), _t(9.0)).numpy().tolist() == [
        [9, 9, 9], [3, 4, 5]]
    out = D.index_put(x, (_t([0, 0]),), _t([1.0, 1.0, 1.0]), accumulate=True)
    assert out.numpy().tolist() == [[2, 3, 4], [3, 4, 5]]
    out = D.masked_scatter(x, _t([True, False, True]), _t([10.0, 20, 30, 40, 50]))
    assert out.numpy().tolist() == [[10, 1, 20], [30, 4, 40]]
    with pytest.raises(ValueError, match="masked_scatter.*only 3"):
        D.masked_scatter(x, _t([True, True, True]), _t([1.0, 2.0, 3.0]))
    assert D.select_scatter(x, _t([1.0, 2.0]), 1, 0).numpy().tolist() == [[1, 1, 2],
                                                                           [2, 4, 5]]
    assert D.diagonal_scatter(x, _t([5.0, 5.0]), 1).numpy().tolist() == [[0, 5, 2],
                                                                          [3, 4, 5]]
    with pytest.raises(ValueError, match="scatter_reduce: reduce"):
        D.scatter_reduce(x, 1, _t([[0]]), _t([[1.0]]), "max")
    with pytest.raises(TypeError, match="index_put: indices"):
        D.index_put(x, _t([0]), _t(1.0))


def test_gathers():
    x = _t(X)
    assert D.take(x, _t([[-1, 5], [0, 1]])).numpy().tolist() == [[5, 5], [0, 1]]
    assert D.take(x, _t([7, -8]), mode="wrap").numpy().tolist() == [1, 4]
    assert D.take(x, _t([7, -8]), mode="clip").numpy().tolist() == [5, 0]
    with pytest.raises(IndexError, match="take"):
        D.take(x, _t([6]))
    assert D.index_sample(x, _t([[2, 0], [1, 1]])).numpy().tolist() == [[2, 0], [4, 4]]
    assert D.multiplex([x, -x], _t([[1], [0]])).numpy().tolist() == [[0, -1, -2], [3, 4, 5]]
    assert D.take_along_dim(x, _t([[0], [2]]), 1).numpy().tolist() == [[0], [5]]


def test_kthvalue_and_mode_ties_follow_paddle():
    x = _t([[3.0, 1, 2, 1, 3], [5, 5, 4, 4, 1]])
    v, i = D.kthvalue(x, 2)
    assert v.numpy().tolist() == [1, 4] and i.numpy().tolist() == [3, 2]
    v, i = D.kthvalue(x, 1, axis=0)
    assert i.numpy().tolist() == [0, 0, 0, 0, 1]
    v, i = D.mode(x)
    assert v.numpy().tolist() == [1, 4] and i.numpy().tolist() == [3, 3]
    v, i = D.mode(_t([2.0, 1, 1, 2, 3]))
    assert v.item() == 1 and i.item() == 2 and v.shape == []
    v, i = x.mode(axis=0, keepdim=True)
    assert v.shape == [1, 5]
    with pytest.raises(ValueError, match="kthvalue: k must be"):
        D.kthvalue(x, 6)
    # The gradient goes to the picked element.
    y = _t([3.0, 1.0, 2.0], grad=True)
    D.kthvalue(y, 2)[0].backward()
    assert y.grad.numpy().tolist() == [0, 0, 1]


def test_search_helpers():
    assert D.msort(_t([[3.0, 1], [1, 2]])).numpy().tolist() == [[1, 1], [3, 2]]
    seq = _t([1, 3, 5, 7])
    assert D.bucketize(_t([1, 5, 9]), seq).numpy().tolist() == [0, 2, 4]
    assert D.bucketize(_t([[1, 5]]), seq, right=True).numpy().tolist() == [[1, 3]]
    assert D.argwhere(_t([[0, 1], [2, 0]])).numpy().tolist() == [[0, 1], [1, 0]]
    assert D.isin(_t([1.0, 2.0]), _t([2.0]), invert=True).numpy().tolist() == [True, False]
    out, inv, counts = D.unique_consecutive(_t([1, 1, 2, 2, 3, 1, 1]), True, True)
    assert out.numpy().tolist() == [1, 2, 3, 1]
    assert inv.numpy().tolist() == [0, 0, 1, 1, 2, 3, 3]
    assert counts.numpy().tolist() == [2, 2, 1, 2]
    out, counts = D.unique_consecutive(_t([[1, 1], [1, 1], [2, 3]]), axis=0,
                                       return_counts=True)
    assert out.numpy().tolist() == [[1, 1], [2, 3]] and counts.numpy().tolist() == [2, 1]


def test_histograms():
    edges = D.histogram_bin_edges(_t([1.0, 2.0, 5.0], "float32"), bins=4)
    assert edges.numpy().tolist() == [1, 2, 3, 4, 5] and edges.dtype == D.float32
    assert D.histogram_bin_edges(_t([1.0, 2, 5]), 2, 0, 10).numpy().tolist() == [0, 5, 10]
    hist, edges = D.histogramdd(_t([[0.0, 1], [1, 0], [2, 0]], "float32"), bins=2)
    assert hist.numpy().tolist() == [[0, 1], [2, 0]]
    assert [e.numpy().tolist() for e in edges] == [[0, 1, 2], [0, 0.5, 1]]
    hist, _ = D.histogramdd(_t([[0.0, 1], [1, 0], [2, 0]]), bins=[2, 3], ranges=[0, 2, 0, 3],
                            density=True, weights=_t([1.0, 2.0, 1.0]))
    np.testing.assert_allclose(hist.numpy(), [[0, 0.25, 0], [0.75, 0, 0]])


def test_products_and_distances():
    x = _t([[1.0, 3, 6], [2, 2, 9]])
    out = D.addmm(D.ones([2, 2]), x, x.T, beta=0.5, alpha=2)
    assert out.numpy().tolist() == [[92.5, 124.5], [124.5, 178.5]]
    assert D.inner(_t(2.0), x).shape == [2, 3]
    assert D.tensordot(D.ones([2, 3]), D.ones([3, 2]), 1).shape == [2, 2]
    with pytest.raises(ValueError, match="tensordot: dim 1 of x"):
        D.tensordot(D.ones([2, 3, 4]), D.ones([2, 4, 3]), [1, 2])
    assert D.dist(x, x * 0, 0).item() == 6
    assert D.dist(x, x * 0, float("inf")).item() == 9
    assert D.cdist(D.ones([2, 3, 4]), D.zeros([2, 5, 4])).shape == [2, 3, 5]
    np.testing.assert_allclose(D.pdist(x).numpy(), [np.sqrt(11)])
    assert D.diff(_t([1, 4, 9])).numpy().tolist() == [3, 5]
    out = D.diff(x, n=2, axis=1, prepend=_t([[0.0], [0.0]]))
    assert out.numpy().tolist() == [[1, 1], [-2, 7]]
    assert D.vander(_t([1, 2]), increasing=True).numpy().tolist() == [[1, 1], [1, 2]]
    assert D.vander(_t([1, 2, 3]), 0).shape == [3, 0]
    np.testing.assert_allclose(D.renorm(x, 1, 1, 4).numpy(),
                               [[1, 2.4, 1.6], [2, 1.6, 2.4]], rtol=1e-6)
    assert D.reduce_as(D.ones([2, 3, 4]), D.ones([3, 1])).numpy().tolist() == [[8]] * 3
    assert D.combinations(_t([1, 2, 3]), 0).shape == [0]
    assert D.combinations(_t([1, 2]), 3).shape == [0, 3]


def test_inplace_variants():
    a = _t([[1.0, 2.0]])
    assert D.addmm_(a, _t([[1.0]]), _t([[1.0, 1.0]])) is a
    assert a.numpy().tolist() == [[2, 3]]
    b = D.zeros([3], dtype="float64")
    b.scatter_add_(0, _t([1, 1]), _t([1.0, 2.0]))
    assert b.numpy().tolist() == [0, 3, 0]
    assert D.index_fill_(b, _t([0]), 0, 7.0).numpy().tolist() == [7, 3, 0]
    b.index_put_((_t([2]),), _t(1.0))
    b.masked_scatter_(_t([False, True, False]), _t([5.0]))
    assert b.numpy().tolist() == [7, 5, 1]
    c = _t([[3.0, 4.0]])
    D.renorm_(c, 2, 0, 1.0)
    np.testing.assert_allclose(c.numpy(), [[0.6, 0.8]], rtol=1e-6)
    d = D.zeros([1, 2, 2])  # float32, as D.ones
    d.baddbmm_(D.ones([1, 2, 1]), D.ones([1, 1, 2]))
    assert d.numpy().tolist() == [[[1, 1], [1, 1]]]
    x = _t([1.0, 2.0], "float32")
    assert D.where_(_t([True, False]), x, D.zeros([2])) is x
    assert x.numpy().tolist() == [1, 0]
    # Recorded in place: the gradient flows through the changed tensor.
    w = _t([1.0, 2.0], grad=True)
    y = w * 1.0
    y.index_fill_(_t([0]), 0, 0.0)
    y.sum().backward()
    assert w.grad.numpy().tolist() == [0, 1]


def test_creation_and_queries():
    assert D.tril_indices(3, 3).numpy().tolist() == [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    assert D.triu_indices(3, 2, 1).numpy().tolist() == [[0], [1]]
    assert D.logspace(0, 2, 3, base=2, dtype="int32").numpy().tolist() == [1, 2, 4]
    assert D.range(0, 3).numpy().tolist() == [0, 1, 2, 3]
    assert D.range(0.0, 1, 0.5).numpy().tolist() == [0, 0.5, 1]
    assert D.range(3).dtype == D.float32
    arr = np.zeros(2, dtype=np.float32)
    t = D.from_numpy(arr)
    arr[1] = 3.0
    assert t.numpy().tolist() == [0, 3]
    assert D.as_tensor([1, 2], dtype="float64").dtype == D.float64
    assert not D.asarray([1.0], requires_grad=True).stop_gradient
    back = D.from_dlpack(D.to_dlpack(D.arange(3)))
    assert back.numpy().tolist() == [0, 1, 2]
    assert D.from_dlpack(np.arange(2.0)).numpy().tolist() == [0, 1]
    x = D.ones([2, 3])
    assert D.shape(x).numpy().tolist() == [2, 3]
    assert D.numel(x).item() == 6 and D.numel(x).dtype == D.int64
    assert D.rank(x).item() == 2 and x.rank().dtype == D.int32
    assert D.Size([2, 3]) == [2, 3] and repr(D.Size([2])) == "Size([2])"
    assert D.broadcast_shape([2, 1], [3]) == [2, 3]
    with pytest.raises(ValueError, match="broadcast_shapes"):
        D.broadcast_shapes([2], [3])


def test_aliases():
    x = _t(X)
    assert D.cat([x, x]).shape == [4, 3] and D.concatenate([x, x], 1).shape == [2, 6]
    assert x.clamp(1, 4).numpy().tolist() == [[1, 1, 2], [3, 4, 4]]
    assert D.swapaxes(x, [1, 0]).shape == [3, 2] and x.swapdims([1, 0]).shape == [3, 2]
    np.testing.assert_allclose(D.softmax(D.ones([2, 3, 4])).numpy().sum(0), 1)
    np.testing.assert_allclose(D.softmax(D.ones([2, 3])).numpy().sum(1), 1)
    np.testing.assert_allclose(x.softmax(0).numpy().sum(0), 1)
    w = D.ones([1, 1, 2])
    assert D.conv1d(D.ones([1, 1, 4]), w).numpy().tolist() == [[[2, 2, 2]]]
    assert D.layer_norm(x, 3).shape == [2, 3]


@pytest.mark.parametrize("axis", [0, 1])
def test_mode_matches_a_counting_reference(axis):
    data = np.random.default_rng(0).integers(0, 4, (5, 9))
    v, i = D.mode(_t(data), axis=axis)
    for line, value, index in zip(np.moveaxis(data, axis, 0).T, v.numpy(), i.numpy()):
        values, counts = np.unique(line, return_counts=True)
        want = values[np.argmax(counts)]  # np.unique sorts: the first maximum is smallest
        assert value == want and index == np.flatnonzero(line == want)[-1]


STATIC_CASES = {
    "tensordot": lambda x: D.tensordot(x, D.ones([4, 2]), 1),
    "inner": lambda x: D.inner(x, x),
    "unflatten": lambda x: D.unflatten(x, 1, [2, 2]),
    "renorm": lambda x: D.renorm(x, 2, 0, 1.0),
    "crop": lambda x: D.crop(x, [-1, 2], [0, 1]),
    "kthvalue": lambda x: D.kthvalue(x, 2)[0],
    "msort": D.msort,
    "unfold": lambda x: x.unfold(1, 2, 1),
    "diag_embed": D.diag_embed,
    "pdist": D.pdist,
    "index_fill": lambda x: D.index_fill(x, D.to_tensor([1]), 1, 2.0),
    "masked_scatter": lambda x: D.masked_scatter(x, x > 0, x * 2),
}


def test_static_programs_keep_the_batch_dim_free():
    from dygraph import static

    D.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [-1, 4], "float32")
            outs = {name: fn(x) for name, fn in STATIC_CASES.items()}
        exe = static.Executor()
        runs = {}
        for n in (5, 2):
            feed = np.random.default_rng(n).standard_normal((n, 4)).astype("float32")
            got = exe.run(main, feed={"x": feed}, fetch_list=list(outs.values()))
            runs[n] = feed, got
    finally:
        D.disable_static()
    for feed, got in runs.values():
        for (name, fn), value in zip(STATIC_CASES.items(), got):
            np.testing.assert_allclose(value, fn(D.to_tensor(feed)).numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=name)
